"""The sensitive lexicon: words that say something about a person's health,
religion, sexuality, ethnicity, politics, union membership, criminal record or
immigration status (DESIGN §4 rule 8), in English and Chinese.

English entries are regular expressions matched as whole words, case-blind
(ENGLISH_CASED: AIDS, OCD… are matched as written). Chinese entries are written once, in
Traditional characters; sensitive.py matches them in Simplified too. A word
that is only sensitive in some uses is listed as a phrase ("had a stroke", not
"stroke"; 做禮拜, not 禮拜, which also means "week").

EXEMPT lists uses of a listed word that say nothing about the person: an
institution or a culture named by a faith ("Catholic university", "Islamic
art", 天主教醫院), a star sign, an economic depression. An exemption wins when
it starts at or before the sensitive word and covers it."""

from __future__ import annotations

HEALTH = "health"
RELIGION = "religion"
SEXUALITY = "sexuality"
ETHNICITY = "ethnicity"
POLITICS = "politics"
TRADE_UNION = "trade_union"
CRIMINAL_RECORD = "criminal_record"
IMMIGRATION_STATUS = "immigration_status"

_FAITHS = ["catholic", "christian", "muslim", "islamic", "jewish", "hindu", "buddhist", "sikh", "protestant",
           "evangelical", "mormon", "baptist", "methodist", "lutheran", "presbyterian", "anglican", "quaker",
           "orthodox", "episcopal", "adventist"]
_INSTITUTION = (r"(?:universit(?:y|ies)|college|school|academy|seminary|hospital|clinic|charit(?:y|ies)|relief|"
                r"church|cathedral|chapel|temple|mosque|synagogue|monaster(?:y|ies)|shrine|museum|art|architecture|"
                r"history|studies|cuisine|food|restaurant|deli|bakery|calendar|press|publisher|bookstore|"
                r"cent(?:er|re)|organi[sz]ation|foundation|council)")

