"""Labels named as people ask about them: the everyday words of a question
("where does Ana live", "what does Kai drive") and Chinese ones, in Simplified
(a question in Traditional is read as Simplified before it is matched:
cards/words/understand.py). Recall and ask find the label a question is about by
these; a write naming a label by one of them lands on that label too.

Chinese names are matched as substrings, so single characters that occur
inside unrelated words (家 in 大家) are left out. One name names one label:
a name another label holds already is not added."""

from django.db import migrations

SPOKEN = {
    "address": ["live", "lives", "living", "地址", "住址", "住在", "住哪", "家住"],
    "city": ["live in", "城市", "哪个城市", "住在哪个城市"],
    "country": ["国家", "哪个国家"],
    "employer": ["work", "works", "working", "teach at", "teaches at", "teach", "teaches",
                 "公司", "上班", "工作单位", "在哪工作", "在哪里工作"],
    "works_at": ["办公室", "办公地点", "工作地点"],
    "job_title": ["do for a living", "职位", "职务", "职业", "头衔", "做什么工作", "工作"],
    "manager": ["老板", "上司", "经理", "主管", "领导"],
    "phone": ["电话", "手机", "手机号", "电话号码", "号码"],
    "email": ["邮箱地址", "电子邮件地址", "邮箱", "电邮", "电子邮件", "邮件"],
    "birthday": ["生日", "出生日期", "几号出生"],
    "diet": ["饮食", "吃素", "素食"],
    "name": ["名字", "姓名", "叫什么"],
    "partner": ["married to", "伴侣", "老婆", "老公", "太太", "丈夫", "妻子", "先生", "男朋友", "女朋友", "配偶"],
    "relationship_status": ["婚姻状况"],
    "time_zone": ["时区"],
    "car": ["drive", "车", "汽车", "开什么车"],
    "school": ["study", "studies", "学校", "大学", "读书", "上学", "念书"],
    "stage": ["阶段", "进度", "进展", "状态"],
    "advisor": ["adviser", "导师", "指导老师"],
    "skill": ["技能", "擅长", "会什么"],
    "interest": ["兴趣", "感兴趣"],
    "language": ["speak", "语言", "会说", "讲什么话", "说什么话"],
    "topic": ["话题", "主题"],
    "hobby": ["爱好", "嗜好", "业余"],
    "likes": ["love", "enjoy", "喜欢", "最爱", "爱吃"],
    "dislikes": ["hate", "不喜欢", "讨厌"],
    "pet": ["dog", "cat", "宠物", "狗", "猫"],
    "child": ["children", "kids", "孩子", "儿子", "女儿", "小孩"],
    "parent": ["parents", "父母", "爸爸", "妈妈", "父亲", "母亲"],
    "sibling": ["siblings", "兄弟姐妹", "哥哥", "姐姐", "弟弟", "妹妹", "兄弟", "姐妹"],
    "friend": ["朋友"],
    "member_of": ["成员", "属于"],
    "needs": ["需要"],
    "has": ["have", "有什么"],
    "used_for": ["用来", "用途"],
    "wedding": ["婚礼", "结婚"],
    "trip": ["trips", "旅行", "旅游", "出差", "度假"],
    "meeting": ["meetings", "会议", "开会", "见面"],
    "decision": ["decide", "决定"],
    "purchase": ["buy", "购买", "买了"],
    "visit": ["拜访", "参观", "看望"],
    "appointment": ["appointments", "预约", "门诊"],
    "move": ["搬家", "搬到"],
    "birth": ["出生"],
    "graduation": ["graduate", "毕业"],
    "party": ["parties", "派对", "聚会"],
    "milestone": ["里程碑", "上线", "发布"],
    "meal": ["吃饭", "晚饭", "午饭", "早饭", "聚餐", "餐厅"],
    "outing": ["演唱会", "电影", "音乐会", "比赛"],
    "note": ["笔记", "备忘"],
    "howto": ["步骤", "怎么做"],
    "principle": ["原则", "教训"],
    "reference": ["链接", "文档", "资料"],
    "definition": ["定义", "什么意思"],
    "design": ["设计", "架构"],
}


# Labels a household asks about that had none: (key, takes an entity, synonyms, description).
NEW_LABELS = [
    ("breed", False, ["what breed", "kind of dog", "kind of cat", "品种"], "The breed of an animal."),
    ("dentist", True, ["dentists", "牙医"], "The subject's dentist."),
    ("doctor", True, ["family doctor", "gp", "physician", "医生", "家庭医生"], "The subject's doctor."),
]


def add(apps, schema_editor):
    Label = apps.get_model("cards", "Label")
    for key, takes_object, synonyms, description in NEW_LABELS:
        Label.objects.get_or_create(key=key, defaults={
            "kind": "state", "cardinality": "single", "decay_lambda": 0.02 if key != "breed" else 0.005,
            "synonyms": synonyms, "description": description, "takes_object": takes_object})
    for key, names in SPOKEN.items():
        label = Label.objects.filter(key=key).first()
        if label is None:  # removed by an admin: nothing to name
            continue
        # A name another label already holds stays that label's (one name, one label, for writes).
        taken = {label.key} | {n for other in Label.objects.exclude(pk=label.pk) for n in [other.key, *other.synonyms]}
        label.synonyms = [*label.synonyms, *(n for n in names if n not in label.synonyms and n not in taken)]
        label.save(update_fields=["synonyms"])


def remove(apps, schema_editor):
    Label = apps.get_model("cards", "Label")
    Label.objects.filter(key__in=[row[0] for row in NEW_LABELS], cards__isnull=True).delete()
    for key, names in SPOKEN.items():
        for label in Label.objects.filter(key=key):
            label.synonyms = [n for n in label.synonyms if n not in names]
            label.save(update_fields=["synonyms"])


class Migration(migrations.Migration):
    dependencies = [("cards", "0020_card_lexemes")]
    operations = [migrations.RunPython(add, remove)]
