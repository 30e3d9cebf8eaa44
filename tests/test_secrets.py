"""Secrets masking: real-world shapes are masked with their label kept; look-alikes stay."""

from __future__ import annotations

import pytest

from chatmem.tools.secrets import MASK, mask_result, mask_secrets

# (message, the secret that must disappear, a label or context that must stay)
MASKED = [
    # verification codes, many senders and languages
    ("Your code is 482913", "482913", "Your code is"),
    ("G-482913 is your Google verification code.", "482913", "Google verification code"),
    ("Your Apple ID Code is: 482913. Don't share it with anyone.", "482913", "Apple ID Code is"),
    ("Apple ID: Your verification code is 739201", "739201", "verification code is"),
    ("Your WhatsApp code: 123-456\nYou can also tap on this link to verify your phone", "123-456",
     "WhatsApp code"),
    ("WhatsApp code 482-913. Don't share this code with others", "482-913", "WhatsApp code"),
    ("Your Signal verification code: 482-913", "482-913", "Signal verification code"),
    ("SIGNAL: Your code is: 739201 Do not share this code", "739201", "Your code is"),
    ("Your Uber code: 4821. Never share this code.", "4821", "Uber code"),
    ("<#> 482913 is your Instagram code. Don't share it.", "482913", "Instagram code"),
    ("Telegram code: 73920", "73920", "Telegram code"),
    ("Use 584301 as your Microsoft account security code", "584301", "security code"),
    ("Amazon: Your one-time password is 482913. Do not share it.", "482913", "one-time password"),
    ("Your one-time passcode for the payment of EUR 49.90 at SHOP is 739201", "739201", "EUR 49.90"),
    ("Chase: Your one-time code is 48291375. Don't share it. We'll never call to ask for it.",
     "48291375", "one-time code"),
    ("ING: Ihre mTAN für die Überweisung lautet 482913", "482913", "mTAN"),
    ("Dein Bestätigungscode lautet 482913", "482913", "Bestätigungscode"),
    ("Ihr Sicherheitscode: 7392", "7392", "Sicherheitscode"),
    ("Tu código de verificación es 482913", "482913", "código de verificación"),
    ("Seu código do WhatsApp: 482-913", "482-913", "código"),
    ("Votre code de vérification est : 482913", "482913", "code de vérification"),
    ("Il tuo codice di verifica è 482913", "482913", "codice di verifica"),
    ("Je verificatiecode is 482913", "482913", "verificatiecode"),
    ("Twój kod weryfikacyjny to 482913", "482913", "kod"),
    ("Doğrulama kodunuz: 482913", "482913", "Doğrulama"),
    ("Ваш код подтверждения: 482913", "482913", "код подтверждения"),
    ("【微信】您的验证码是482913，5分钟内有效。", "482913", "验证码"),
    ("認証コード：482913", "482913", "認証コード"),
    ("[Web발신] 인증번호 [482913]를 입력해주세요", "482913", "인증번호"),
    ("482913 is your Facebook login code", "482913", "login code"),
    ("Your PayPal security code is 739201. It expires in 10 minutes.", "739201", "security code is"),
    ("Revolut: 482 913 is your login code. Never share it", "482 913", "login code"),
    # labeled secrets
    ("wifi password: Sommer2024!", "Sommer2024!", "wifi password:"),
    ("The password is hunter22", "hunter22", "password is"),
    ("Passwort: Xk9#mQ2p", "Xk9#mQ2p", "Passwort:"),
    ("la contraseña es gatito77", "gatito77", "contraseña es"),
    ("My PIN is 4821", "4821", "PIN is"),
    ("PIN 7392 for the door", "7392", "PIN"),
    ("new card PIN: 0815", "0815", "PIN:"),
    ("CVV 392", "392", "CVV"),
    ("card number 4111 1111 1111 1111 exp 09/27", "4111 1111 1111 1111", "card number"),
    ("Visa: 4111-1111-1111-1111", "4111-1111-1111-1111", "Visa:"),
    ("IBAN: DE89 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 00", "IBAN:"),
    ("my IBAN is GB29NWBK60161331926819", "GB29NWBK60161331926819", "IBAN is"),
    ("api key: 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", "3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", "api key:"),
    ("token=a1b2c3d4e5f6g7h8i9j0", "a1b2c3d4e5f6g7h8i9j0", "token="),
    ("Authorization: Bearer abcDEF1234567890ghijKL", "abcDEF1234567890ghijKL", "Bearer"),
    # well-known token formats, unlabeled
    ("use AKIAIOSFODNN7EXAMPLE for the bucket", "IOSFODNN7EXAMPLE", "AKIA"),
    ("ghp_16C7e42F292c6912E7710c838347Ae178B4a here", "16C7e42F292c6912E7710c838347Ae178B4a", "ghp_"),
    ("xoxb-2048-4096-abcdefghijklmnop", "2048-4096-abcdefghijklmnop", "xoxb-"),
    ("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc", "sk_live_"),
    ("OPENAI_API_KEY sk-proj-abcdefghijklmnopqrstuvwxyz123456", "abcdefghijklmnopqrstuvwxyz123456", "sk-proj-"),
    ("AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe", "SyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe", "AIza"),
    ("glpat-xxxxxxxxxxxxxxxxxxxx1234", "xxxxxxxxxxxxxxxxxxxx1234", "glpat-"),
    ("npm_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123456789", "npm_"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt"),
    ("bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0 ok", "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0", "123456789:"),
    ("db at postgres://admin:s3cr3tPass@db.example.com/app", "s3cr3tPass", "postgres://admin:"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq98WzQ\n-----END RSA PRIVATE KEY-----",
     "MIIEowIBAAKCAQEA7bq98WzQ", "-----BEGIN RSA PRIVATE KEY-----"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
     "b3BlbnNzaC1rZXktdjEAAAAA", "-----END OPENSSH PRIVATE KEY-----"),
]

# Messages that look a little like secrets and must stay exactly as they are.
KEPT = [
    "Call me at +49 170 1234567 after lunch",
    "My number is 555-0142",
    "Office line (030) 1234 5678",
    "See you on 2024-05-03",
    "The appointment is on 12.06.2024 at 14:30",
    "Flight leaves 03/05/2024",
    "Leaving Munich at 6:30",
    "Meet at 14:30 for the code review",
    "the code review is tomorrow, 10 files changed",
    "That was €49.90 at the market",
    "It costs $1,299.00 now",
    "Rent is 1500 EUR this year",
    "Order #40211873 has shipped",
    "Your order 4021 has been dispatched",
    "Room 4012, third floor",
    "Our zip code is 10115",
    "Use promo code SAVE2024 for 20% off",
    "dress code: smart casual",
    "I need a password reset",
    "The password is wrong again",
    "Back in 2019 we went to Lisbon",
    "Version 2.14.4 fixed it",
    "The score was 3-1 after 90 minutes",
    "Train ICE 1234 leaves from platform 7",
    "Please send the IBAN later",
    "Weight: 72.5 kg, 1800 kcal a day",
    "Table for 4 at 19:30, confirmation to follow",
    "I found the token for the arcade",
]


@pytest.mark.parametrize(("text", "secret", "label"), MASKED)
def test_secret_is_masked_and_label_kept(text, secret, label):
    masked = mask_secrets(text)
    assert secret not in masked
    assert MASK in masked
    assert label in masked


@pytest.mark.parametrize("text", KEPT)
def test_look_alike_stays(text):
    assert mask_secrets(text) == text


def test_table_sizes():
    assert len(MASKED) >= 40
    assert len(KEPT) >= 20


def test_spec_example_keeps_the_label():
    assert mask_secrets("Your code is 482913") == "Your code is [masked]"


def test_mask_result_touches_text_fields_only():
    result = {"id": "m_1234567890123456", "content": "Anna: PIN 4821",
              "items": [{"text": "code: 739201", "timestamp": "2024-05-03T18:02:11+02:00"}]}
    masked = mask_result(result)
    assert masked["id"] == "m_1234567890123456"
    assert masked["content"] == "Anna: PIN [masked]"
    assert masked["items"][0] == {"text": "code: [masked]", "timestamp": "2024-05-03T18:02:11+02:00"}
