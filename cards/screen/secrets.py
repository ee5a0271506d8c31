"""Secrets are never stored (DESIGN §4 rule 8): passwords, PINs, door and alarm
codes, payment card and bank account numbers, one-time codes. A secret is its
kind's word *with a value* — "the wifi password is hunter2", "PIN 4821", 門禁密碼
1234#, 验证码 552910 — never the word alone: "I forgot my password", "the PIN
code of the post office", 密碼貼在冰箱門上 are memories worth keeping. A card
number needs no word: a 13–19 digit run with a card's prefix that passes the
Luhn check is one, as an IBAN that passes its mod-97 check is an account.

Each kind says what its value looks like: a code is digits (1234#, 12-34-56,
"eight six two zero"), a card number 12 to 19 of them, a key or token letters
and digits, a password any word holding a digit or a symbol, a quoted word, or
a plain word that ends the clause after "is" or a colon ("the guest wifi
password is sunflower") unless it describes the password ("… is
case-sensitive", "… is on the sticker"). The value may come first: "hunter2 is
my email password". Chinese words are written in Traditional characters and
matched in both scripts (scripts.both_scripts); a Chinese value is the ASCII
run after the word (密碼是 hunter2). How well this holds on phrasings the rules
never saw: bench/README.md "secret_screen.py".

never_store.py asks `secret_in` for each clause (ingest keeps "…, and I moved
to Oslo" after "the wifi password is hunter2") and for a stored text as a
whole; the screen (__init__.py) asks `secret_label` of a card's label."""

from __future__ import annotations

import re
import unicodedata

from .scripts import both_scripts

SECRET = "secret"

# --- the kinds, by what their value looks like ---------------------------------------------------
# A password's word, not when it names a thing about passwords ("password manager", "password hint").
_ABOUT_PASSWORDS = (r"(?!\s*(?:managers?|hints?|reset(?!\s+to)|resets|policy|policies|rules?|strength|fields?"
                    r"|protected|length|generators?|vaults?|apps?|keeper|requirements?|changes?(?!\s+to)|expiry"
                    r"|prompts?|screens?)\b)")
_PASSWORD = (r"(?:pass(?:word|code)s?|passwd|pwd|pass\s+code|wi-?fi\s+key|wpa2?\s+key|network\s+key"
             r"|api\s+key|secret\s+key|private\s+key|(?:access|auth|bearer|api)\s+token|pw(?=\s*[:=])|pass(?=\s*[:=]))"
             + _ABOUT_PASSWORDS)
_PHRASE = r"(?:pass\s*phrase|(?:seed|recovery|backup|secret)\s+(?:phrase|words)|mnemonic)s?"
# A token, key or secret of letters and digits: "the deploy token for CI is ghp_8fK2mQ9xLw".
_TOKEN = r"tokens?|keys?|secrets?"
_PIN = r"pins?(?:\s*(?:number|code|[碼码]))?|pin-code"
_RECOVERY = r"(?:backup|recovery)\s+(?:codes?|keys?)"
_ONE_TIME = (r"otp|totp|one[\s-]time\s+(?:code|password|passcode|pin)s?|cvv2?|cvc2?|csc"
             r"|(?:verification|security|authentication|auth|login|log-in|sign-in|signin|sms|text|2fa|two[\s-]factor"
             r"|mfa|backup|recovery|unlock|access|authenticator)\s+codes?|(?:verification|security)\s+numbers?"
             r"|authenticator(?:\s+app)?(?=\s+(?:showed|shows|said|says|gave|gives|displayed|displays)\s)"
             r"|(?:security|hardware|bank|rsa)\s+tokens?")
_LOCKED = (r"door|front\s+door|back\s+door|gate|entry|entrance|keypad|key\s*pad|lock\s*box|lock|padlock|locker"
           r"|garage|alarm|safe|intercom|buzzer|house|apartment|flat|building\s+entry|bike\s+lock|key\s*box|key\s+safe")
# "the alarm panel code", "the 門禁 code": what is locked, a word of its own maybe, then its code.
_DOOR = (rf"(?:{_LOCKED}|" + both_scripts("門禁|大門|門鎖|警報器?|保全|保險箱")
         + r")(?:['’]s)?(?:\s+\w+)?\s*(?:code|pin|combination|combo)s?|combination|combo")
