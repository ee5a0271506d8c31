"""Secrets are never stored (DESIGN §4 rule 8): passwords, PINs, door and alarm
codes, payment card and bank account numbers, one-time codes. A secret is its
kind's word *with a value* — "the wifi password is hunter2", "PIN 4821", 門禁密碼
1234#, 验证码 552910 — never the word alone: "I forgot my password", "the PIN
code of the post office", 密碼貼在冰箱門上 are memories worth keeping. A card
number needs no word: a 13–19 digit run with a card's prefix that passes the
Luhn check is one, as an IBAN that passes its mod-97 check is an account.

Each kind says what its value looks like: a code is digits (1234#, 12-34-56), a
card number 12 to 19 of them, a password any word holding a digit or a symbol,
a quoted word, or a plain word that ends the clause after "is" or a colon ("the
guest wifi password is sunflower") unless it describes the password ("… is
case-sensitive", "… is on the sticker"). The value may come first: "hunter2 is
my email password". Chinese words are written in Traditional characters and
matched in both scripts (scripts.both_scripts); a Chinese value is the ASCII
run after the word (密碼是 hunter2)."""

from __future__ import annotations

import re

from .scripts import both_scripts

SECRET = "secret"

# --- the kinds, by what their value looks like ---------------------------------------------------
_PASSWORD = (r"pass(?:word|code|phrase)s?|passwd|pwd|pass\s+code|wi-?fi\s+key|wpa2?\s+key|network\s+key"
             r"|api\s+key|secret\s+key|private\s+key|(?:access|auth|bearer|api)\s+token")
_PIN = r"pins?(?:\s*(?:number|code|碼))?|pin-code"
_ONE_TIME = (r"otp|totp|one[\s-]time\s+(?:code|password|passcode|pin)s?|cvv2?|cvc2?|csc"
             r"|(?:verification|security|authentication|auth|login|log-in|sign-in|signin|sms|text|2fa|two[\s-]factor"
             r"|mfa|backup|recovery|unlock|access)\s+codes?")
_LOCKED = (r"door|front\s+door|back\s+door|gate|entry|entrance|keypad|key\s*pad|lock\s*box|lock|padlock|locker"
           r"|garage|alarm|safe|intercom|buzzer|house|apartment|flat|building\s+entry|bike\s+lock")
# "the 門禁 code is …": a Chinese word for what is locked takes the English word after it too.
_DOOR = (rf"(?:{_LOCKED}|" + both_scripts("門禁|大門|門鎖|警報器?|保全|保險箱")
         + r")(?:['’]s)?\s*(?:code|pin|combination|combo)s?|combination|combo")
_CODE_FOR = rf"code\s+(?:for|to|of)\s+(?:the\s+|my\s+|our\s+|your\s+)?(?:\w+\s+)?(?:{_LOCKED})\b"
_CARD = (r"(?:credit|debit|bank|payment|visa|mastercard|amex)?\s*card\s*(?:number|no\.?|#)|credit\s+card|debit\s+card"
         r"|visa|mastercard|amex|american\s+express|bank\s+card")
_ACCOUNT = r"(?:bank|checking|savings|current)\s+account(?:\s+(?:number|no\.?|#))?|iban"

_ZH_PASSWORD = r"(?<!摩斯)(?<!達文西)密碼(?![學鎖器])|口令|通行碼"
_ZH_CODE = r"驗證碼|認證碼|校驗碼|動態碼|授權碼|安全碼|門禁碼|解鎖碼|簡訊碼|取款碼"
_ZH_CARD = r"(?:信用|金融|銀行|簽帳|提款|借記)?卡(?:的)?卡?號(?:碼)?"
_ZH_ACCOUNT = r"(?:銀行|匯款|轉帳)帳[號戶](?:號碼)?|帳戶號碼"

# --- what a value looks like (never the tail of a word: "wifi1234" is no "wifi" and "1234") --------
_START = r"(?<![A-Za-z0-9])"
_DIGITS3 = _START + r"[#*]?(?:[A-Za-z]{1,3}-)?\d(?:[\d#*]|[ .-](?=\d)){2,}[#*]?(?![A-Za-z0-9])"  # 1234#, *7788, 12-34-56, G-552910
_DIGITS4 = _START + r"[#*]?\d(?:[\d#*]|[ -](?=\d)){3,}[#*]?(?![A-Za-z0-9])"
_CARD_DIGITS = _START + r"\d(?:[ -]?\d){11,18}(?!\d)"
_ACCOUNT_DIGITS = _START + r"\d(?:[ -]?\d){5,33}(?!\d)"
# A word holding a digit or a symbol, three characters at least: hunter2, Tr0ub4dor&3, Qwerty!23. A "!"
# or "?" counts only inside it ("the password for the guest wifi?" asks for one), and a `code_name` in
# backticks not at all ("a wrong password is `validation_error`" documents an API).
_STRONG = _START + (r"""(?=[^\s"'“”‘’「」『』`]*(?:[\d@#$%^&*+=~]|[!?](?=[^\s.,;!?])))"""
                    r"""[^\s"'“”‘’「」『』`,;，。；]{3,}""")
