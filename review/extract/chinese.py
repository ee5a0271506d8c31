"""Chinese pattern rules, traditional and simplified side by side (住在, 喜歡/喜欢, 記住/记住), with the
Cantonese forms households write (係, 嘅, 喺, 咗). The first rule that matches a clause wins; boundaries
follow english.py's choice (knowledge, `note`, tag `boundary`).

Values stop at the first comma or pause (zh_single): "排隊，尤其是…" is 排隊. No segmenter is needed for
these shapes: each rule names the words around the value (我對…過敏, 我在…上班, 叫…), and jieba's
dictionary (loaded on first use, about a second) would only be asked where a rule already knows the edge."""

from __future__ import annotations

import re

from .rules import Draft, Rule, clause_when, clean, items, rule, said_as, said_whole

# 我的X是Y: the registry's synonyms are English, so the Chinese words are mapped here.
_ATTRIBUTES = {
    **dict.fromkeys(["電話", "电话", "手機", "手机", "電話號碼", "电话号码", "手機號碼", "手机号码", "手機號", "手机号"], "phone"),
    **dict.fromkeys(["信箱", "郵箱", "邮箱", "電子郵件", "电子邮件", "電郵", "电邮"], "email"),
    **dict.fromkeys(["工作", "職業", "职业", "職位", "职位"], "job_title"),
    **dict.fromkeys(["公司"], "employer"),
    **dict.fromkeys(["名字"], "name"),
    **dict.fromkeys(["宗教", "信仰"], "religion"),
    **dict.fromkeys(["老闆", "老板", "主管", "上司", "領導", "领导"], "manager"),
    **dict.fromkeys(["導師", "导师", "指導教授", "指导教授"], "advisor"),
    **dict.fromkeys(["地址", "住址"], "address"),
    **dict.fromkeys(["時區", "时区"], "time_zone"),
    **dict.fromkeys(["生日"], "birthday"),
    **dict.fromkeys(["老公", "丈夫", "先生", "老婆", "太太", "妻子", "男朋友", "女朋友", "伴侶", "伴侣"], "partner"),
}
_TAKES_OBJECT = {"manager", "partner", "advisor"}
_JOBS = ("工程師|工程师|老師|老师|教師|教师|醫生|医生|醫師|医师|護士|护士|護理師|护理师|律師|律师|設計師|设计师|會計師|会计师|"
         "研究生|博士生|學生|学生|經理|经理|記者|记者|作家|廚師|厨师|研究員|研究员|教授|司機|司机|藥師|药师|程序員|程序员|"
         "工程人員|工程人员|翻譯|翻译|編輯|编辑|警察|軍人|军人|農夫|农夫|店員|店员|創業者|创业者|剪輯師|剪辑师|會計|会计|財務|财务")
_WE = r"我(?:們|们|哋)?"
# A time word may sit between 我們 and the verb (我們上週六去了…); a wish or a
# negation may not (我想搬到…, 我沒去…).
_SOON = r"(?:(?!想|要|打算|準備|准备|希望|會|会|可能|不|沒|没|還沒|还没).){0,8}?"
_IS = r"(?:是|係)"
_OF = r"(?:的|個|个|嘅)"
_PARTNERS = "老公|先生|老婆|太太|丈夫|妻子|男朋友|女朋友"
_SIBLINGS = "哥哥|姐姐|弟弟|妹妹"
_CHILDREN = "兒子|儿子|女兒|女儿"
_GRANDCHILDREN = "孫子|孙子|孫女|孙女|外孫|外孙|外孫女|外孙女"
_MEASURE = re.compile(r"^(?:一|兩|两|幾|几)?(?:台|臺|個|个|隻|只|件|輛|辆|張|张|間|间|家|盒|雙|双|套|部|本|支|把)(?=.)")
_LATER = re.compile(r"^(?:下個|下个|下)?(?:季度|學期|学期)")


_CLAUSE_END = re.compile(r"[，,。；;！!？?]")


def zh_single(value: str, when: str | None = None) -> str:
    """A single value: up to the first comma or pause (an enumeration comma 、 too), without particles."""
    return clean(re.split(r"[，,。；;！!？?、]", clean(value, when), maxsplit=1)[0])