# A thing locked by a number alone: "the garage keypad is 1-9-8-4", "the padlock is set to 4419". Not a
# door, gate or locker: "her door is 204" is a flat's number.
_LOCK = r"keypad|key\s*pad|padlock|lock\s*box|lock|safe|key\s*box"
# Any other code with four digits at least ("the code for the storage unit is 5521", "text message code:
# 402913"), but the kinds that are no secret: an area, zip or error code, a course's or a product's, the
# building code (its rules; "the building's code is 4455" still is one).
_NOT_SECRET_CODES = ("area zip postal post country calling phone dial dialling dialing dress promo discount coupon "
                     "voucher tax airport course error status colour color booking product item source qr bar sort "
                     "reference tracking bank branch swift bic icd hs style exam class building flight").split()
# "code" first: the look-behinds are tried only where it stands.
_CODE = r"\b(?=codes?\b)" + "".join(rf"(?<!{word}\s)" for word in _NOT_SECRET_CODES) + r"(?<!zip-)codes?"
_CARD = (r"(?:credit|debit|bank|payment|visa|mastercard|amex)?\s*card\s*(?:number|no\.?|#)|credit\s+card|debit\s+card"
         r"|visa|mastercard|amex|american\s+express|bank\s+card")
_ACCOUNT = r"(?:bank|checking|savings|current|joint)\s+account(?:\s+(?:number|no\.?|#))?|iban"
_LOGIN = r"log-?in|sign-?in|credentials?|user\s*name|username"

_ZH_PASSWORD = r"(?<!摩斯)(?<!達文西)密碼(?![學鎖器])|口令|通行碼|金鑰|密鑰|私鑰|令牌|權杖"
_ZH_CODE = (r"驗證碼|認證碼|校驗碼|動態碼|授權碼|安全碼|門禁碼|解鎖碼|簡訊碼|取款碼|取件碼|取貨碼|提貨碼|存取碼|進入碼"
            r"|開門碼|開鎖碼|通關碼"
            r"|(?:後面?|背面的?|末)三碼|檢查碼|(?:保險箱|保險櫃|密碼鎖|鎖)的?(?:號碼|數字)"
            r"|鎖頭?(?=\s*(?:是|為|：|:))|密碼鎖(?=\s*(?:是|為|：|:|設成|設為|改成|改為))")
_ZH_CARD = r"(?:信用|金融|銀行|簽帳|提款|借記)?卡(?:的)?卡?號(?:碼)?"
_ZH_LOGIN = r"帳密|[帳賬]號|登入|登錄|登录"
_ZH_ACCOUNT = r"(?:銀行|郵局|郵政|匯款|轉[帳賬])[帳賬][號戶](?:號碼)?|[帳賬]戶號碼|[帳賬]戶(?=\s*[：:])"  # 账 is 賬 simplified

# --- what a value looks like (never the tail of a word: "wifi1234" is no "wifi" and "1234") --------
_START = r"(?<![A-Za-z0-9])"
# Digits measuring something are no code: "the safe is 120 cm wide", "the alarm code is 4 digits".
_UNIT = (r"(?!\s*(?:cm|mm|km|m|kg|g|lbs?|kilos?|feet|ft|foot|inch(?:es)?|years?|yrs?|months?|weeks?|days?|hours?"
         r"|hrs?|minutes?|mins?|seconds?|secs?|euros?|dollars?|pounds?|yen|%|degrees?|people|floors?|steps?"
         r"|met(?:er|re)s?|miles?|times|digits?|characters?|chars?|[ap]\.?m\b|年|月|日|號|个|個|人|元|塊|公分|公斤"
         r"|分鐘|小時|天|歲|樓|層|位)\b)")
_END = r"[#*]?(?![A-Za-z0-9])" + _UNIT
_DIGITS3 = _START + r"[#*]?(?:[A-Za-z]{1,3}-)?\d(?:[\d#*]|[ .-](?=\d)){2,}" + _END  # 1234#, *7788, 12-34-56
# A year is seldom a code of its own: "the code 2024 project", "the exhibition opens with 2024 works".
_NOT_YEAR = r"(?!(?:19|20)\d\d(?![\d#*-]))"
# Digits spelled out: "the garage door code is eight six two zero", 密碼是一二三四.
_SPELLED = (r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
            r"(?:[\s-]+(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)){2,}\b|[零〇一二三四五六七八九]{4,}")
