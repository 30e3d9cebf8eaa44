"""SMS Backup & Restore XML files for tests and fixtures, written the way the app writes them
(attribute order and the "null" placeholders included; fictional people, the owner is Sam
Rivera, +15550100000).

- `build_small(folder)`: sms-<date>.xml with a few SMS with Anna Berg.
- `build_full(folder)`: sms-<date>.xml with every kind (received, sent, draft, failed SMS; MMS
  with a picture and text; a group MMS; a short code; an unknown sender; text with markup and
  emoji; a contact card; an MMS never downloaded; a group whose numbers are written with and
  without `+`) and calls-<date>.xml with every call type (answered on another device and a
  private number included).

Where each attribute and code was seen in public material: importers/SOURCES.md.
"""

from __future__ import annotations

import base64
from datetime import datetime, timedelta, timezone
from pathlib import Path
from xml.sax.saxutils import quoteattr

T0 = datetime(2024, 3, 2, 9, 0, tzinfo=timezone.utc)
SAM, ANNA, BEN, LIA = "+15550100000", "+1 555-010-0001", "+15550100002", "+15550100007"
PICTURE = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 4  # a small 'JPEG'
HEADER = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n"


def ms(minutes: float) -> str:
    return str(int((T0 + timedelta(minutes=minutes)).timestamp() * 1000))


def readable(minutes: float) -> str:
    return (T0 + timedelta(minutes=minutes)).strftime("%b %-d, %Y %-I:%M:%S %p")


def element(tag: str, attrs: dict[str, str], children: str = "") -> str:
    text = " ".join(f"{k}={quoteattr(v)}" for k, v in attrs.items())
    return f"<{tag} {text}>{children}</{tag}>" if children else f"<{tag} {text} />"


def sms(minutes: float, address: str, kind: int, body: str, name: str = "null", **more: str) -> str:
    attrs = {"protocol": "0", "address": address, "date": ms(minutes), "type": str(kind),
             "subject": "null", "body": body, "toa": "null", "sc_toa": "null",
             "service_center": "null", "read": "1", "status": "-1", "locked": "0",
             "date_sent": ms(minutes - 0.1) if kind == 1 else "0", "sub_id": "1",
             "readable_date": readable(minutes), "contact_name": name, **more}
    return "  " + element("sms", attrs)


def mms(minutes: float, box: int, address: str, names: str, parts: list[dict[str, str]],
        addrs: list[tuple[str, int]], **more: str) -> str:
    attrs = {"date": ms(minutes), "rr": "null", "sub": "null", "ct_t": "application/vnd.wap.multipart.related",
             "read_status": "null", "seen": "1", "msg_box": str(box), "address": address,
             "sub_cs": "null", "resp_st": "null", "retr_st": "null", "d_tm": "null", "text_only": "0",
             "exp": "null", "locked": "0", "m_id": f"m{minutes}", "st": "null", "retr_txt_cs": "null",
             "retr_txt": "null", "creator": "com.google.android.apps.messaging", "date_sent": "0",
             "read": "1", "m_size": "0", "rpt_a": "null", "ct_cls": "null", "pri": "null", "sub_id": "1",
             "tr_id": f"t{minutes}", "resp_txt": "null", "ct_l": "null", "m_cls": "personal",
             "d_rpt": "129", "v": "18", "_id": str(int(minutes)), "m_type": "132" if box == 1 else "128",
             "readable_date": readable(minutes), "contact_name": names, **more}
    smil = {"seq": "-1", "ct": "application/smil", "name": "null", "chset": "null", "cd": "null",
            "fn": "null", "cid": "<smil>", "cl": "smil.xml", "ctt_s": "null", "ctt_t": "null",
            "text": '<smil><head><layout><root-layout/></layout></head><body><par dur="5000ms">'
                    '<img src="image.jpg" region="Image" /></par></body></smil>'}
    body = "<parts>" + "".join("\n      " + element("part", p) for p in [smil, *parts]) + "\n    </parts>"
    body += "<addrs>" + "".join("\n      " + element("addr", {"address": a, "type": str(t), "charset": "106"})
                                for a, t in addrs) + "\n    </addrs>"
    return "  " + element("mms", attrs, body)


def text_part(text: str) -> dict[str, str]:
    return {"seq": "0", "ct": "text/plain", "name": "null", "chset": "106", "cd": "null", "fn": "null",
            "cid": "<text_0>", "cl": "text_0.txt", "ctt_s": "null", "ctt_t": "null", "text": text}


def picture_part(name: str) -> dict[str, str]:
    return {"seq": "0", "ct": "image/jpeg", "name": name, "chset": "null", "cd": "null", "fn": "null",
            "cid": "<0>", "cl": name, "ctt_s": "null", "ctt_t": "null", "text": "null",
            "data": base64.b64encode(PICTURE).decode()}