_QUOTED = _START + r"""["“'‘「『][^"”'’」』\n]{1,60}["”'’」』]"""
_PLAIN = _START + r"[A-Za-z]{3,}(?:-[A-Za-z]+)*"
# What separates the word and its value: "is", "was", a colon, "changed to" …
_IS = r"\s*(?:[:=：是]|\s(?:is|was|are|were|is\s+now|is\s+still|now|became|changed\s+to|set\s+to|reset\s+to)\b)\s*"
_ANY = r"(?:" + _IS + r"|\s*[-–—]?\s*|\s+(?:to|as|is\s+set\s+to)\s+)"
# What the word is for, between it and the value: "the password for the guest network is …".
_FOR = r"(?:\s+(?:for|to|of|on|at)\s+(?:the\s+|my\s+|our\s+|his\s+|her\s+|their\s+|your\s+)?(?:[\w'’-]+\s+){0,2}?[\w'’-]+)?"
_CLAUSE_END = r"(?=\s*(?:$|[.,;!?)。，；！？]|\s(?:and|but|so|or)\b))"

_ENGLISH = re.compile("|".join([
    rf"\b(?:{_PASSWORD})\b{_FOR}(?:{_ANY}{_STRONG}|{_ANY}{_QUOTED}|{_IS}(?P<plain>{_PLAIN}){_CLAUSE_END})",
    rf"\b(?:{_PIN})\b{_FOR}{_ANY}{_DIGITS4}",
    rf"\b(?:{_ONE_TIME}|{_DOOR}|{_CODE_FOR})\b{_FOR}{_ANY}{_DIGITS3}",
    rf"\b(?:{_CARD})\b{_FOR}{_ANY}{_CARD_DIGITS}",
    rf"\b(?:{_ACCOUNT})\b{_FOR}{_ANY}{_ACCOUNT_DIGITS}",
    # The value first: "hunter2 is my email password", "4821 is the PIN for the garage".
    rf"(?:^|(?<=\s)){_STRONG}\s+(?:is|was|as)\s+(?:my|the|our|his|her|their|your)\s+(?:[\w'’-]+\s+){{0,2}}?"
    rf"(?:{_PASSWORD}|{_PIN}|{_ONE_TIME}|{_DOOR})\b",
]), re.IGNORECASE)

_ZH_IS = r"\s*(?:是|為|：|:|=|改成|改為|設成|設為|換成|變成|就是)?\s*"
_ASCII_STRONG = _START + r"(?=[A-Za-z0-9#*@!$%^&_+=.\-]*[\d#*@!$%^&_+=])[A-Za-z0-9#*@!$%^&_+=.\-]{3,}"
_ASCII_PLAIN = _START + r"[A-Za-z]{3,}(?=\s*(?:$|[.,;!?。，；！？了]))"
_CHINESE = re.compile(both_scripts("|".join([
    rf"(?:{_ZH_PASSWORD}){_ZH_IS}(?:{_ASCII_STRONG}|{_ASCII_PLAIN}|{_QUOTED})",
    rf"(?:{_ZH_CODE}){_ZH_IS}{_DIGITS3}",
    rf"(?:{_ZH_CARD}){_ZH_IS}{_CARD_DIGITS}",
    rf"(?:{_ZH_ACCOUNT}){_ZH_IS}{_ACCOUNT_DIGITS}",
    rf"{_ASCII_STRONG}\s*(?:是|為|就是)\s*\w{{0,6}}?(?:{_ZH_PASSWORD}|{_ZH_CODE})",
])), re.IGNORECASE)

# A plain word after "the password is" that says something of the password, not what it is.
_DESCRIBES = frozenset("""
the a an on in at under behind inside outside written taped stuck printed same different new old long short weak
strong secure insecure wrong right correct incorrect required needed optional mandatory secret private public hidden
unknown simple easy hard complicated complex blank empty mine yours his hers ours theirs here there below above
attached fine ok okay good bad case sensitive lost forgotten missing gone invalid valid expired temporary default
saved stored changed reset locked encrypted shared unchanged updated it this that what which none nothing something
obvious too not also still now just being set due broken off working numeric alphanumeric lowercase uppercase
forbidden useless safe unsafe personal different same somewhere elsewhere emailed texted
""".split())
_DESCRIBING_ENDS = ("ed", "ing", "ly", "able", "ible", "ive", "ful", "less", "ous")

_CARD_RUN = re.compile(r"(?<![\d.])\d(?:[ -]?\d){12,18}(?!\d)")
_CARD_PREFIX = re.compile(r"4|5[1-5]|2[2-7]|3[47]|3[0689]|35|6(?:011|5|4[4-9]|2)")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b")
# A label naming a card's number, not the card ("credit_card": which one they use; "visa": a permit).
_LABEL = re.compile(rf"\b(?:{_PASSWORD}|{_PIN}|{_ONE_TIME}|{_DOOR}|card\s*(?:number|no)|account\s+number|iban|secret)\b",
                    re.IGNORECASE)


def secret_in(text: str) -> bool:
    """Whether `text` holds a secret: a kind's word with a value, a card number or an IBAN."""
    if not text:
        return False
    for found in _ENGLISH.finditer(text):
        if not found["plain"] or not _describes(found["plain"]):
            return True
    if not text.isascii() and _CHINESE.search(text):
        return True
    return _card_number_in(text) or _iban_in(text)


def secret_label(key: str) -> bool:
    """Whether a label names a secret (`wifi_password`, `door_code`): its every value is one."""
    return bool(_LABEL.search(key.replace("_", " ").replace("-", " ")))


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
