"""Masking of secrets in what the tools return, for seats that may not reveal them.

What is recognised, always keeping the label that announces a secret:

- verification codes: every code-shaped number in a message with a verification word in one
  of many languages ("G-482913 is your Google verification code" -> "G-[masked] is your Google
  verification code"), and a number tied to a plain "code" ("Your Uber code: 4821"); numbers
  of pull requests, orders, rooms and addresses stay ("verify the address: Hauptstrasse 1234");
- labelled secrets in many languages: passwords (quoted ones with spaces too), `pw:`, PIN,
  CVV, card numbers, IBANs, account numbers, API keys and tokens ("wifi password: Sommer2024!"
  -> "wifi password: [masked]"); labels inside identifiers (`aws_secret_access_key = ...`,
  `AccountKey=...`, `"password": "..."`);
- wallet seed phrases: 12 or more BIP-39 words after a label ("seed phrase: abandon ...");
- well-known token formats and private key blocks, labelled or not (GitHub, Slack tokens and
  webhook URLs, Discord webhooks and bot tokens, Twilio, Stripe, AWS, Google, JWTs...), Wi-Fi
  QR strings (`WIFI:S:Home;T:WPA;P:[masked];;`), secrets in URL parameters;
- card numbers that pass the Luhn check with a card network's prefix and length, and IBANs
  that pass their mod-97 check, without a label.

Look-alikes stay: phone numbers, dates, times, prices, order and PR numbers, street addresses
and postcodes, "the code review", "password reset". tests/test_secrets_labelled.py measures
both on a labelled set of secrets and look-alikes in many languages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache, partial
from importlib import resources
from typing import Any

MASK = "[masked]"

# ---------------------------------------------------------------------- verification codes

# Words that make a message a verification message: then every code-shaped number in it is
# masked, except numbers that are plainly something else (PR 4521, Hauptstrasse 1234).
VERIFICATION_WORDS = [
    r"verification", r"verify", r"verif(?:y|ication)\s*code", r"security\s+code", r"login\s+code",
    r"sign[- ]?in\s+code", r"one[- ]time", r"\bOTP\b", r"passcode", r"\b2FA\b", r"two[- ]factor",
    r"authenti(?:cation|cator)\s+code", r"confirmation\s+code", r"access\s+code",
    r"registration\s+code", r"\b(?:m|push|chip|sms)?TAN\b",
    # German
    r"bestätigungscode", r"sicherheitscode", r"verifizierungscode", r"anmeldecode", r"freigabecode",
    r"code\s+lautet",
    # Spanish / Portuguese / French / Italian / Dutch
    r"c[óo]digo", r"code\s+de\s+(?:v[ée]rification|confirmation|s[ée]curit[ée]|connexion)",
    r"codice", r"verificatiecode", r"beveiligingscode",
    # Polish / Turkish / Russian / Ukrainian
    r"\bkod\b", r"doğrulama\s+kodu", r"\bkodu\b", r"код", r"пароль",
    # Chinese / Japanese / Korean / Arabic / Indonesian / Vietnamese / Hindi
    r"验证码", r"驗證碼", r"校验码", r"動態密碼", r"动态密码", r"动态码", r"認証コード", r"確認コード", r"認証番号", r"인증번호",
    r"인증\s*코드", r"رمز", r"kode\s+(?:verifikasi|OTP)", r"mã\s+(?:xác\s+(?:thực|minh)|OTP)", r"कोड",
]
VERIFICATION_RE = re.compile("|".join(VERIFICATION_WORDS), re.IGNORECASE)

_CODE = r"(?P<prefix>[A-Z]{1,3}-)?(?P<code>\d{3,4}[- ]\d{3,4}|\d{4,8})(?![\w%€$£/]|[.,:]\d|[- ]\d)"
_POSSESSIVE = r"(?:your|ur|dein|deinen|ihr|ihren|votre|ton|je|uw|tu|su|seu|il\s+tuo|twój|ваш)"
_IS = r"(?:is|was|ist|lautet|est|es|é|è|to|:|=|-)"
# A number tied to a plain "code" (the message has no stronger verification word):
WEAK_CODE: list[re.Pattern[str]] = [
    # "Your code is 482913", "Your Apple ID Code is: 482913", "Your Uber code: 4821"
    re.compile(rf"\b{_POSSESSIVE}\s+(?:[\w'’-]+\s+){{0,3}}(?:code|kod|kodu|código|codice|код)"
               rf"(?:(?:\s+[\w'’-]+){{1,3}}\s*:\s*|\s*{_IS}?\s*:?\s*)[\[(]?" + _CODE, re.IGNORECASE),
    # "482913 is your Instagram code"
    re.compile(r"(?<![\w#-])(?P<prefix>[A-Z]{1,3}-)?(?P<code>\d{3,4}[- ]\d{3,4}|\d{4,8})"
               rf"\s+(?:is|ist|est|es|é|è)\s+{_POSSESSIVE}\s+(?:[\w'’-]+\s+){{0,3}}"
               r"(?:code|kod|código|codice|код)\b", re.IGNORECASE),
    # "code: 482913", "Code is 4821"
    re.compile(r"\b(?:code|kod|kodu)\s*(?:is|was|:|=)\s*:?\s*" + _CODE, re.IGNORECASE),
    # "Telegram code: 73920", "WhatsApp code 482-913" (a capitalised name before "code")
    re.compile(r"\b[A-Z][\w-]*\s+(?i:code)\s*:?\s*" + _CODE),
]

# Labels before "code" that make it not a secret ("zip code 10115", "promo code SAVE2024").
NOT_SECRET_CODE = re.compile(
    r"\b(?:zip|postal|post|area|dress|source|promo|promotional|discount|coupon|voucher|gift|qr|"
    r"bar|country|tracking|referral|invite|booking|reservation|error|status|sort|swift|bic)"
    r"[\s-]*code\b|\b(?:c[óo]digo|code|codice)\s+(?:postal|postale|promo\w*|fiscale?|de\s+barras|"
    r"de\s+descuento|sconto|QR)\b|\bpostleitzahl\b|\bPLZ\b", re.IGNORECASE)

# A code: 4-8 digits, or two groups of 3-4 split by a dash or space ("123-456", "123 456"),
# optionally after a letter prefix ("G-482913"); never part of a longer number, a decimal,
# a time, a date, a phone number, a price or a percentage.
CODE_RE = re.compile(
    r"(?<![A-Za-z0-9_+#$€£¥./:,-])(?:(?P<prefix>[A-Z]{1,3}-))?"
    r"(?P<code>\d{3,4}[- ]\d{3,4}|\d{4,8})"
    r"(?![A-Za-z0-9_%€£¥$/]|[.,:]\d|[- ]\d|\s*(?:€|\$|£|EUR|USD|GBP|CHF|kr|zł|руб|₽|%|km|kg|mg|ml|m²|€))")

# Numbers that name something else, even in a verification message: "PR 4521", "order 4021",
# "room 4012", "Flug LH 1234", "Rechnung Nr. 2024".
NAMED_NUMBER_BEFORE = re.compile(
    r"(?:\b(?:PR|pull\s+request|MR|merge\s+request|issue|ticket|bug|case|order|bestellung|"
    r"auftrag|pedido|commande|ordine|invoice|rechnung|factura|facture|fattura|room|zimmer|"
    r"habitación|chambre|camera|flight|flug|vuelo|vol|volo|train|zug|bus|tram|gate|seat|platz|"
    r"page|seite|página|step|version|build|line|zeile|item|artikel|ref|reference|customer|"
    r"kunde|kundennummer|apartment|apt|wohnung|suite|unit|floor|etage|km|mile|exit|route|"
    r"(?-i:[A-Z]{2}))\s*(?:#|no\.?|nr\.?|n°|number|nummer|número|numéro)?\s*:?\s*|#\s*)$",
    re.IGNORECASE)

_STREET = (r"(?:stra(?:ss|ß)e|str\.|weg|gasse|platz|allee|ring|damm|ufer|chaussee|steig|pfad|"
           r"street|st\.|avenue|ave\.?|road|rd\.|lane|ln\.|boulevard|blvd\.?|drive|dr\.|way|parkway|"
           r"pkwy|court|ct\.|place|pl\.|square|sq\.|terrace|straat|laan|gracht|plein|kade|vej|gade|"
           r"gatan|gata|vägen|ulica|ul\.|caddesi|cad\.|sokak|sok\.|utca|út)")
ADDRESS_RE = re.compile(
    # "Hauptstrasse 1234", "Baker Street 221", "Musterweg 12a"
    rf"\b[\w.'-]*{_STREET}\s+\d{{1,5}}[a-zA-Z]?\b"
    # "1600 Amphitheatre Parkway", "12 rue de Rivoli", "221 Baker St."
    rf"|\b\d{{1,5}}[a-zA-Z]?,?\s+(?:(?:rue|avenue|boulevard|bd|place|allée|impasse|chemin)\b"
    rf"|(?:[A-Z][\w'-]*\s+){{1,3}}{_STREET}(?!\w))"
    # "Calle Mayor 12", "Via Roma 15", "Rua Augusta, 100"
    r"|\b(?:calle|via|viale|piazza|corso|rua|avenida|carrer|avinguda|plaza|paseo)\s+"
    r"(?:[\w'’]+\s+){0,4}?[\w'’]+,?\s+\d{1,5}\b"
    # "10115 Berlin", "75001 Paris", "D-80331 München" after a comma or a line start
    r"|(?:^|(?<=[,;\n])\s*)(?:[A-Z]{1,2}-)?\d{4,5}\s+(?-i:[A-ZÄÖÜÉÈ][\w-]+)"
    # "CA 94043"
    r"|\b(?-i:[A-Z]{2})\s+\d{5}(?:-\d{4})?\b",
    re.IGNORECASE | re.MULTILINE)

# ---------------------------------------------------------------------- labelled secrets

SEP = r"(?:\s*[:=：]\s*|\s+(?:is|was|ist|lautet|es|est|é|è|:)\s*:?\s*|\s+)"
STRICT_SEP = (r"(?:\s*[:=：]\s*|\s*(?:->|=>|→|—|–)\s*|\s+(?:is|was|ist|lautet|es|est|é|è|er|är|on|"
              r"je|jest|to|da)\s*:?\s*)")

PASSWORD_WORDS = (
    r"(?:password|passwort|passwd|passphrase|kennwort|pwd|pw|(?<!boarding\s)(?<!bus\s)(?<!day\s)"
    r"(?<!ski\s)(?<!season\s)pass(?=\s*[:=])|contraseña|contrasena|clave|mot\s+de\s+passe|mdp|"
    r"senha|palavra-passe|wachtwoord|hasło|haslo|şifre|sifre|parola|heslo|jelszó|lösenord|"
    r"adgangskode|passord|salasana|пароль|密码|密碼|口令|パスワード|비밀번호|암호|"
    r"كلمة\s+(?:المرور|السر)|סיסמה|סיסמא|mật\s+khẩu|kata\s+sandi|รหัสผ่าน|पासवर्ड|κωδικός)")
# "the password for the router is ...", "Passwort für das WLAN: ..."
PASSWORD_FOR = (r"(?:\s+(?:for|to|of|für|zum|zur|vom|von|del|de|du|do|da|per|för|til|voor|na|dla)"
                r"\s+(?:the\s+|das\s+|den\s+|die\s+|dem\s+|le\s+|la\s+|el\s+|o\s+|a\s+|het\s+|de\s+)?"
                r"[\w.@'-]+)?")
# Words after "password is" that describe it instead of being it.
NOT_A_PASSWORD = (
    r"wrong|correct|incorrect|expired|invalid|required|not|the|too|saved|changed|reset|same|weak|"
    r"strong|empty|missing|falsch|richtig|abgelaufen|still|also|now|here|there|below|above|"
    r"attached|in|on|at|with|my|your|his|her|our|their|this|that|what|written|stored|somewhere|"
    r"sent|known|unknown|see|different|easy|hard|long|short|secure|safe|updated|a|an|and|or|but|"
    r"if|for|to|of|case|only|just|so|very|please|bitte|auf|im|der|die|das|ein|eine|nicht|noch|"
    r"jetzt|hier|gleich|neu|alt|old|new|le|la|les|un|une|pas|sur|dans|el|los|las|muy|no|yes|ok|"
    r"okay|fine|good|bad|done|set|enabled|disabled|protected|needed|optional|ready|pending|"
    r"forgotten|lost|leaked|compromised|shared|private|complicated|simple|via|by|from|later|"
    r"tomorrow|today|soon|again|back|manager|reset|recovery|policy|rules|change|hint|field|"
    r"prompt|protection|hash|hashes|length|strength|requirements|expiry|expires|vergessen|"
    r"geändert|olvidada|oublié|incorrecte|incorrecto|errato|sbagliata|fout|vergeten|unter|"
    r"steht|liegt|kommt|is|was|are|will|would|should|can|could|has|have|had|does|did")
_QUOTED = r"""(?P<q>\\?["'“„«‚‘`])(?P<secret>[^"'”“«»‘’`\n\\]{1,120}?)(?P<q2>\\?["'”“»’‘`])"""

LABELED: list[tuple[re.Pattern[str], str]] = [
    # a quoted password, spaces and all: password: "correct horse battery staple"
    (re.compile(r"(?P<label>\b(?:wi-?fi\s+|wlan\s+|new\s+|temporary\s+|temp\s+|admin\s+|root\s+|"
                r"router\s+)?" + PASSWORD_WORDS + PASSWORD_FOR + STRICT_SEP + r"(?P<lq>\\?[\"'“„«‚‘`]))"
                r"(?P<secret>[^\"'”“«»‘’`\n\\]{1,120}?)(?=\\?[\"'”“»’‘`])", re.IGNORECASE), "quoted"),
    # passwords: one token after an explicit separator ("password reset" stays)
    (re.compile(r"(?P<label>\b(?:wi-?fi\s+|wlan\s+|new\s+|temporary\s+|temp\s+|admin\s+|root\s+|"
                r"router\s+)?" + PASSWORD_WORDS + PASSWORD_FOR + STRICT_SEP + r")"
                r"(?!(?:" + NOT_A_PASSWORD + r")\b)(?![\"'“„«‚‘`]|\[masked\])"
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
                r"token|app[ _-]?password|recovery\s+(?:code|key))" + STRICT_SEP + r")"
                r"(?P<secret>(?=[A-Za-z0-9_\-./+=]*\d)[A-Za-z0-9_\-./+=]{8,})", re.IGNORECASE), "any"),
    (re.compile(r"(?P<label>\bBearer\s+)(?P<secret>[A-Za-z0-9_\-./+=]{16,})"), "any"),
]