def vcard_part() -> dict[str, str]:
    card = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Lia Moreau\r\nTEL:+15550100007\r\nEND:VCARD\r\n"
    return {"seq": "0", "ct": "text/x-vCard", "name": "null", "chset": "null", "cd": "null", "fn": "null",
            "cid": "<contact000000>", "cl": "contact000000.vcf", "ctt_s": "null", "ctt_t": "null",
            "text": "null", "data": base64.b64encode(card.encode()).decode()}


def small_messages() -> list[str]:
    return [
        sms(0, ANNA, 1, "Are we still on for Saturday?", "Anna Berg"),
        sms(1, ANNA, 2, "Yes! Trailhead at 9.", "Anna Berg"),
        sms(3, ANNA, 1, "Perfect, I'll bring coffee ☕", "Anna Berg"),
    ]


def full_messages() -> list[str]:
    return small_messages() + [
        sms(5, ANNA, 3, "Draft I never sent", "Anna Berg"),
        sms(6, BEN, 5, "This one failed to send", "Ben Ortiz"),
        sms(7, "GOOGLE", 1, "G-482913 is your Google verification code."),
        sms(8, "+15559998888", 1, "Unknown number says hi & <waves>\nsecond line", "(Unknown)"),
        mms(10, 1, ANNA, "Anna Berg", [picture_part("IMG_0042.jpg"), text_part("The view from the top")],
            [(ANNA, 137), (SAM, 151)]),
        mms(12, 2, BEN, "Ben Ortiz", [text_part("Route map attached"), picture_part("route.jpg")],
            [(SAM, 137), (BEN, 151)], sub="Saturday"),
        mms(14, 1, f"{ANNA}~{BEN}~{SAM}", "Anna Berg, Ben Ortiz, Sam Rivera",
            [text_part("Hi all 👋")], [(ANNA, 137), (BEN, 151), (SAM, 151)]),
        mms(15, 2, f"{ANNA}~{BEN}", "Anna Berg, Ben Ortiz", [text_part("Hello group!")],
            [(SAM, 137), (ANNA, 151), (BEN, 151)]),
        mms(16, 1, f"{BEN}~{ANNA}", "Ben Ortiz, Anna Berg", [text_part("Count me in")],
            [(BEN, 137), (ANNA, 151), (SAM, 151)]),
        # the same group as another phone writes it: numbers without "+", no contact names
        mms(17, 1, "15550100002~15550100001", "null", [text_part("Same group, other spelling")],
            [("15550100002", 137), ("15550100001", 151), ("15550100000", 151)]),
        mms(18, 1, ANNA, "Anna Berg", [vcard_part()], [(ANNA, 137), (SAM, 151)]),
        mms(19, 1, BEN, "Ben Ortiz", [], [(BEN, 137), (SAM, 151)], m_type="130"),
    ]


def calls() -> list[str]:
    def call(minutes: float, number: str, kind: int, duration: int, name: str = "null",
             presentation: int = 1) -> str:
        return "  " + element("call", {
            "number": number, "duration": str(duration), "date": ms(minutes), "type": str(kind),
            "presentation": str(presentation), "subscription_id": "1", "post_dial_digits": "",
            "subscription_component_name": "com.android.phone/com.android.services.telephony.TelephonyConnectionService",
            "readable_date": readable(minutes), "contact_name": name})
    return [
        call(20, ANNA, 1, 95, "Anna Berg"),
        call(25, ANNA, 2, 30, "Anna Berg"),
        call(30, BEN, 3, 0, "Ben Ortiz"),
        call(31, BEN, 5, 0, "Ben Ortiz"),
        call(32, LIA, 4, 12, "Lia Moreau"),
        call(33, "+15559998888", 6, 0),
        call(34, ANNA, 7, 240, "Anna Berg"),  # answered on another device
        call(35, "", 1, 15, "(Unknown)", presentation=2),  # a caller who hid the number
    ]


def _write(path: Path, root: str, items: list[str], comment: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = f"<!--{comment}-->\n" + f'<{root} count="{len(items)}" backup_set="7c1d0f5e" backup_date="{ms(600)}" type="full">\n'
    path.write_text(HEADER + body + "\n".join(items) + f"\n</{root}>\n", encoding="utf-8")
    return path


COMMENT = "File Created By SMS Backup & Restore v10.20.002 on 02/03/2024 11:00:00"


def build_small(folder: Path) -> Path:
    return _write(folder / "sms-20240302110000.xml", "smses", small_messages(), COMMENT)


def build_full(folder: Path) -> tuple[Path, Path]:
    return (_write(folder / "sms-20240302120000.xml", "smses", full_messages(), COMMENT),
            _write(folder / "calls-20240302120000.xml", "calls", calls(), COMMENT))