_DIGITS4 = _START + r"[#*]?\d(?:[\d#*]|[ -](?=\d)){3,}" + _END
_CARD_DIGITS = _START + r"\d(?:[ -]?\d){11,18}(?!\d)"
_ACCOUNT_DIGITS = _START + r"\d(?:[ -]?\d){5,33}(?!\d)"
# A word holding a digit or a symbol, three characters at least: hunter2, Tr0ub4dor&3, Qwerty!23. A "!"
# or "?" counts only inside it ("the password for the guest wifi?" asks for one), and a `code_name` in
# backticks not at all ("a wrong password is `validation_error`" documents an API).
_STRONG = _START + (r"""(?=[^\s"'“”‘’「」『』`]*(?:[\d@#$%^&*+=~]|[!?](?=[^\s.,;!?])))"""
                    r"""[^\s"'“”‘’「」『』`,;，。；]{3,}""")
# A key's value mixes letters and digits: "key: 7Hq2-pLx9", not "key: 3rd drawer".
_MIXED = _START + r"(?=[\w/+=.-]*[A-Za-z])(?=[\w/+=.-]*\d)[\w/+=.-]{6,}"
# A short code of letters and digits after a colon: "Steam Guard code: R7K2P".
_SHORT = _START + r"(?=[A-Za-z0-9]*[A-Za-z])(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{5,10}(?![\w-])"
_QUOTED = _START + r"""["“'‘「『][^"”'’」』\n]{1,60}["”'’」』]"""
_PLAIN = _START + r"[A-Za-z]{3,}(?:-[A-Za-z]+)*"
_WORDS = _START + r"[A-Za-z]+(?:\s+[A-Za-z]+){2,11}"
# What separates the word and its value: "is", "was", a colon, "changed to" …
_IS = (r"\s*(?:[:=：是]|['’]s\b|,?\s*(?:it['’]s|it\s+is|which\s+is|which\s+was)\b"
       r"|\s(?:is|was|are|were|is\s+now|is\s+still|now|became"
       r"|(?:(?:is|was|has\s+been|got)\s+)?(?:changed|set|reset|updated)\s+to|(?:changed|switched)\s+from)\b"
       r"|改成|改為|改为|設成|设成|換成|换成)\s*")
_ANY = (r"(?:" + _IS + r"|\s*[-–—,]?\s*|\s+(?:to|as|is\s+set\s+to|showed|shows|said|says|gave|gives|displayed"
        r"|displays)\s+)")  # "dad keeps the safe code, 36-24-36, in his head"
# What the word is for, between it and the value: "the password for the guest network is …".
_FOR = (r"(?:\s+(?:for|to|of|on|at)\s+(?:the\s+|my\s+|our\s+|his\s+|her\s+|their\s+|your\s+)?"
        r"(?:[\w'’-]+\s+){0,2}?[\w'’-]+)?")
# Or any words of the same clause before "is" or a colon: "the SMS code they texted me is …", "the
# password is the dog's name plus 1987: Rex1987".
_GAP = r"[^.,:;!?\n。，；：！？]{0,40}?"
_CLAUSE_END = r"(?=\s*(?:$|[.,;!?)。，；！？]|\s(?:and|but|so|or)\b))"


def _kind(kind: str, value: str) -> str:
    """A kind's word and its value: right after it, after what it is for, or after "is" later in the clause."""
    return rf"\b(?:{kind})\b(?:{_FOR}{_ANY}|{_GAP}{_IS})(?:{value})"


# Each English rule with the words one of its matches holds, looked for first (a substring search
# is far cheaper than trying a pattern at every place of a text that has none of them).
_PASSWORD_WORDS = ("pass", "pw", "key", "token")
_CODE_WORDS = ("pin", "otp", "one-time", "one time", "cvv", "cvc", "csc", "code", "combination", "combo",
               "verification", "security", "authenticator")
