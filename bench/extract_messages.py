"""The synthetic chat corpus of bench/extract.py: deterministic for a seed.

Sessions of about 20 messages, user and assistant taking turns (a user
sometimes sends two in a row), in English, traditional or simplified Chinese.
Every user message belongs to one category, so the bench can show what the
patterns made of each:

* ``fact``: a statement a pattern is meant to catch (live in, moved to, work
  at, like, allergic, speak, wedding last Saturday, 我住在…, 我喜歡…, …);
* ``remember``: an explicit "remember that …" / 記住…;
* ``mixed``: a refused clause and a fact in one message ("I'm tired today, but
  my email is …");
* ``excluded``: what the ingest policy refuses (tired today, one-off
  frustrations, guesses at someone's motive);
* ``smalltalk``: chat that matches nothing, including "my X is Y" where X is
  not a registered label ("my flight is at 7");
* ``assistant``: what the assistant said (never mined, even when it reads
  like a fact).
Each session carries at least one fact, so every ingest job proposes a candidate.
"""

from __future__ import annotations

import datetime as dt
import random

CITIES = ["Berlin", "Lisbon", "Kyoto", "Toronto", "Oslo", "Nairobi", "Porto", "Seoul", "Austin", "Dublin"]
COMPANIES = ["Acme Corp", "Globex", "Initech", "Hooli", "Vandelay Imports", "Wonka Foods", "Cyberdyne"]
JOBS = ["software engineer", "nurse", "teacher", "data analyst", "architect", "product manager", "pharmacist"]
NAMES = ["Anna", "Ben", "Chloe", "Priya", "Tom", "Mei", "Sam Lee", "Lukas"]
LIKES = ["dark chocolate", "spicy ramen", "old films", "jazz", "hiking", "matcha", "board games", "sourdough"]
ALLERGENS = ["peanuts", "shellfish", "cats", "penicillin", "pollen", "dust mites", "latex"]
LANGUAGES = ["Japanese", "German", "Spanish", "French", "Portuguese", "Korean"]
THINGS = ["a bike", "a new laptop", "running shoes", "a tent", "a coffee grinder", "concert tickets"]
WHEN = ["last Saturday", "last week", "yesterday", "two weeks ago", "last month", "in March"]

ZH_CITIES = ["台北", "高雄", "台中", "上海", "北京", "香港", "東京", "新竹"]
ZH_COMPANIES = ["台積電", "一家新創公司", "銀行", "醫院", "出版社", "阿里巴巴"]
ZH_JOBS = ["工程師", "老師", "護士", "設計師", "會計師", "研究生"]
ZH_LIKES = ["吃火鍋", "爬山", "看電影", "喝珍珠奶茶", "打籃球", "貓", "日本料理"]
ZH_ALLERGENS = ["花生", "海鮮", "芒果", "貓毛", "花粉"]
ZH_NAMES = ["小美", "阿明", "王大明", "陳小姐", "表哥", "大學同學"]
ZH_WHEN = ["上週六", "上個月", "昨天", "前天", "上週末"]

# Traditional → simplified for the characters the templates use, so about half
# the Chinese sessions are written the mainland way (住在, 喜欢, 记住).
_SIMPLIFIED = str.maketrans({
    "們": "们", "個": "个", "週": "周", "歡": "欢", "記": "记", "禮": "礼", "參": "参", "對": "对", "過": "过",
    "會": "会", "說": "说", "語": "语", "買": "买", "見": "见", "師": "师", "護": "护", "設": "设", "計": "计",
    "積": "积", "電": "电", "銀": "银", "醫": "医", "鍋": "锅", "籃": "篮", "貓": "猫", "鮮": "鲜", "氣": "气",
    "壞": "坏", "煩": "烦", "難": "难", "幫": "帮", "謝": "谢", "這": "这", "麼": "么", "樣": "样", "嗎": "吗",
    "沒": "没", "問": "问", "題": "题", "覺": "觉", "東": "东", "臺": "台", "學": "学", "長": "长", "開": "开",
    "點": "点", "時": "时", "間": "间", "飯": "饭", "訴": "诉", "別": "别", "與": "与", "還": "还", "應": "应",
    "該": "该", "為": "为", "車": "车", "鐘": "钟", "風": "风", "讓": "让", "聽": "听", "筆": "笔", "腦": "脑",
    "歲": "岁", "業": "业", "實": "实", "頭": "头", "島": "岛", "熱": "热", "錯": "错", "貴": "贵", "請": "请",
    "遲": "迟", "薦": "荐", "幾": "几", "議": "议", "當": "当", "現": "现", "陳": "陈", "譯": "译", "創": "创",
    "話": "话", "邊": "边",
})

