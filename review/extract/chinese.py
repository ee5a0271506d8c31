"""Chinese pattern rules, traditional and simplified side by side (住在, 喜歡/喜欢, 記住/记住).
The first rule that matches a clause wins; boundaries follow english.py's choice
(knowledge, `note`, tag `boundary`)."""

from __future__ import annotations

import re

from .rules import Draft, Rule, clause_when, clean, items, rule

# 我的X是Y: the registry's synonyms are English, so the Chinese words are mapped here.
_ATTRIBUTES = {
    **dict.fromkeys(["電話", "电话", "手機", "手机", "電話號碼", "电话号码", "手機號碼", "手机号码"], "phone"),
    **dict.fromkeys(["信箱", "郵箱", "邮箱", "電子郵件", "电子邮件", "電郵", "电邮"], "email"),
    **dict.fromkeys(["工作", "職業", "职业", "職位", "职位"], "job_title"),
    **dict.fromkeys(["公司"], "employer"),
    **dict.fromkeys(["名字"], "name"),
    **dict.fromkeys(["宗教", "信仰"], "religion"),
    **dict.fromkeys(["老闆", "老板", "主管", "上司"], "manager"),
    **dict.fromkeys(["老公", "丈夫", "先生", "老婆", "太太", "妻子", "男朋友", "女朋友", "伴侶", "伴侣"], "partner"),
}
_TAKES_OBJECT = {"manager", "partner"}
_JOBS = ("工程師|工程师|老師|老师|教師|教师|醫生|医生|醫師|医师|護士|护士|護理師|护理师|律師|律师|設計師|设计师|會計師|会计师|"
         "研究生|博士生|學生|学生|經理|经理|記者|记者|作家|廚師|厨师|研究員|研究员|教授|司機|司机|藥師|药师|程序員|程序员|"
         "工程人員|工程人员|翻譯|翻译|編輯|编辑|警察|軍人|军人|農夫|农夫|店員|店员|創業者|创业者")
_WE = r"我(?:們|们)?"
# A time word may sit between 我們 and the verb (我們上週六去了…); a wish or a
# negation may not (我想搬到…, 我沒去…).
_SOON = r"(?:(?!想|要|打算|準備|准备|希望|會|会|可能|不|沒|没|還沒|还没).){0,8}?"


def _state(label: str, value: str, tag: str = "fact") -> list[Draft]:
    return [Draft(kind="state", label=label, value=value, tag=tag)] if value else []


def _attribute(m: re.Match[str]) -> list[Draft]:
    label = _ATTRIBUTES.get(m["x"])
    value = clean(m["v"])
    if label is None or not value:
        return []
    if label in _TAKES_OBJECT:
        return [Draft(kind="state", label=label, object=value)]
    return _state(label, value)


def _moved(m: re.Match[str]) -> list[Draft]:
    when = clause_when(m)
    city = clean(m["v"], when)
    return [Draft(kind="state", label="city", value=city, when=when),
            Draft(kind="event", label="move", value=city, when=when)]


def _event(label: str, *, needs_when: bool = False):
    def build(m: re.Match[str]) -> list[Draft]:
        when = clause_when(m)
        value = clean(m["v"], when)
        if not value or (needs_when and not when):
            return []
        return [Draft(kind="event", label=label, value=value, when=when)]
    return build


def _boundary(m: re.Match[str]) -> list[Draft]:
    said = clean(m.string)
    return [Draft(kind="knowledge", label="note", value=said, text=said, tag="boundary")]


def _list_of(label: str):
    return lambda m: [d for value in items(m["v"]) for d in _state(label, value)]


REMEMBER = re.compile(r"^(?:請|请)?(?:記住|记住)[，,:：\s]*(?P<rest>.+)$")

_NOT_A_PERSON = r"(?!(?:你|妳|您|他|她|它)(?:們|们)?$)"
_DEGREE = r"(?:很|非常|超|真的|最|也|蠻|蛮|挺)?"

RULES: list[Rule] = [
    rule("zh_birthday", r"我的生日是(?P<v>.+)", lambda m: _state("birthday", clean(m["v"]))),
    rule("zh_my_attribute_is", r"^我的(?P<x>[^是，,。]{1,6})是(?P<v>.+)$", _attribute),
    rule("zh_lives_in", r"我(?:們|们)?(?:現在|现在|目前)?住在(?P<v>[^，,。]+)", lambda m: _state("city", clean(m["v"]))),
    rule("zh_moved_to", rf"{_WE}{_SOON}(?:搬到|搬去)了?(?P<v>[^，,。]+)", _moved),
    rule("zh_works_at", r"我(?:現在|现在|目前)?在(?!家|這裡|这里|那裡|那里)(?P<v>[^，,。]{1,30}?)(?:上班|工作)",
         lambda m: _state("employer", clean(m["v"]))),
    rule("zh_job", rf"^我是(?:一[個个名位])?(?P<v>[^，,。]{{0,10}}?(?:{_JOBS}))$", lambda m: _state("job_title", m["v"])),
    rule("zh_dislikes", rf"^我{_DEGREE}(?:討厭|讨厌|不喜歡|不喜欢|不愛|不爱){_NOT_A_PERSON}(?P<v>.+)$",
         lambda m: _state("dislikes", clean(m["v"]), "preference")),
    rule("zh_likes", rf"^我{_DEGREE}(?:喜歡|喜欢|愛|爱){_NOT_A_PERSON}(?P<v>.+)$",
         lambda m: _state("likes", clean(m["v"]), "preference")),
    rule("zh_allergy", r"我(?:對|对)(?P<v>[^，,。]+?)(?:嚴重|严重|有點|有点)?(?:過敏|过敏)", _list_of("allergy")),
    rule("zh_language", r"我(?:會|会)(?:說|说|講|讲)(?P<v>[^，,。]+?(?:文|語|语|話|话))$", _list_of("language")),
    rule("zh_boundary", r"^(?:請|请)?(?:千萬|千万)?(?:不要|別|别)(?!(?:擔心|担心|客氣|客气|忘))", _boundary),
    rule("zh_wedding", rf"{_WE}{_SOON}(?:去了|參加了|参加了|去參加了|去参加了)(?P<name>[^，,。的]{{1,10}})的(?P<w>婚禮|婚礼)",
         lambda m: [Draft(kind="event", label="wedding", value=f"{m['name']}的{m['w']}", when=clause_when(m))]),
    rule("zh_met", rf"{_WE}{_SOON}(?:見了|见了|見到了|见到了|遇到了)(?P<v>[^，,。]+)", _event("meeting")),
    rule("zh_went", rf"{_WE}{_SOON}去了(?P<v>[^，,。]+)", _event("visit", needs_when=True)),
    rule("zh_bought", rf"{_WE}{_SOON}(?:買了|买了)(?P<v>[^，,。]+)", _event("purchase")),
]
