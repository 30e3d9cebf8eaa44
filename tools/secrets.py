"""Masking of secrets in what the tools return, for seats that may not reveal them.

Three kinds of secret are recognised, and the label that announces one is always kept:

- verification codes in a message that reads like one (a verification keyword in one of many
  languages), e.g. "G-482913 is your Google verification code" -> "G-[masked] is your Google
  verification code";
- labeled secrets: password, PIN, CVV, API key, token, card number, IBAN, e.g.
  "wifi password: Sommer2024!" -> "wifi password: [masked]";
- well-known token formats and private key blocks, labeled or not, e.g.
  "ghp_0123...xyz" -> "ghp_[masked]".

Look-alikes stay: phone numbers, dates, times, prices, order numbers, "the code review".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

MASK = "[masked]"

# ---------------------------------------------------------------------- verification codes

# Words that make a message a verification message (then every code-shaped number in it is
# masked). Plain "code" is not enough ("the code review", "zip code 10115").
VERIFICATION_WORDS = [
    r"verification", r"verify", r"verif(?:y|ication)\s*code", r"security\s+code", r"login\s+code",
    r"sign[- ]?in\s+code", r"one[- ]time", r"\bOTP\b", r"passcode", r"\b2FA\b", r"two[- ]factor",
    r"authenti(?:cation|cator)\s+code", r"confirmation\s+code", r"access\s+code",
    r"registration\s+code", r"\b(?:m|push|chip|sms)?TAN\b",
    r"\byour\s+(?:\w+\s+){0,3}code\b", r"\bcode\s+[A-Z]{0,3}-?\d{3}", r"\bcode\s+(?:is|was)\b", r"\bcode\s*:", r"\bis\s+your\b.{0,40}\bcode\b",
    # German
    r"bestätigungscode", r"sicherheitscode", r"verifizierungscode", r"anmeldecode", r"freigabecode",
    r"\b(?:dein|ihr|deinen|ihren)\s+(?:\w+\s+)?code\b", r"code\s+lautet",
    # Spanish / Portuguese / French / Italian / Dutch
    r"c[óo]digo", r"code\s+de\s+(?:v[ée]rification|confirmation|s[ée]curit[ée]|connexion)",
    r"\bvotre\s+code\b", r"\bton\s+code\b", r"codice", r"verificatiecode", r"beveiligingscode",
    r"\b(?:je|uw)\s+code\b",
    # Polish / Turkish / Russian / Ukrainian
    r"\bkod\b", r"doğrulama\s+kodu", r"\bkodu\b", r"код", r"пароль",
    # Chinese / Japanese / Korean / Arabic / Indonesian / Vietnamese / Hindi
    r"验证码", r"驗證碼", r"校验码", r"動態密碼", r"認証コード", r"確認コード", r"認証番号", r"인증번호",
    r"인증\s*코드", r"رمز", r"kode\s+(?:verifikasi|OTP)", r"mã\s+(?:xác\s+(?:thực|minh)|OTP)", r"कोड",
]
VERIFICATION_RE = re.compile("|".join(VERIFICATION_WORDS), re.IGNORECASE)

# Labels before "code" that make it not a secret ("zip code 10115", "promo code SAVE2024").
NOT_SECRET_CODE = re.compile(
    r"\b(?:zip|postal|post|area|dress|source|promo|promotional|discount|coupon|voucher|gift|qr|"
    r"bar|country|tracking|referral|invite|booking|reservation|error|status|sort|swift|bic)"
    r"[\s-]*code\b", re.IGNORECASE)

# A code: 4-8 digits, or two groups of 3-4 split by a dash or space ("123-456", "123 456"),
# optionally after a letter prefix ("G-482913"); never part of a longer number, a decimal,
# a time, a date, a phone number, a price or a percentage.
CODE_RE = re.compile(
    r"(?<![A-Za-z0-9_+#$€£¥./:,-])(?:(?P<prefix>[A-Z]{1,3}-))?"
    r"(?P<code>\d{3,4}[- ]\d{3,4}|\d{4,8})"
    r"(?![A-Za-z0-9_%€£¥$/]|[.,:]\d|[- ]\d|\s*(?:€|\$|£|EUR|USD|GBP|CHF|kr|zł|руб|₽|%|km|kg|mg|ml|m²|€))")

# ---------------------------------------------------------------------- labeled secrets

SEP = r"(?:\s*[:=：]\s*|\s+(?:is|was|ist|lautet|es|est|é|è|:)\s*:?\s*|\s+)"
STRICT_SEP = r"(?:\s*[:=：]\s*|\s+(?:is|was|ist|lautet|es|est|é|è)\s*:?\s*)"

LABELED: list[tuple[re.Pattern[str], str]] = [
    # passwords: any token after an explicit separator ("password reset" stays)
    (re.compile(r"(?P<label>\b(?:wi-?fi\s+|wlan\s+|new\s+|temporary\s+|temp\s+|admin\s+)?"
                r"(?:password|passwort|kennwort|passwd|pwd|contraseña|contrasena|mot\s+de\s+passe|"
                r"senha|пароль|密码|パスワード|비밀번호)" + STRICT_SEP + r")"
                r"(?!(?:wrong|correct|incorrect|expired|invalid|required|not|the|too|saved|changed|reset|same|weak|"
                r"strong|empty|missing|falsch|richtig|abgelaufen)\b)"
                r"(?P<secret>[^\s\"'“”,;]{3,}(?:[,;](?!\s)[^\s\"'“”]*)?)", re.IGNORECASE), "any"),
    # PIN / CVV / CVC: digits after the label, with or without a separator
    (re.compile(r"(?P<label>\b(?:PIN(?:\s*code)?|PIN-Code|PUK|CVV2?|CVC2?|CSC|Geheimzahl)" + SEP + r")"
                r"(?P<secret>\d{3,8})\b", re.IGNORECASE), "digits"),
    # card numbers when labeled: 13-19 digits in groups
    (re.compile(r"(?P<label>\b(?:card(?:\s+(?:number|no\.?|#))?|credit\s+card|debit\s+card|karte(?:nnummer)?|"
                r"kreditkarte|tarjeta|carte|cartão|visa|mastercard|amex|cc(?:\s+number)?)" + SEP + r")"
                r"(?P<secret>\d(?:[ -]?\d){12,18})\b", re.IGNORECASE), "digits"),
    # IBAN when labeled
    (re.compile(r"(?P<label>\bIBAN" + SEP + r")"
                r"(?P<secret>[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?)\b", re.IGNORECASE),
     "any"),
    # account numbers when labeled
    (re.compile(r"(?P<label>\b(?:account\s+(?:number|no\.?)|kontonummer|acct\s*#?)" + SEP + r")"
                r"(?P<secret>\d[\d -]{5,20}\d)\b", re.IGNORECASE), "digits"),
    # API keys, tokens, secrets: a long token after the label
    (re.compile(r"(?P<label>\b(?:api[ _-]?key|api[ _-]?token|access[ _-]?token|auth[ _-]?token|"
                r"refresh[ _-]?token|bearer|secret(?:[ _-]?key)?|client[ _-]?secret|private[ _-]?key|"
                r"token|app[ _-]?password|recovery\s+(?:code|key)|seed\s+phrase)" + STRICT_SEP + r")"
                r"(?P<secret>(?=[A-Za-z0-9_\-./+=]*\d)[A-Za-z0-9_\-./+=]{8,})", re.IGNORECASE), "any"),
    (re.compile(r"(?P<label>\bBearer\s+)(?P<secret>[A-Za-z0-9_\-./+=]{16,})"), "any"),
]

# Well-known token formats, labeled or not: the recognisable prefix is kept as the label.
TOKEN_FORMATS: list[re.Pattern[str]] = [
    re.compile(r"(?P<label>\b(?:AKIA|ASIA))(?P<secret>[0-9A-Z]{16})\b"),  # AWS access key id
    re.compile(r"(?P<label>\bgh[pousr]_)(?P<secret>[A-Za-z0-9]{30,})"),  # GitHub
    re.compile(r"(?P<label>\bgithub_pat_)(?P<secret>[A-Za-z0-9_]{30,})"),
    re.compile(r"(?P<label>\bglpat-)(?P<secret>[A-Za-z0-9_\-]{20,})"),  # GitLab
    re.compile(r"(?P<label>\bxox[abposr]-)(?P<secret>[A-Za-z0-9-]{10,})"),  # Slack
    re.compile(r"(?P<label>\b(?:sk|rk|pk)_(?:live|test)_)(?P<secret>[A-Za-z0-9]{16,})"),  # Stripe
    re.compile(r"(?P<label>\bsk-(?:ant-|proj-)?)(?P<secret>[A-Za-z0-9_\-]{20,})"),  # OpenAI, Anthropic
    re.compile(r"(?P<label>\bAIza)(?P<secret>[0-9A-Za-z_\-]{35})"),  # Google API key
    re.compile(r"(?P<label>\bya29\.)(?P<secret>[0-9A-Za-z_\-]{20,})"),  # Google OAuth token
    re.compile(r"(?P<label>\bnpm_)(?P<secret>[A-Za-z0-9]{36})"),  # npm
    re.compile(r"(?P<label>\bpypi-)(?P<secret>[A-Za-z0-9_\-]{50,})"),  # PyPI
    re.compile(r"(?P<label>\bSG\.)(?P<secret>[\w-]{20,}\.[\w-]{20,})"),  # SendGrid
    re.compile(r"(?P<label>\bhf_)(?P<secret>[A-Za-z0-9]{30,})"),  # Hugging Face
    re.compile(r"(?P<label>)(?P<secret>\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})"),  # JWT
    re.compile(r"(?P<label>\b\d{8,10}:)(?P<secret>AA[A-Za-z0-9_-]{33})"),  # Telegram bot token
    re.compile(r"(?P<label>\b[a-z][a-z0-9+.-]*://[^\s:/@]+:)(?P<secret>[^\s@/]+)(?=@)"),  # user:pass@ in URLs
]

PRIVATE_KEY = re.compile(
    r"(?P<begin>-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)(?P<secret>.*?)"
    r"(?P<end>-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.DOTALL)

_DIGIT_OR_KEYWORD = re.compile(r"\d|-----BEGIN|://", re.ASCII)


_JUST_A_SEPARATOR = re.compile(r"\s*(?:is|was|ist|es|est|:|=|#)?\s*:?\s*", re.IGNORECASE)


def _keep_label(m: re.Match[str]) -> str:
    return m.group("label") + MASK


def _mask_codes(text: str) -> str:
    ends = [m.end() for m in NOT_SECRET_CODE.finditer(text)]

    def repl(m: re.Match[str]) -> str:
        # a number right after "zip code" / "promo code" (is) is not a secret
        for end in ends:
            if end <= m.start() and _JUST_A_SEPARATOR.fullmatch(text[end:m.start()]):
                return m.group(0)
        return (m.group("prefix") or "") + MASK

    return CODE_RE.sub(repl, text)


def mask_secrets(text: str) -> str:
    """Mask every secret in `text`, keeping the labels.

    >>> mask_secrets("Your code is 482913")
    'Your code is [masked]'
    >>> mask_secrets("Meet at 14:30 for the code review")
    'Meet at 14:30 for the code review'
    """
    if not text or not _DIGIT_OR_KEYWORD.search(text) and not re.search(
            r"(?i)password|passwort|token|secret|key|bearer|пароль|密码|パスワード|비밀번호|contraseña|senha|passe",
            text):
        return text
    text = PRIVATE_KEY.sub(lambda m: m.group("begin") + MASK + m.group("end"), text)
    for pattern in TOKEN_FORMATS:
        text = pattern.sub(_keep_label, text)
    for pattern, _kind in LABELED:
        text = pattern.sub(_keep_label, text)
    if VERIFICATION_RE.search(text):
        text = _mask_codes(text)
    return text


# ---------------------------------------------------------------------- results

# Keys of result dicts whose string values are free text (everything else is ids, times,
# names of fields): masking touches only these.
TEXT_KEYS = frozenset({"content", "snippet", "text", "title", "subject"})


def mask_result(value: Any, key: str | None = None) -> Any:
    """A copy of a result dict with every free-text field masked."""
    if isinstance(value, dict):
        return {k: mask_result(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_result(v, key) for v in value]
    if isinstance(value, str) and key in TEXT_KEYS:
        return mask_secrets(value)
    return value


def masker(seat: Any) -> Callable[[str], str]:
    """The text masker for a seat: identity when it may reveal secrets."""
    if getattr(seat, "reveal_secrets", True):
        return lambda s: s
    return mask_secrets