EN = {
    "fact": [
        "I live in {city}.", "By the way, I live in {city} now.", "We just moved to {city} {when}.",
        "I moved to {city} {when}, still unpacking.", "I work at {company}.", "I'm working for {company} these days.",
        "I work as a {job}.", "I'm a {job} at {company}.", "I really like {like}.", "I love {like} and {like2}.",
        "I'm allergic to {allergen}.", "Btw I'm allergic to {allergen} and {allergen2}.",
        "I speak {lang} and {lang2}.", "We went to {name}'s wedding {when}.", "I went to {name}'s wedding last Saturday.",
        "I met {name} for coffee yesterday.", "I bought {thing} {when}.", "My email is {email}.",
        "My daughter is called {name}.", "I can't stand {like}.", "I'm vegetarian, so no meat for me please.",
        "Please don't mention my divorce to anyone.", "We travelled to {city} {when}.",
    ],
    "remember": [
        "Remember that I live in {city}.", "Remember that I prefer aisle seats.",
        "Please remember that I'm allergic to {allergen}.", "Don't forget that my partner is {name}.",
        "Remember that my mother's name is {name}.",
    ],
    "mixed": [
        "I'm so tired today, but my email is {email}.", "Ugh, long week. I work at {company} and it shows.",
        "Feeling a bit down, but I really like {like}.",
    ],
    "excluded": [
        "I'm so tired today.", "Ugh, the bus was late again.", "I'm feeling really stressed out.",
        "Long day at work.", "This printer is driving me crazy.", "I'm sick of these meetings.",
        "Maybe he's only nice because he wants something.", "I'm a bit under the weather.",
        "What a nightmare this morning was!", "I'm fed up with the traffic.",
    ],
    "smalltalk": [
        "Hi! How are you?", "Thanks, that's helpful.", "What's the weather like in {city} this week?",
        "Can you recommend a good book?", "lol ok", "Haha that's funny.", "Could you summarise that article for me?",
        "What time is it in Tokyo right now?", "Let me think about it.", "Sounds good, thanks!",
        "How do I convert Celsius to Fahrenheit?", "My flight is at 7 tomorrow morning.",
        "My favourite colour is green, what's yours?", "Is it worth visiting {city} in winter?",
        "Can you help me write an email to my landlord?", "Good morning!", "That makes sense.",
        "What should I cook tonight?", "How long does it take to boil an egg?", "Okay, next question.",
    ],
    "assistant": [
        "Got it, I'll keep in mind that you live in {city}.", "I like that plan! Here is a short summary.",
        "Sure. Here are three books you might enjoy.", "You mentioned you work at {company}; how is it going?",
        "I'm a language model, but I'm happy to help.", "It's about 20 °C in {city} this week.",
        "Boil it for 7 to 9 minutes for a hard-boiled egg.", "Here's a draft you could send.",
        "That sounds frustrating. Would you like some tips?", "I'm sorry to hear that. Take it easy tonight.",
    ],
}