def _state(label: str, value: str, tag: str = "fact", subject: str = "me", when: str | None = None) -> list[Draft]:
    return [Draft(kind="state", label=label, value=value, tag=tag, subject=subject, when=when)] if value else []


def _attribute(m: re.Match[str]) -> list[Draft]:
    label = _ATTRIBUTES.get(m["x"])
    value = zh_single(m["v"])
    subject = m["rel"] if "rel" in m.re.groupindex and m["rel"] else "me"
    if label is None or not value:
        return []
    if label in _TAKES_OBJECT:
        return [Draft(kind="state", label=label, object=value, subject=subject)]
    return _state(label, value, subject=subject)


def _moved(m: re.Match[str]) -> list[Draft]:
    when = clause_when(m)
    city = zh_single(m["v"], when)
    return [Draft(kind="state", label="city", value=city, when=when),
            Draft(kind="event", label="move", value=city, when=when)]


def _event(label: str, *, needs_when: bool = False, cut=None):
    def build(m: re.Match[str]) -> list[Draft]:
        when = clause_when(m)
        value = (cut or zh_single)(m["v"], when)
        if not value or (needs_when and not when):
            return []
        return [Draft(kind="event", label=label, value=value, when=when)]
    return build


def _bought(value: str, when: str | None) -> str:
    return _MEASURE.sub("", zh_single(value, when))


def _visited(value: str, when: str | None) -> str:
    """去了大興看我奶奶 → 奶奶 (the person); 去台南孔廟拜拜 → 台南孔廟 (the place)."""
    said = zh_single(value, when)
    if person := re.search(r"(?:看|探望)(?:我|我們|我们)?(?P<p>.+)$", said):
        return person["p"]
    return re.sub(r"(?:拜拜|玩|走走|逛逛|參觀|参观)$", "", said)


def _boundary(m: re.Match[str]) -> list[Draft]:
    said = said_as(re.split(r"[，,]", m.string, maxsplit=1)[0])
    return [Draft(kind="knowledge", label="note", value=said, text=said, tag="boundary")]


def _list_of(label: str):
    """花生、蝦 / 中文、英文和日文: every item up to the clause's end (zh_single would stop at the first 、)."""
    return lambda m: [d for value in items(clean(_CLAUSE_END.split(clean(m["v"]), maxsplit=1)[0]))
                      for d in _state(label, value)]


def _family(m: re.Match[str]) -> list[Draft]:
    """我女兒小安昨天第一次自己騎腳踏車去學校 → the child, and the milestone when a day is said."""
    rel, name = m["rel"], m["name"]
    label = ("partner" if re.fullmatch(_PARTNERS, rel) else "sibling" if re.fullmatch(_SIBLINGS, rel)
             else "child")
    found = [Draft(kind="state", label=label, value=rel, object=name)]
    when = clause_when(m)
    rest = m.string[m.end("name"):]
    if label == "child" and when and rest.startswith(when):
        event = zh_single(rest[len(when):])
        if event and not re.match(r"(?:說|说|講|讲|問|问|叫|在|是|很|好|有)", event):
            found.append(Draft(kind="event", label="milestone", value=event, when=when, subject=name))
    return found


def _pet(m: re.Match[str]) -> list[Draft]:
    found = [Draft(kind="state", label="pet", value=zh_single(m["name"]))]
    if m["kind"]:
        breed = re.split(r"[的]", zh_single(m["kind"]))[-1]
        if 2 <= len(breed) <= 4:
            found.append(Draft(kind="state", label="breed", value=breed, subject=found[0].value))
    return found


def _job(m: re.Match[str]) -> list[Draft]:
    return _state("job_title", zh_single(m["v"]).split("的")[-1])


def _knowledge(m: re.Match[str]) -> list[Draft]:
    label = {"原則": "principle", "原则": "principle", "定義": "definition", "定义": "definition"}[m["kind"][:2]]
    said = said_as(re.split(r"[，,]", m["v"], maxsplit=1)[0])
    return [Draft(kind="knowledge", label=label, value=said, text=said)]


def _decided(m: re.Match[str]) -> list[Draft]:
    when = clause_when(m)
    value = _LATER.sub("", zh_single(m["v"], when))
    return [Draft(kind="event", label="decision", value=value, when=when)] if value else []


REMEMBER = re.compile(r"^(?:請|请)?(?:記住|记住)[，,:：\s]*(?P<rest>.+)$")