# Identifiers that name a secret, split into their words: aws_secret_access_key, AccountKey,
# DB_PASSWORD, "apiKey", client-secret, SharedAccessKey.
SECRET_WORDS = frozenset({
    "password", "passwd", "passphrase", "pwd", "pw", "pass", "secret", "secrets", "token", "apikey",
    "credential", "credentials", "creds", "accountkey", "accesskey", "privatekey", "secretkey",
    "authkey", "masterkey", "signingkey", "encryptionkey", "sessionkey", "licensekey", "sharedkey",
    "appkey", "clientkey", "accesstoken", "authtoken", "refreshtoken", "apitoken", "bottoken",
    "sastoken", "connectionstring", "connstr", "clientsecret", "appsecret", "sharedaccesskey",
    "webhooksecret", "consumersecret", "privkey", "jwtsecret",
})
IDENT_ASSIGN = re.compile(
    r"(?P<label>(?P<lq>[\"']?)(?<![\w.-])(?P<ident>[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)*)(?P=lq)"
    r"\s*(?P<op>=|:(?!//))\s*)"
    r"(?:(?P<vq>\\?[\"'`])(?P<qvalue>[^\"'`\n\\]{1,300})(?=\\?[\"'`])|(?P<value>[^\s\"'`,;&<>]{1,300}))")