ZH = {
    "fact": [
        "我住在{zcity}。", "我現在住在{zcity}。", "我們{zwhen}搬到{zcity}了。", "我在{zcompany}上班。",
        "我目前在{zcompany}工作。", "我喜歡{zlike}。", "我很喜歡{zlike}。", "我對{zallergen}過敏。",
        "我們{zwhen}去了{zname}的婚禮。", "我是一個{zjob}", "我會說日語和英語", "我討厭{zlike}。",
        "我們{zwhen}見了{zname}。", "我{zwhen}買了新的筆電。",
    ],
    "remember": ["記住，我不吃牛肉。", "記住我對{zallergen}過敏。", "請記住我住在{zcity}。"],
    "mixed": ["今天好累，但我喜歡{zlike}。"],
    "excluded": ["今天好累。", "氣死我了，電腦又壞了。", "心情不好。", "他可能是想要我幫忙。", "好煩，又遲到了。", "有點難過。"],
    "smalltalk": ["你好！", "謝謝你。", "今天天氣怎麼樣？", "幫我翻譯這句話。", "好的，沒問題。", "哈哈哈",
                  "你覺得呢？", "明天會下雨嗎？", "推薦一部電影吧。", "這個怎麼說？"],
    "assistant": ["好的，我記住了。", "我喜歡這個主意！", "當然，以下是幾個建議。", "你說你住在{zcity}，那邊天氣如何？",
                  "聽起來很辛苦，早點休息吧。", "這句話的意思是「謝謝」。"],
}

# How a user message is chosen (the rest of the turns are the assistant's).
USER_MIX = [("smalltalk", 0.42), ("fact", 0.30), ("excluded", 0.14), ("remember", 0.07), ("mixed", 0.07)]
LANGUAGE_MIX = [("en", 0.6), ("zh-Hant", 0.25), ("zh-Hans", 0.15)]


def _pick(rng: random.Random, weighted: list[tuple[str, float]]) -> str:
    roll, total = rng.random(), 0.0
    for name, weight in weighted:
        total += weight
        if roll < total:
            return name
    return weighted[-1][0]


def _two(rng: random.Random, pool: list[str]) -> tuple[str, str]:
    a, b = rng.sample(pool, 2)
    return a, b


def _fill(template: str, rng: random.Random, n: int) -> str:
    like, like2 = _two(rng, LIKES)
    allergen, allergen2 = _two(rng, ALLERGENS)
    lang, lang2 = _two(rng, LANGUAGES)
    name = rng.choice(NAMES)
    return template.format(
        city=rng.choice(CITIES), company=rng.choice(COMPANIES), job=rng.choice(JOBS), name=name, like=like,
        like2=like2, allergen=allergen, allergen2=allergen2, lang=lang, lang2=lang2, thing=rng.choice(THINGS),
        when=rng.choice(WHEN), email=f"{name.split()[0].lower()}.{n}@example.org", zcity=rng.choice(ZH_CITIES),
        zcompany=rng.choice(ZH_COMPANIES), zjob=rng.choice(ZH_JOBS), zlike=rng.choice(ZH_LIKES),
        zallergen=rng.choice(ZH_ALLERGENS), zname=rng.choice(ZH_NAMES), zwhen=rng.choice(ZH_WHEN))


def _text(category: str, language: str, rng: random.Random, n: int) -> str:
    pool = EN if language == "en" or (language.startswith("zh") and rng.random() < 0.1) else ZH
    text = _fill(rng.choice(pool[category]), rng, n)
    return text.translate(_SIMPLIFIED) if language == "zh-Hans" and pool is ZH else text


def sessions(seed: int, messages: int, per_session: int = 20,
             start: dt.datetime = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)):
    """Yield (session id, language, [(message dict, category)]) until `messages` messages are out."""
    rng = random.Random(seed)
    at = start
    made = number = 0
    while made < messages:
        size = min(messages - made, max(2, per_session + rng.randint(-4, 4)))
        language = _pick(rng, LANGUAGE_MIX)
        session = f"s{number:05d}"
        at += dt.timedelta(hours=rng.randint(2, 30))
        turns, user_turn, has_fact = [], True, False
        for index in range(size):
            at += dt.timedelta(seconds=rng.randint(5, 240))
            if not has_fact and index == size - 1:
                category, role = "fact", "user"  # every session gives its job at least one candidate
            elif user_turn:
                category, role = _pick(rng, USER_MIX), "user"
                has_fact |= category in ("fact", "remember", "mixed")
            else:
                category, role = "assistant", "assistant"
            text = _text(category, language, rng, made + index)
            turns.append(({"id": f"{session}:{index}", "role": role, "text": text, "at": at}, category))
            user_turn = not user_turn or rng.random() < 0.15  # sometimes a second user message in a row
        yield session, language, turns
        made += size
        number += 1