# The patterns are matched against the lowered text, without IGNORECASE: the engine then skips an
# alternative on its first character (as never_store.py does).
_ENGLISH = [(words, re.compile(pattern), group) for words, pattern, group in [
    (_PASSWORD_WORDS, _kind(_PASSWORD, rf"{_STRONG}|{_QUOTED}"), None),
    (_PASSWORD_WORDS, rf"\b(?:{_PASSWORD})\b{_FOR}{_IS}(?P<plain>{_PLAIN}){_CLAUSE_END}", "plain"),
    # "Dana set the tablet password to butterfly".
    (_PASSWORD_WORDS, rf"\b(?:set|changed|reset|made|updated)\b{_GAP}\b(?:{_PASSWORD})\s+to\s+(?P<plain>{_PLAIN})"
                      rf"{_CLAUSE_END}", "plain"),
    (("phrase", "mnemonic", "words"), _kind(_PHRASE, rf"{_STRONG}|{_QUOTED}"), None),
    (("phrase", "mnemonic", "words"), rf"\b(?:{_PHRASE})\b{_GAP}{_IS}(?P<phrase>{_WORDS}){_CLAUSE_END}", "phrase"),
    (("key", "token", "secret"), rf"\b(?:{_TOKEN})\b(?:{_FOR}|{_GAP}){_IS}{_MIXED}", None),
    (("pin",), _kind(_PIN, _DIGITS4), None),
    (_CODE_WORDS, _kind(rf"{_ONE_TIME}|{_DOOR}", rf"{_DIGITS3}|{_SPELLED}|{_SHORT}"), None),
    # "Wi-Fi: Silva-Cafe, pass cafe4you": "pass" alone is a password only beside a network.
    (("pass",), rf"\b(?:wi-?fi|network|ssid)\b[^.;\n]{{0,40}}?\bpass\s+{_STRONG}", None),
    (("code",), _kind(_CODE, _NOT_YEAR + _DIGITS4), None),
    (("code",), rf"\b{_CODE}\s*[:=]\s*{_SHORT}", None),
    (("backup", "recovery"), _kind(_RECOVERY, rf"{_MIXED}|{_DIGITS4}"), None),
    (("key", "lock", "safe"), rf"\b(?:{_LOCK})\b(?:{_FOR}|{_GAP}){_IS}{_NOT_YEAR}{_DIGITS3}", None),
    # "the holiday home alarm is set with 1-2-0-8".
    (("alarm", "lock", "safe", "key", "door", "gate"),
     rf"\b(?:alarm|lock|safe|keypad|door|gate)\b{_GAP}\b(?:set|armed|disarmed)\s+with\s+{_NOT_YEAR}{_DIGITS3}", None),
    # "the gate opens with 3390", "grandpa's phone unlocks with 111222".
    (("opens", "unlocks"),
     rf"\b(?:opens|unlocks)\s+with\s+(?:the\s+)?(?:code\s+|pin\s+|passcode\s+)?{_NOT_YEAR}{_DIGITS3}", None),
    # "use 8080# to get into the building", "type 0426 on the panel to stop it".
    (("use", "enter", "type", "punch", "key", "dial", "press"),
     rf"\b(?:use|enter|type|punch(?:\s+in)?|key\s+in|dial|press)\s+{_DIGITS3}\s+(?:(?:on|at|into)\s+the\s+"
     r"(?:panel|keypad|pad|lock|alarm|door|gate)\b|(?:to|for)\s+(?:get\s+in|get\s+into|open|unlock|enter|disarm|arm"
     r"|access|come\s+in|let\s+yourself\s+in|stop|silence|turn\s+off)\b)", None),
    # A code's word, a few words, a comma or a colon, and four to eight digits ending the clause: "her
    # iPhone passcode is her birth year backwards, 5891". Not a phone number ("…, 0912 345 678").
    # Found from the value (a comma or colon is rarer than a code's word), the word looked for before it.
    (_PASSWORD_WORDS + _CODE_WORDS, rf"[,:]\s*{_NOT_YEAR}(?P<digits>{_DIGITS4}){_CLAUSE_END}", "digits"),
    (("card", "visa", "mastercard", "amex", "american express"), _kind(_CARD, _CARD_DIGITS), None),
    (("account", "iban"), _kind(_ACCOUNT, _ACCOUNT_DIGITS), None),
    # A sign-in's name and password: "login for the school portal: kai.silva / Spring2025!".
    (("log", "sign", "credential", "user"),
     rf"\b(?:{_LOGIN})\b(?:[^.\n]|\.(?=\S)){{0,40}}?[^\s/]*[A-Za-z][^\s/]*\s*/\s*{_STRONG}", None),
    # The value first: "hunter2 is my email password", "4821 is the PIN for the garage".
    (_PASSWORD_WORDS + _CODE_WORDS,
     rf"(?:^|(?<=\s)){_STRONG}\s+(?:is|was|as)\s+(?:my|the|our|his|her|their|your)\s+(?:[\w'’-]+\s+){{0,2}}?"
     rf"(?:{_PASSWORD}|{_PIN}|{_ONE_TIME}|{_DOOR})\b", None),
]]