_IDENT_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
PLACEHOLDER = re.compile(
    r"(?:\$\{?\w+\}?|%\w+%|<[^>]*>|\{\{.*\}\}|\*+|x{3,}|X{3,}|\.{3}|…|null|none|nil|true|false|"
    r"undefined|\[masked\]|(?:os\.)?environ.*|process\.env.*|env\(.*|getenv.*|input\(.*)", re.IGNORECASE)


def _names_a_secret(ident: str) -> bool:
    """True when an identifier's words name a secret.

    >>> _names_a_secret("aws_secret_access_key"), _names_a_secret("AccountKey")
    (True, True)
    >>> _names_a_secret("secretary"), _names_a_secret("sortKey"), _names_a_secret("token_budget")
    (False, False, False)
    """
    parts = [p.lower() for p in _IDENT_PARTS.findall(ident)]
    while parts and parts[-1].isdigit():  # password2
        parts.pop()
    # the secret is what the name ends with: token_budget and api_key_header are not secrets
    return any("".join(parts[i:]) in SECRET_WORDS for i in range(max(0, len(parts) - 3), len(parts)))


def _code_like(ident: str, op: str, quoted_key: bool) -> bool:
    """An identifier as code or config writes it (not a word in a sentence): snake_case,
    CamelCase, ALL_CAPS, a quoted key, or assigned with '='."""
    return (op == "=" or quoted_key or bool(re.search(r"[_.-]", ident))
            or bool(re.search(r"[a-z][A-Z]", ident)) or (ident.isupper() and len(ident) >= 2))