ENGLISH: dict[str, list[str]] = {
    HEALTH: [
        r"hiv(?:[- ]positive)?", r"cancers?", r"tumou?rs?", r"chemo(?:therapy)?", r"radiotherapy",
        r"leuka?emia", r"lymphoma", r"diabet(?:es|ic)", r"insulin", r"asthma(?:tic)?", r"epilep(?:sy|tic)",
        r"seizures", r"depression", r"depressive", r"anti-?depressants?", r"bipolar", r"schizophreni\w*",
        r"psychosis", r"psychotic", r"anxiety\s+(?:disorder|attacks?|medication)", r"panic\s+(?:attacks?|disorder)",
        r"autis(?:m|tic)", r"asperger\w*", r"dyslexi[ac]",
        r"dementia", r"alzheimer['’]?s?", r"parkinson['’]?s", r"multiple\s+sclerosis", r"eating\s+disorders?",
        r"anorexi[ac]", r"bulimi[ac]", r"self[- ]harm(?:ing)?", r"suicidal", r"suicide(?:\s+attempt)?",
        r"mental\s+(?:illness|disorder|health\s+(?:condition|issues?|problems?|crisis))", r"psychiatri(?:st|c)",
        r"therapist", r"(?:in|starts?|started|starting)\s+therapy", r"rehab", r"addiction", r"addicts?",
        r"alcoholi(?:c|sm)", r"sober\s+(?:for|since)", r"hepatitis", r"herpes", r"hypertension",
        r"high\s+blood\s+pressure", r"heart\s+(?:disease|condition|attack|failure)", r"had\s+a\s+stroke",
        r"cirrhosis", r"kidney\s+(?:disease|failure|stones?)", r"dialysis", r"transplant", r"arthritis", r"lupus",
        r"crohn['’]?s", r"c[oe]eliac", r"migraines", r"chronic\s+(?:pain|illness|fatigue)", r"pregnan(?:t|cy)",
        r"miscarri(?:age|ed)", r"ivf", r"infertil(?:e|ity)", r"fertility\s+treatment", r"abortion",
        r"disabilit(?:y|ies)", r"(?:i\s+am|i['’]m|as\s+a)\s+disabled", r"wheelchair", r"hearing\s+aids?",
        r"deaf", r"(?:legally|went|am|i['’]m)\s+blind", r"visually\s+impaired", r"hard\s+of\s+hearing",
        r"diagnosed", r"diagnosis\s+of", r"medications?", r"meds", r"prescribed", r"tested\s+positive",
        r"allerg(?:y|ies|ic)", r"(?:had|having|needs?|recovering\s+from)\s+(?:\w+\s+)?surgery",
        r"(?:knee|hip|heart|brain|back|spine|eye)\s+surgery", r"genetic\s+(?:test|condition|disorder)",
        r"brca\d?", r"metformin", r"sertraline", r"prozac", r"zoloft", r"lexapro", r"xanax", r"adderall",
        r"ritalin", r"methadone", r"birth\s+control", r"on\s+the\s+pill",
    ],
    RELIGION: [
        r"religio(?:n|us)", r"faith\s+(?:is|in\s+god)", r"christians?", r"christianity", r"catholics?",
        r"catholicism", r"protestants?", r"evangelicals?", r"mormons?", r"jehovah['’]?s\s+witness(?:es)?",
        r"muslims?", r"moslems?", r"islam(?:ic)?", r"jews?", r"jewish", r"judaism", r"hindus?", r"hinduism",
        r"buddhists?", r"buddhism", r"sikhs?", r"sikhism", r"(?<!-)atheists?", r"atheism", r"(?<!-)agnostic",
        r"pagan", r"wiccan?", r"scientologist", r"baptist", r"methodist", r"lutheran", r"presbyterian", r"anglican",
        r"quaker", r"shi(?:a|ite)", r"sunni", r"taoist", r"born[- ]again", r"devout",
        r"orthodox\s+(?:jew|christian|church)", r"(?:greek|russian)\s+orthodox",
        r"(?:go(?:es)?|went|attends?|attended|going)\s+to\s+(?:the\s+|a\s+)?(?:\w+\s+)?"
        r"(?:church|mass|mosque|synagogue)", r"(?:go(?:es)?|went|going)\s+to\s+temple",
        r"prays?\s+(?:daily|every|five|before)",
        r"(?:fasts?|fasting|observes?|observing)\s+(?:for\s+|during\s+)?ramadan", r"keeps?\s+kosher",
        r"eats?\s+(?:only\s+)?halal", r"(?:keeps?|observes?)\s+(?:the\s+)?(?:sabbath|shabbat)", r"baptized",
    ],
    SEXUALITY: [
        r"gay", r"lesbians?", r"bisexual", r"homosexual", r"heterosexual", r"queer", r"asexual", r"pansexual",
        r"lgbt\w*", r"transgender", r"trans\s+(?:woman|man|person|kid|teen)", r"non-?binary", r"genderqueer",
        r"gender\s+identity", r"sexual\s+orientation", r"sexuality",
        r"came\s+out\s+(?:as|to\s+(?:my|his|her|their)\b)", r"coming\s+out\s+(?:as|to\s+(?:my|his|her|their)\b)",
        r"same[- ]sex", r"polyamor\w*", r"sex\s+life", r"sexually\s+active",
        r"(?:i\s+am|i['’]m)\s+straight(?=\s*(?:$|[.,;!]))",
    ],
    ETHNICITY: [
        r"ethnicity", r"ethnic", r"ethnically", r"racial", r"(?:bi|multi)racial", r"mixed[- ]race", r"my\s+race",
        r"hispanic", r"latin[oax]s?", r"latine", r"african[- ]american", r"asian[- ]american", r"caucasian",
        r"indigenous", r"aboriginal", r"native\s+american", r"first\s+nations", r"pacific\s+islander", r"romani",
        r"uyghurs?", r"han\s+chinese", r"of\s+\w+(?:\s+\w+)?\s+(?:descent|heritage|ancestry)",
        r"(?:black|white)\s+(?:woman|man|person|people|american|british|family|guy|girl)",
        r"(?:person|people|woman|man)\s+of\s+colou?r", r"bipoc",
    ],
    POLITICS: [
        r"political\s+(?:views?|opinions?|affiliation|beliefs?|leanings?|party)", r"politically",
        r"vote[sd]?\s+(?:for\s+)?(?:the\s+)?(?:labour|conservatives?|greens?|liberals?|reform)", r"democrats?",
        r"democratic\s+party", r"republicans?",
        r"labour\s+(?:party|voter|member|supporter)", r"tor(?:y|ies)", r"conservative\s+party", r"lib\s+dems?",
        r"liberal\s+democrats?", r"green\s+party", r"ukip", r"maga", r"socialis[tm]s?",
        r"communis[tm]s?", r"marxis[tm]s?", r"anarchis[tm]s?", r"libertarians?", r"fascis[tm]s?",
        r"far[- ](?:right|left)", r"(?:left|right)[- ]wing", r"trump\s+supporter", r"pro[- ](?:life|choice)",
        r"activist",
    ],
    TRADE_UNION: [
        r"trade\s+unions?", r"labou?r\s+unions?",
        r"union\s+(?:member(?:ship)?|rep(?:resentative)?|steward|dues|card|organi[sz]er)",
        r"(?:member\s+of|joined|in)\s+(?:the|a|my|our)\s+union", r"shop\s+steward", r"unioni[sz]ed", r"teamsters",
    ],
    CRIMINAL_RECORD: [
        r"criminal\s+(?:record|conviction|past|history)", r"convicted", r"convictions?\s+for", r"felon(?:y|ies|s)?",
        r"(?:in|out\s+of|released\s+from|went\s+to|served\s+time\s+in|was\s+in|spent\s+\w+\s+\w+\s+in)\s+"
        r"(?:prison|jail)", r"prison\s+sentence", r"jail\s+time", r"served\s+time", r"ex[- ]con", r"ex[- ]offender",
        r"on\s+parole", r"(?:parole|probation)\s+officer", r"arrested", r"sex\s+offender",
        r"incarcerated", r"pleaded\s+guilty",
    ],
    IMMIGRATION_STATUS: [
        r"undocumented", r"illegal\s+(?:immigrants?|aliens?)", r"asylum(?:\s+seekers?)?", r"refugees?",
        r"deport(?:ed|ation)", r"overstay(?:ed|ing)?\s+(?:my\s+|his\s+|her\s+|their\s+|a\s+)?visa",
        r"(?:immigration|visa|residency)\s+status", r"green\s+card", r"daca", r"residence\s+permit",
        r"stateless\s+(?:person|people|refugee|since)",
    ],
}