_ZH_IS = r"\s*(?:是|為|：|:|=|(?:改成|改為|設成|設為|換成|變成)了?|就是)?\s*"
_ASCII_STRONG = _START + r"(?=[A-Za-z0-9#*@!$%^&_+=.\-]*[\d#*@!$%^&_+=])[A-Za-z0-9#*@!$%^&_+=.\-]{3,}"
_ASCII_PLAIN = _START + r"[A-Za-z]{3,}(?=\s*(?:$|[.,;!?。，；！？了]))"
_CHINESE = re.compile(both_scripts("|".join([
    rf"(?:{_ZH_PASSWORD}){_ZH_IS}(?:{_ASCII_STRONG}|{_ASCII_PLAIN}|{_QUOTED}|{_SPELLED})",
    # The word, then what it is now: 警報器密碼改了，現在是 6402.
    rf"(?:{_ZH_PASSWORD}|{_ZH_CODE})[^。；\n]{{0,8}}?(?:現在|目前|新的)(?:是|為)\s*(?:{_ASCII_STRONG}|{_DIGITS3})",
    # The word, a few words, a colon: 提款卡密碼寫在紙上：7342.
    rf"(?:{_ZH_PASSWORD}|{_ZH_CODE})[^，。；！？\n]{{0,12}}?[：:]\s*(?:{_ASCII_STRONG}|{_DIGITS3})",
    # A sign-in's name and password: 路由器帳密 admin / Fritz!Box2024.
    rf"(?:{_ZH_LOGIN})[^。\n]{{0,20}}?[^\s/]*[A-Za-z][^\s/]*\s*/\s*{_ASCII_STRONG}",
    # Keys pressed at a door: 工作室大門按 5581 再按確認.
    rf"(?:門|鎖|警報|保全)[^，。；\n]{{0,8}}?(?:按|輸入|鍵入|用)\s*{_NOT_YEAR}{_DIGITS3}",
    rf"(?:{_ZH_CODE}){_ZH_IS}{_NOT_YEAR}(?:{_DIGITS3}|{_SPELLED}|{_SHORT})",
    # What the card or note says: 飯店 Wi-Fi 密碼卡上寫 8813-2291 (but 密碼寫在冰箱上 says where).
    rf"(?:{_ZH_PASSWORD}|{_ZH_CODE})[^，。；！？\n]{{0,8}}?(?:寫[著着]?|印[著着]?|貼[著着]?)\s*(?:{_ASCII_STRONG}|{_DIGITS3})",
    rf"(?:{_ZH_CARD}){_ZH_IS}{_CARD_DIGITS}",
    rf"(?:{_ZH_ACCOUNT}){_ZH_IS}{_ACCOUNT_DIGITS}",
    rf"{_ASCII_STRONG}\s*(?:是|為|就是)\s*\w{{0,6}}?(?:{_ZH_PASSWORD}|{_ZH_CODE})",
])))

_TRIGGERS = frozenset(word for words, _, _ in _ENGLISH for word in words)
# Every Chinese rule's value is ASCII (hunter2, 1234#, 7H2K9Q) or digits spelled out: a text with neither is let
# through without trying them.
_CHINESE_VALUE = re.compile(r"[A-Za-z0-9]|[零〇一二三四五六七八九]{4}")