def _mask_assignments(text: str) -> str:
    out, pos = [], 0
    m = IDENT_ASSIGN.search(text)
    while m is not None:
        ident, value = m.group("ident"), m.group("qvalue") or m.group("value") or ""
        secret = (_names_a_secret(ident) and _code_like(ident, m.group("op"), bool(m.group("lq")))
                  and len(value) >= 4 and not PLACEHOLDER.fullmatch(value.strip())
                  and (m.group("qvalue") or not re.fullmatch(NOT_A_PASSWORD, value, re.IGNORECASE)))
        if secret:
            out.append(text[pos:m.start()] + m.group("label") + (m.group("vq") or "") + MASK)
            pos = m.end()
            m = IDENT_ASSIGN.search(text, pos)
        else:  # "Anna: DB_PASSWORD=..." - the value may itself be the next assignment
            m = IDENT_ASSIGN.search(text, m.start("op") + 1)
    out.append(text[pos:])
    return "".join(out)


# Well-known token formats, labeled or not: the recognisable prefix is kept as the label.
TOKEN_FORMATS: list[re.Pattern[str]] = [
    re.compile(r"(?P<label>\b(?:AKIA|ASIA))(?P<secret>[0-9A-Z]{16})\b"),  # AWS access key id
    re.compile(r"(?P<label>\bgh[pousr]_)(?P<secret>[A-Za-z0-9]{30,})"),  # GitHub
    re.compile(r"(?P<label>\bgithub_pat_)(?P<secret>[A-Za-z0-9_]{30,})"),
    re.compile(r"(?P<label>\bglpat-)(?P<secret>[A-Za-z0-9_\-]{20,})"),  # GitLab
    re.compile(r"(?P<label>\bxox[abposre]-)(?P<secret>[A-Za-z0-9-]{10,})"),  # Slack
    re.compile(r"(?P<label>\bxapp-)(?P<secret>[A-Za-z0-9-]{10,})"),  # Slack app-level token
    re.compile(r"(?P<label>https?://hooks\.slack\.com/(?:services|workflows|triggers)/)"
               r"(?P<secret>[A-Za-z0-9_/-]{10,})"),  # Slack webhook URL
    re.compile(r"(?P<label>https?://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/webhooks/\d+/)"
               r"(?P<secret>[A-Za-z0-9_-]{20,})"),  # Discord webhook URL
    re.compile(r"(?P<label>)(?P<secret>(?<![\w.-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\."
               r"[A-Za-z0-9_-]{27,40})(?![\w.-])"),  # Discord bot token
    re.compile(r"(?P<label>\b(?:AC|SK))(?P<secret>[0-9a-f]{32})\b"),  # Twilio account / API key
    re.compile(r"(?P<label>\b(?:sk|rk|pk)_(?:live|test)_)(?P<secret>[A-Za-z0-9]{16,})"),  # Stripe
    re.compile(r"(?P<label>\bwhsec_)(?P<secret>[A-Za-z0-9]{20,})"),  # Stripe webhook secret
    re.compile(r"(?P<label>\bsk-(?:ant-|proj-)?)(?P<secret>[A-Za-z0-9_\-]{20,})"),  # OpenAI, Anthropic
    re.compile(r"(?P<label>\bAIza)(?P<secret>[0-9A-Za-z_\-]{35})"),  # Google API key
    re.compile(r"(?P<label>\bya29\.)(?P<secret>[0-9A-Za-z_\-]{20,})"),  # Google OAuth token
    re.compile(r"(?P<label>\bGOCSPX-)(?P<secret>[0-9A-Za-z_\-]{20,})"),  # Google OAuth client secret
    re.compile(r"(?P<label>\bnpm_)(?P<secret>[A-Za-z0-9]{36})"),  # npm
    re.compile(r"(?P<label>\bpypi-)(?P<secret>[A-Za-z0-9_\-]{50,})"),  # PyPI
    re.compile(r"(?P<label>\bSG\.)(?P<secret>[\w-]{20,}\.[\w-]{20,})"),  # SendGrid
    re.compile(r"(?P<label>\bhf_)(?P<secret>[A-Za-z0-9]{30,})"),  # Hugging Face
    re.compile(r"(?P<label>\bshp(?:at|ss|ca|pa)_)(?P<secret>[a-fA-F0-9]{32})"),  # Shopify
    re.compile(r"(?P<label>\bdop_v1_)(?P<secret>[a-f0-9]{64})"),  # DigitalOcean
    re.compile(r"(?P<label>\bkey-)(?P<secret>[0-9a-f]{32})\b"),  # Mailgun
    re.compile(r"(?P<label>\bsq0(?:atp|csp)-)(?P<secret>[0-9A-Za-z_\-]{22,})"),  # Square
    re.compile(r"(?P<label>)(?P<secret>\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})"),  # JWT
    re.compile(r"(?P<label>\b\d{8,10}:)(?P<secret>AA[A-Za-z0-9_-]{33})"),  # Telegram bot token
    re.compile(r"(?P<label>\b[a-z][a-z0-9+.-]*://[^\s:/@]+:)(?P<secret>[^\s@/]+)(?=@)"),  # user:pass@ in URLs
    # secrets in URL parameters: ?access_token=..., &sig=...
    re.compile(r"(?P<label>[?&](?:access_token|id_token|refresh_token|token|api_?key|apikey|key|sig|"
               r"signature|password|pwd|secret|client_secret|auth|code)=)(?P<secret>[^&\s#\"'<>]{6,})",
               re.IGNORECASE),
    # Wi-Fi QR codes: WIFI:T:WPA;S:Home;P:secret;; (fields in any order, \; escapes)
    re.compile(r"(?P<label>\bWIFI:(?:(?:[^;\\\s]|\\.)*(?:\s(?:[^;\\]|\\.)*)?;)*?P:)"
               r"(?P<secret>(?:\\.|[^;\\])+)", re.IGNORECASE),
]