_NOT_A_PERSON = r"(?!(?:你|妳|您|他|她|它)(?:們|们)?$|的)"
_DEGREE = r"(?:很|非常|超|真的|最|也|蠻|蛮|挺|好)?"
_HOBBY_VERB = "做|種|种|打|跑|畫|画|唱|跳|寫|写|拍|煮|烤|騎|骑|釣|钓|彈|弹|織|织|練|练"

RULES: list[Rule] = [
    rule("zh_birthday", rf"我(?:(?P<rel>{_PARTNERS}|爸爸|媽媽|妈妈|爸|媽|妈))?的?生日{_IS}(?P<v>.+)",
         lambda m: _state("birthday", zh_single(m["v"]), subject=m["rel"] or "me")),
    rule("zh_my_attribute_is", rf"^我(?:{_OF}|家的?|們的|们的|哋嘅)(?:新)?(?P<x>[^是係，,。換换]{{1,6}}?)"
         rf"(?:{_IS}|換成了?|换成了?)(?P<v>.+)$", _attribute),
    rule("zh_family", rf"我(?P<rel>{_PARTNERS}|{_SIBLINGS}|{_CHILDREN})(?:叫)?(?P<name>[\u4e00-\u9fff]{{2}}|[A-Z][a-z]+)"
         r"(?=啦|，|,|$|今天|昨天|前天|上週|上周|這|这|已經|已经|在|第一次|開始|开始|拿到|考上)", _family),
    rule("zh_pet", r"我(?:們|们)?家的(?:貓|猫|狗|兔子)叫(?P<name>[^，,。]{1,4})(?:[，,]\s*(?:是一[隻只](?P<kind>[^，,。]+)))?",
         _pet),
    rule("zh_birth", rf"我(?:{_GRANDCHILDREN}|{_CHILDREN})(?:(?!出生).){{0,6}}出生了[，,]\s*叫(?P<v>[\u4e00-\u9fff]{{2}})",
         lambda m: [Draft(kind="event", label="birth", value=m["v"], when=clause_when(m))]),
    rule("zh_lives_in", r"我(?:們|们)?(?:現在|现在|目前)?住在(?P<v>[^，,。的]+)", lambda m: _state("city", zh_single(m["v"]))),
    rule("zh_moved_to", rf"{_WE}{_SOON}(?:搬到|搬去)了?(?P<v>[^，,。]+)", _moved),
    rule("zh_job_at", r"我(?:現在|现在|目前|上個月|上个月)?(?:開始|开始)?在(?:一家|一間|一间)[^，,。]{1,12}?(?:做|當|当)"
         r"(?P<v>[^，,。]{1,6})", lambda m: _state("job_title", zh_single(m["v"]))),
    rule("zh_works_at", r"我(?:現在|现在|目前)?在(?!家|這裡|这里|那裡|那里|一家|一間|一间)(?P<v>[^，,。]{1,30}?)(?:上班|工作)",
         lambda m: _state("employer", zh_single(m["v"]))),
    rule("zh_studies_at", r"我(?:現在|现在|目前)?在(?!家)(?P<v>[^，,。]{1,10}?)(?:讀|读|念)", lambda m: _state("school", m["v"])),
    rule("zh_job", rf"^我{_IS}(?:一[個个名位])?(?P<v>[^，,。]{{0,10}}?(?:{_JOBS}))(?:[，,]|$)", _job),
    rule("zh_new_colleague", rf"新(?:來|来)的(?P<v>[^，,。]{{0,6}}?(?:{_JOBS}))叫(?P<who>[\u4e00-\u9fff]{{2}})",
         lambda m: _state("job_title", m["v"], subject=m["who"])),
    rule("zh_favourite", r"^我最(?:喜歡|喜欢)的[^，,。是]{1,4}是(?P<v>.+)$", lambda m: _state("likes", zh_single(m["v"]),
                                                                                     "preference")),
    rule("zh_dislikes", rf"^我{_DEGREE}(?:討厭|讨厌|不喜歡|不喜欢|不愛|不爱){_NOT_A_PERSON}(?P<v>.+)$",
         lambda m: _state("dislikes", zh_single(m["v"]), "preference")),
    rule("zh_hobby", rf"^我{_DEGREE}(?:愛|爱)(?P<v>(?:{_HOBBY_VERB})[^，,。]+)",
         lambda m: _state("hobby", zh_single(m["v"]))),
    rule("zh_likes", rf"^我{_DEGREE}(?:喜歡|喜欢|愛|爱|鍾意|钟意){_NOT_A_PERSON}(?P<v>.+)$",
         lambda m: _state("likes", re.sub(r"^(?:聽|听|飲|饮|喝|吃)(?=.{2})", "", zh_single(m["v"])), "preference")),
    rule("zh_taken_up", r"我(?:最近)?迷上了(?P<v>[^，,。]+)", lambda m: _state("hobby", zh_single(m["v"]))),
    rule("zh_allergy", r"我(?:只是)?(?:對|对)(?P<v>[^，,。]+?)(?:嚴重|严重|有點|有点)?(?:過敏|过敏|敏感)", _list_of("allergy")),
    rule("zh_diagnosed", r"我.{0,6}?(?:查出來|查出来|診斷出|诊断出)(?:有|了)?(?P<v>[^，,。]+)",
         lambda m: _state("health_condition", zh_single(m["v"]))),
    rule("zh_language", r"我(?:會|会)(?:說|说|講|讲)(?P<v>[^，,。]+?(?:文|語|语|話|话))(?:[，,]|$)", _list_of("language")),
    rule("zh_skill", r"我(?:比較|比较|很|最)?(?:擅長|擅长)(?P<v>[^，,。]+)", _list_of("skill")),
    rule("zh_skill_write", r"我很(?:會|会)(?:寫|写)(?P<v>[A-Za-z+#]+)", lambda m: _state("skill", m["v"])),
    rule("zh_stage", r"^(?P<who>[^，,。我你他她]{2,4}?)(?:現在|现在|目前)是(?P<v>[^，,。]{1,4}(?:階段|阶段))",
         lambda m: _state("stage", m["v"], subject=m["who"])),
    rule("zh_needs", r"^(?P<who>[^，,。我你他她]{2,4}?)需要(?P<v>[^，,。]+)",
         lambda m: _state("needs", zh_single(m["v"]), subject=m["who"])),
    rule("zh_knowledge", r"^(?P<kind>原則|原则|定義一下|定义一下|定義|定义)[:：](?P<v>.+)", _knowledge),
    rule("zh_howto", r"^(?:[^，,。：:]{2,12}(?:的方法|的步驟|的步骤)[:：]|要[^，,。]{2,12}的話[，,])", said_whole("howto")),
    rule("zh_boundary", r"^(?:請|请)?(?:千萬|千万)?(?:不要|別|别|唔好)(?!(?:擔心|担心|客氣|客气|忘|唔記得))", _boundary),
    rule("zh_wedding", rf"{_WE}{_SOON}(?:去了|參加了|参加了|去參加了|去参加了)(?P<name>[^，,。的]{{1,10}})的(?P<w>婚禮|婚礼)",
         lambda m: [Draft(kind="event", label="wedding", value=f"{m['name']}的{m['w']}", when=clause_when(m))]),
    rule("zh_decided", rf"{_WE}{_SOON}(?:決定|决定)(?:咗|了)?(?P<v>[^，,。]+)", _decided),
    rule("zh_meal", rf"{_WE}{_SOON}(?:在|喺)(?P<v>[^，,。]{{1,8}}?)(?:吃了|吃|食咗|食)", _event("meal", needs_when=True)),
    rule("zh_met", rf"{_WE}{_SOON}(?:見了|见了|見到了|见到了|遇到了)(?P<v>[^，,。]+)", _event("meeting")),
    rule("zh_went", rf"{_WE}{_SOON}去了(?P<v>[^，,。]+)", _event("visit", needs_when=True, cut=_visited)),
    rule("zh_went_le", rf"{_WE}{_SOON}去(?P<v>[^，,。了]{{2,10}})了(?:[，,]|$)",
         _event("visit", needs_when=True, cut=_visited)),
    rule("zh_went_pray", rf"{_WE}{_SOON}去(?P<v>[^，,。了]{{2,10}}?)(?:拜拜|走走|逛逛)", _event("visit", needs_when=True)),
    rule("zh_bought", rf"{_WE}{_SOON}(?:買了|买了)(?P<v>[^，,。]+)", _event("purchase", cut=_bought)),
]