# A plain word after "the password is" that says something of the password, not what it is.
_DESCRIBES = frozenset("""
the a an on in at under behind inside outside written taped stuck printed same different new old long short weak
strong secure insecure wrong right correct incorrect required needed optional mandatory secret private public hidden
unknown simple easy hard complicated complex blank empty mine yours his hers ours theirs here there below above
attached fine ok okay good bad case sensitive lost forgotten missing gone invalid valid expired temporary default
saved stored changed reset locked encrypted shared unchanged updated it this that what which none nothing something
obvious too not also still now just being set due broken off working numeric alphanumeric lowercase uppercase
forbidden useless safe unsafe personal different same somewhere elsewhere emailed texted weekly daily monthly
yearly rarely only likely
""".split())
# Words a sentence about a passphrase holds and a passphrase seldom does.
_SENTENCE_WORDS = frozenset("""
the a an in on at under of to for with from by my our your his her their its it this that is are was be not no
same as than too very written kept stored saved somewhere
""".split())
_DESCRIBING_ENDS = ("ed", "ing", "ally", "ily", "able", "ible", "ive", "ful", "less", "ous")  # not "butterfly"

_CARD_RUN = re.compile(r"(?<![\d.])\d(?:[ -]?\d){12,18}(?!\d)")
_CARD_PREFIX = re.compile(r"4|5[1-5]|2[2-7]|3[47]|3[0689]|35|6(?:011|5|4[4-9]|2)")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b")
_CODE_BEFORE = re.compile(rf"\b(?:{_PASSWORD}|{_PIN}|{_ONE_TIME}|{_DOOR})\b[^.;:\n]{{0,40}}$")
# A label naming a card's number, not the card ("credit_card": which one they use; "visa": a permit).
_LABEL = re.compile(rf"\b(?:{_PASSWORD}|{_PHRASE}|{_PIN}|{_ONE_TIME}|{_DOOR}|card\s*(?:number|no)|account\s+number"
                    r"|iban|secret)\b", re.IGNORECASE)


def secret_in(text: str) -> bool:
    """Whether `text` holds a secret: a kind's word with a value, a card number or an IBAN."""
    if not text:
        return False
    text = unicodedata.normalize("NFKC", text)  # full-width ＃１２３４ is #1234
    folded = text.lower()
    present = {word for word in _TRIGGERS if word in folded}
    for words, pattern, group in _ENGLISH if present else ():
        if present.isdisjoint(words):
            continue
        if group is None:
            if pattern.search(folded):
                return True
            continue
        for found in pattern.finditer(folded):  # a plain word, a phrase or digits: a value, or something else?
            if _a_value(group, found, folded):
                return True
    if not text.isascii() and _CHINESE_VALUE.search(text) and _CHINESE.search(folded):
        return True
    return _card_number_in(text) or _iban_in(text)


def secret_label(key: str) -> bool:
    """Whether a label names a secret (`wifi_password`, `door_code`): its every value is one."""
    return bool(_LABEL.search(key.replace("_", " ").replace("-", " ")))


def _a_value(group: str, found: re.Match, text: str) -> bool:
    value = found[group]
    if group == "plain":
        return not _describes(value)
    if group == "phrase":
        return _a_phrase(value)
    # Digits: a code's length, not a phone number's, after a code's word in the same clause.
    before = _CODE_BEFORE.search(text, max(0, found.start() - 60), found.start())
    return len(re.sub(r"\D", "", value)) <= 8 and before is not None


def _a_phrase(words: str) -> bool:
    """A passphrase's words ("correct horse battery staple"), not a sentence about one ("stored in the vault")."""
    return not any(word in _SENTENCE_WORDS or word.endswith("ed") for word in words.lower().split())


def _describes(word: str) -> bool:
    parts = word.lower().split("-")
    return any(part in _DESCRIBES or part.endswith(_DESCRIBING_ENDS) for part in parts)


def _card_number_in(text: str) -> bool:
    for run in _CARD_RUN.finditer(text):
        digits = re.sub(r"\D", "", run[0])
        if 13 <= len(digits) <= 19 and _CARD_PREFIX.match(digits) and _luhn(digits):
            return True
    return False


def _luhn(digits: str) -> bool:
    total = 0
    for place, digit in enumerate(reversed(digits)):
        value = int(digit) * (2 if place % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _iban_in(text: str) -> bool:
    for found in _IBAN.finditer(text):
        iban = found[0].replace(" ", "")
        if 15 <= len(iban) <= 34:
            moved = iban[4:] + iban[:4]
            if int("".join(str(int(char, 36)) for char in moved)) % 97 == 1:
                return True
    return False