PRIVATE_KEY = re.compile(
    r"(?P<begin>-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)(?P<secret>.*?)"
    r"(?P<end>-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.DOTALL)

# ---------------------------------------------------------------------- seed phrases

SEED_LABEL = re.compile(
    r"\b(?:seed(?:[\s-]*(?:phrase|words?))?|recovery[\s-]+(?:phrase|words?|seed)|"
    r"secret[\s-]+(?:recovery[\s-]+)?phrase|mnemonic(?:[\s-]+(?:phrase|words?|code))?|"
    r"backup[\s-]+(?:phrase|words?|seed)|wallet[\s-]+(?:words?|phrase|seed|backup)|"
    r"(?:12|24)[\s-]+(?:words?|wörter|palabras|mots)|wiederherstellungs(?:phrase|wörter|satz)|"
    r"frase[\s-]+(?:semilla|semente|de\s+recupera(?:ción|ção)|mnemotécnica|secreta|di\s+recupero)|"
    r"phrase[\s-]+(?:de\s+récupération|secrète|mnémonique)|herstelzin|kurtarma\s+ifadesi|"
    r"сид[\s-]*фраз\w*|мнемоническ\w*\s+фраз\w*|фраз\w*\s+восстановления|"
    r"助记词|助記詞|シードフレーズ|復元フレーズ|시드\s*구문|복구\s*구문)",
    re.IGNORECASE)
SEED_MIN_WORDS = 12  # BIP-39 phrases have 12, 15, 18, 21 or 24 words
SEED_LEAD_CHARS = 80  # how far after its label a phrase may start ("(write it down!):")
_WORD = re.compile(r"[^\W\d_]+")
_BETWEEN_WORDS = re.compile(r"[\s,;:.)(•*\d-]*")


@lru_cache(maxsize=1)
def bip39_words() -> frozenset[str]:
    """The 2,048 words of the BIP-39 English list (tools/data/bip39-english.txt)."""
    text = resources.files("chatmem.tools").joinpath("data/bip39-english.txt").read_text("utf-8")
    return frozenset(w.strip() for w in text.split() if w.strip())


def _mask_seed_phrases(text: str) -> str:
    words = bip39_words()
    spans: list[tuple[int, int]] = []
    for label in SEED_LABEL.finditer(text):
        run: list[re.Match[str]] = []
        for w in _WORD.finditer(text, label.end()):
            inside = w.group(0).lower() in words
            joined = not run or _BETWEEN_WORDS.fullmatch(text, run[-1].end(), w.start())
            if inside and joined:
                if not run and w.start() - label.end() > SEED_LEAD_CHARS:
                    break
                run.append(w)
                continue
            if len(run) >= SEED_MIN_WORDS:
                break
            if run or w.start() - label.end() > SEED_LEAD_CHARS:
                run = [w] if inside and w.start() - label.end() <= SEED_LEAD_CHARS else []
                if not run and w.start() - label.end() > SEED_LEAD_CHARS:
                    break
        if len(run) >= SEED_MIN_WORDS:
            spans.append((run[0].start(), run[-1].end()))
    for start, end in reversed(spans):
        text = text[:start] + MASK + text[end:]
    return text


# ---------------------------------------------------------------------- card numbers, IBANs

CARD_CANDIDATE = re.compile(
    r"(?<![\w+./,:#-])(?:\d{4}(?:[ -]\d{4}){2}[ -]\d{1,7}|\d{4}[ -]\d{6}[ -]\d{4,5}|\d{13,19})"
    r"(?![\w/-]|[.,]\d)")
# (prefix pattern, allowed lengths) per card network
CARD_NETWORKS: list[tuple[re.Pattern[str], frozenset[int]]] = [
    (re.compile(r"4"), frozenset({13, 16, 19})),  # Visa
    (re.compile(r"5[1-5]|2(?:2[2-9][1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)"), frozenset({16})),  # Mastercard
    (re.compile(r"3[47]"), frozenset({15})),  # American Express
    (re.compile(r"6011|65|64[4-9]|622"), frozenset({16, 17, 18, 19})),  # Discover
    (re.compile(r"35(?:2[89]|[3-8]\d)"), frozenset({16, 17, 18, 19})),  # JCB
    (re.compile(r"3(?:0[0-5]|[689])"), frozenset({14, 15, 16, 17, 18, 19})),  # Diners Club
    (re.compile(r"62"), frozenset({16, 17, 18, 19})),  # UnionPay
    (re.compile(r"5[06-9]|6\d"), frozenset({12, 13, 14, 15, 16, 17, 18, 19})),  # Maestro
    (re.compile(r"220[0-4]"), frozenset({16, 17, 18, 19})),  # Mir
]


def luhn_ok(digits: str) -> bool:
    """The Luhn check every payment card number passes.

    >>> luhn_ok("4111111111111111"), luhn_ok("4111111111111112")
    (True, False)
    """
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def is_card_number(digits: str) -> bool:
    if len(set(digits)) == 1 or not luhn_ok(digits):
        return False
    return any(p.match(digits) and len(digits) in lengths for p, lengths in CARD_NETWORKS)


IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28,
    "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
    "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
    "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
    "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18,
    "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24,
    "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24,
    "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}
IBAN_CANDIDATE = re.compile(r"(?<![\w-])(?P<cc>[A-Z]{2})\d{2}(?:[ ]?[A-Z0-9]){11,30}")


def iban_ok(iban: str) -> bool:
    """The ISO 13616 check: the right length for its country, and mod 97 == 1.

    >>> iban_ok("DE89370400440532013000"), iban_ok("DE89370400440532013001")
    (True, False)
    """
    if IBAN_LENGTHS.get(iban[:2]) != len(iban):
        return False
    moved = iban[4:] + iban[:4]
    return int("".join(str(int(ch, 36)) for ch in moved)) % 97 == 1


def _mask_numbers(text: str) -> str:
    """Card numbers and IBANs that pass their checksums, labelled or not."""
    def card(m: re.Match[str]) -> str:
        return MASK if is_card_number(re.sub(r"[ -]", "", m.group(0))) else m.group(0)

    text = CARD_CANDIDATE.sub(card, text)

    def iban(m: re.Match[str]) -> str:
        want = IBAN_LENGTHS.get(m.group("cc"))
        if want is None:
            return m.group(0)
        raw, seen, end = m.group(0), 0, 0
        while end < len(raw) and seen < want:  # the shortest prefix with the country's length
            seen += raw[end] != " "
            end += 1
        if seen != want or not iban_ok(raw[:end].replace(" ", "")):
            return raw
        return MASK + raw[end:]

    return IBAN_CANDIDATE.sub(iban, text)


# ---------------------------------------------------------------------- putting it together

_JUST_A_SEPARATOR = re.compile(r"\s*(?:is|was|ist|es|est|:|=|#)?\s*:?\s*", re.IGNORECASE)
_WORTH_A_LOOK = re.compile(
    r"\d|pass|pw|token|secret|key|bearer|seed|phrase|frase|semilla|semente|mnemo|recovery|wallet|"
    r"wörter|herstel|ifadesi|wifi|hooks|webhook|"
    r"cred|auth|wort|clave|senha|mdp|hasło|haslo|şifre|parola|heslo|jelszó|lösenord|kode|salasana|"
    r"пароль|сид|фраз|密码|密碼|口令|パスワード|비밀번호|암호|كلمة|סיסמ|mật|sandi|รหัส|पासवर्ड|κωδικ|"
    r"助记|シード|復元|시드|복구|-----BEGIN", re.IGNORECASE)


def _keep_label(m: re.Match[str]) -> str:
    return m.group("label") + MASK


def _protected_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in ADDRESS_RE.finditer(text)]