# Abbreviations that are other words in lower case ("aids", "add"), matched as written.
ENGLISH_CASED: dict[str, list[str]] = {
    HEALTH: ["AIDS", "PTSD", "OCD", "ADHD", "IBS", "COPD", "STDs?", "STIs?", "PrEP"],
    RELIGION: ["LDS"],
    POLITICS: ["GOP", "SNP", "AfD"],
    CRIMINAL_RECORD: ["DUI", "DWI"],
}

EXEMPT_ENGLISH: list[str] = [
    # One entry per faith, each opening with its own word (sensitive.py files entries by their first letter).
    *(rf"{faith}\s+{_INSTITUTION}" for faith in _FAITHS),
    r"(?:friend|colleague|cousin|named|called|with|and)\s+christian",
    r"(?:great|tropical|economic)\s+depression",
    # Learning about a faith is not holding it; a pet's diagnosis is not its owner's health.
    r"(?:about|on)\s+(?:buddhism|islam|judaism|hinduism|christianity|catholicism|sikhism|taoism|atheism)",
    r"my\s+(?:cat|dog|pet|horse|rabbit|parrot)\s+(?:is|was|has\s+been)\s+(?:allergic|diagnosed)"
    r"(?:\s+(?:to|with)\s+\w+)?",
    r"(?:star\s+sign|zodiac(?:\s+sign)?|sun\s+sign|horoscope)\s+(?:is\s+)?(?:a\s+)?cancer",
    r"cancer\s+(?:research|charity|awareness|society|foundation|fundraiser)",
    r"ethnic\s+(?:food|cuisine|restaurants?|dishes|market)", r"indigenous\s+(?:plants?|species|flora|fauna)",
    r"refugees?\s+(?:cent(?:er|re)|charit(?:y|ies)|organi[sz]ations?)",
    r"wheelchair[- ](?:accessible|access)", r"massage\s+therapist", r"arrested\s+development",
    r"suicide\s+squad", r"trade\s+union\s+(?:history|law)", r"deaf\s+ears?", r"politically\s+correct",
]