def _names_something_else(text: str, start: int, ends: list[int],
                           protected: list[tuple[int, int]]) -> bool:
    """True when the number at `start` is a zip code, promo code, PR, order or room number,
    or part of a street address."""
    for end in ends:  # a number right after "zip code" / "promo code" (is)
        if end <= start and _JUST_A_SEPARATOR.fullmatch(text[end:start]):
            return True
    if NAMED_NUMBER_BEFORE.search(text[max(0, start - 40):start]):
        return True
    return any(s <= start < e for s, e in protected)


def _mask_codes(text: str) -> str:
    """Every code-shaped number in a verification message, except numbers that name
    something else."""
    ends = [m.end() for m in NOT_SECRET_CODE.finditer(text)]
    protected = _protected_spans(text)

    def repl(m: re.Match[str]) -> str:
        if _names_something_else(text, m.start(), ends, protected):
            return m.group(0)
        return (m.group("prefix") or "") + MASK

    return CODE_RE.sub(repl, text)


def _mask_weak_codes(text: str) -> str:
    """Only numbers tied to a plain "code" ("Your Uber code: 4821", "482913 is your code")."""
    def repl(m: re.Match[str], ends: list[int], protected: list[tuple[int, int]]) -> str:
        start = m.start("prefix") if m.group("prefix") else m.start("code")
        if _names_something_else(m.string, start, ends, protected):
            return m.group(0)
        return m.string[m.start():m.start("code")] + MASK + m.string[m.end("code"):m.end()]

    for pattern in WEAK_CODE:
        ends = [m.end() for m in NOT_SECRET_CODE.finditer(text)]
        protected = _protected_spans(text)
        text = pattern.sub(partial(repl, ends=ends, protected=protected), text)
    return text