# Written in Traditional characters; matched in Simplified too. Regional words
# that differ beyond the script (艾滋 beside 愛滋) are listed as their own entries.
CHINESE: dict[str, list[str]] = {
    HEALTH: [
        "愛滋", "艾滋", "癌", "腫瘤", "化療", "放療", "糖尿病", "胰島素", "氣喘", "哮喘", "癲癇", "憂鬱症", "抑鬱症",
        "躁鬱症", "雙相情感", "思覺失調", "精神分裂", "焦慮症", "恐慌症", "強迫症", "過動症", "注意力不足", "自閉症",
        "亞斯伯格", "失智", "阿茲海默", "帕金森", "飲食障礙", "厭食症", "暴食症", "自殘", "自殺", "精神病", "精神科",
        "抗憂鬱", "抗抑鬱", "心理醫生", "心理醫師", "心理諮商", "心理治療", "身心科", "勒戒", "戒毒", "酗酒", "肝炎", "性病", "皰疹",
        "高血壓", "心臟病", "中風", "腎衰竭", "洗腎", "透析", "關節炎", "紅斑性狼瘡", "懷孕", "有身孕", "流產",
        "墮胎", "試管嬰兒", "不孕", "殘障", "殘疾", "身心障礙", "輪椅", "助聽器", "聽障", "視障", "確診", "診斷出",
        "服藥", "吃藥", "用藥", "處方藥", "過敏", "開刀", "動手術", "病史", "慢性病",
    ],
    RELIGION: [
        "宗教", "信仰", "基督徒", "基督教", "天主教", "佛教", "信佛", "學佛", "穆斯林", "回教", "伊斯蘭", "猶太教",
        "印度教", "錫克教", "道教", "一貫道", "摩門", "耶和華見證人", "無神論", "不可知論", "受洗", "做禮拜",
        "上教會", "去教會", "教會聚會", "清真寺", "禱告", "祈禱", "念經", "齋戒", "守齋", "信主", "信教", "信耶穌",
        "吃清真",
    ],
    SEXUALITY: [
        "同性戀", "雙性戀", "異性戀", "無性戀", "泛性戀", "跨性別", "變性", "性取向", "性傾向", "性別認同", "出櫃",
        "男同志", "女同志", "同志伴侶", "同婚", "同性婚姻", "同性伴侶", "酷兒", "蕾絲邊", "性生活",
    ],
    ETHNICITY: [
        "種族", "族裔", "血統", "混血", "原住民", "少數民族", "漢族", "維吾爾", "藏族", "回族", "阿美族", "泰雅族",
        "排灣族", "布農族", "客家人", "閩南人", "外省人", "本省人", "黑人", "白人", "猶太人",
    ],
    POLITICS: [
        "政治立場", "政治傾向", "政治觀點", "政黨", "黨員", "入黨", "民進黨", "國民黨", "共產黨", "民眾黨", "時代力量",
        "台獨", "統派", "獨派", "藍營", "綠營", "投票給", "投給", "左派", "右派", "自由派", "保守派", "社會主義",
        "共產主義", "無政府主義",
    ],
    TRADE_UNION: ["工會"],
    CRIMINAL_RECORD: [
        "前科", "案底", "坐牢", "坐過牢", "入獄", "出獄", "服刑", "判刑", "假釋", "緩刑", "被捕", "被逮捕",
        "犯罪紀錄", "犯罪記錄", "酒駕", "吸毒", "更生人",
    ],
    IMMIGRATION_STATUS: [
        "非法移民", "無證移民", "難民", "庇護", "黑戶", "逾期居留", "遣返", "驅逐出境", "居留身分", "移民身分",
        "綠卡", "居留證",
    ],
}

# A first name followed by a surname ("Christian Bale"), as written.
EXEMPT_CASED: list[str] = [r"Christian\s+[A-Z][a-z]+", r"Shia\s+LaBeouf"]

EXEMPT_CHINESE: list[str] = [
    *(f"{faith}(?:大學|學院|中學|小學|學校|醫院|博物館|藝術|建築|文化|史)"
      for faith in ("天主教", "基督教", "佛教", "伊斯蘭", "回教", "道教")),
    "原住民(?:料理|餐廳|文化|藝術|音樂)", "黑人牙膏", "清真(?:寺)?(?:餐廳|料理)",
]