def _mask_text(text: str) -> str:
    if not text or not _WORTH_A_LOOK.search(text):
        return text
    text = PRIVATE_KEY.sub(lambda m: m.group("begin") + MASK + m.group("end"), text)
    for pattern in TOKEN_FORMATS:
        text = pattern.sub(_keep_label, text)
    text = _mask_seed_phrases(text)
    for pattern, _kind in LABELED:
        text = pattern.sub(_keep_label, text)
    text = _mask_assignments(text)
    text = _mask_numbers(text)
    if VERIFICATION_RE.search(text):
        text = _mask_codes(text)
    else:
        text = _mask_weak_codes(text)
    return text


def _mask_json(value: Any, key: str | None = None) -> Any:
    if isinstance(value, dict):
        return {k: _mask_json(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask_json(v, key) for v in value]
    if isinstance(value, str):
        if key and value and _names_a_secret(key) and not PLACEHOLDER.fullmatch(value):
            return MASK
        return _mask_text(value)
    return value


def mask_secrets(text: str) -> str:
    """Mask every secret in `text`, keeping the labels. A whole JSON document (a raw record)
    is masked value by value, so escaped quotes and newlines hide nothing.

    >>> mask_secrets("Your code is 482913")
    'Your code is [masked]'
    >>> mask_secrets("Meet at 14:30 for the code review")
    'Meet at 14:30 for the code review'
    >>> mask_secrets('password: "correct horse battery staple"')
    'password: "[masked]"'
    """
    if not text:
        return text
    stripped = text.strip()
    if stripped[:1] in "{[" and stripped[-1:] in "}]":
        try:
            parsed = json.loads(stripped)
        except ValueError:
            parsed = None
        if isinstance(parsed, (dict, list)):
            masked = _mask_json(parsed)
            return text if masked == parsed else json.dumps(masked, ensure_ascii=False)
    return _mask_text(text)


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
