"""fixtures/attachments/: one small export per importer, in that app's own layout, whose
messages carry a file of every kind the app sends — image, video, audio, document — once with
the file in the export (present) and once without it (missing: left out by the export
settings, never downloaded, or deleted since). Fictional people; the owner is Sam Rivera.

    python fixtures/attachments/build_fixture.py

`EXPECTED[importer]` lists, per kind, the file names a test can look for: (present, missing).
Layouts are each app's (see the importers' docstrings and the builders beside this file):
Telegram Desktop's result.json with photos/, video_files/, voice_messages/, files/ and
"(File not included...)" for what the export settings left out; SMS Backup & Restore's MMS
parts with their base64 `data` (a part without it is missing); Meta's message_1.json with uris
into the thread's photos/, videos/, audio/, files/ folders; Signal's phone export with files/
named by media name; signal-export's per-chat data.json with media/; a WhatsApp text export
with its files beside it; a chat.db with its Attachments/ folder; Signal Desktop's database with
attachments.noindex (encrypted files).
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

from media_samples import SIGNAL_FIXTURE_KEY, pdf_document, photo, signal_encrypt

KINDS = ("image", "video", "audio", "document")
T0 = datetime(2024, 4, 6, 8, 0, tzinfo=timezone.utc)

VIDEO = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + b"\x00\x00\x00\x08free" * 8
OGG = b"OggS\x00\x02" + bytes(22) + b"\x01\x13OpusHead\x01\x01" + bytes(40)
AMR = b"#!AMR\n" + bytes(range(32)) * 2
M4A = b"\x00\x00\x00\x18ftypM4A \x00\x00\x00\x00M4A isom" + bytes(32)


def packing_list() -> bytes:
    return pdf_document(["Packing list: rope, harness, twelve quickdraws",
                         "Second page: headlamp and a thermos of coffee"])


VCARD = b"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Cleo Park\r\nTEL:+15550100042\r\nEND:VCARD\r\n"

# the Signal apps name files alike: (present, missing) per kind
SIGNAL_NAMES = {"image": ("summit.jpg", "ridge.jpg"), "video": ("hike.mp4", "descent.mp4"),
                "audio": ("voice-note.m4a", "voice-late.m4a"),
                "document": ("packing-list.pdf", "permit.pdf")}
# importer -> kind -> (a present file's name, a missing file's name)
EXPECTED: dict[str, dict[str, tuple[str, str]]] = {
    "telegram": {"image": ("photo_1@06-04-2024_10-00-00.jpg", "IMG_2041.jpg"),
                 "video": ("hike.mp4", "summit.mp4"),
                 "audio": ("audio_1@06-04-2024_10-04-00.ogg", "trail-song.mp3"),
                 "document": ("packing-list.pdf", "permit.pdf")},
    "sms": {"image": ("IMG_0101.jpg", "IMG_0102.jpg"), "video": ("VID_0101.mp4", "VID_0102.mp4"),
            "audio": ("rec_0101.amr", "rec_0102.amr"), "document": ("Cleo Park.vcf", "Dan Lee.vcf")},
    "meta": {"image": ("431198_n.jpg", "431199_n.jpg"), "video": ("551201_n.mp4", "551202_n.mp4"),
             "audio": ("audioclip1712390640000.mp4", "audioclip1712390700000.mp4"),
             "document": ("packing-list.pdf", "permit.pdf")},
    "signal-phone": SIGNAL_NAMES,
    "sigexport": SIGNAL_NAMES,
    "whatsapp": {"image": ("IMG-20240406-WA0001.jpg", "IMG-20240406-WA0002.jpg"),
                 "video": ("VID-20240406-WA0003.mp4", "VID-20240406-WA0004.mp4"),
                 "audio": ("PTT-20240406-WA0005.opus", "PTT-20240406-WA0006.opus"),
                 "document": ("packing-list.pdf", "permit.pdf")},
    "imessage": {"image": ("summit.jpeg", "ridge.jpeg"), "video": ("hike.mov", "descent.mov"),
                 "audio": ("Audio Message.caf", "Audio Message 2.caf"),
                 "document": ("packing-list.pdf", "permit.pdf")},
    "signal-desktop": SIGNAL_NAMES,
}

# the source to import, relative to fixtures/attachments/
SOURCES = {
    "telegram": "telegram/ChatExport_2024-04-06",
    "sms": "sms/sms-20240406120000.xml",
    "meta": "meta/facebook-samrivera-2024-04-06",
    "signal-phone": "signal-phone/signal-export-2024-04-06",
    "sigexport": "sigexport",
    "whatsapp": "whatsapp/WhatsApp Chat with Anna Berg.txt",
    "imessage": "imessage/chat.db",
    "signal-desktop": "signal-desktop/sql/db.sqlite",
}


def minutes(n: float) -> datetime:
    return T0 + timedelta(minutes=n)


def _put(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


# ------------------------------------------------------------------------------ Telegram


def build_telegram(root: Path) -> Path:
    from telegram_builders import LIA, NOT_INCLUDED, SAM, msg, write_file

    folder = root / "ChatExport_2024-04-06"
    folder.mkdir(parents=True, exist_ok=True)
    base = (T0 - datetime(2024, 3, 2, 9, 0, tzinfo=timezone.utc)).total_seconds() / 60
    pdf = packing_list()
    messages = [
        msg(1, base + 0, LIA, "From the summit",
            photo=write_file(folder, "photos/photo_1@06-04-2024_10-00-00.jpg", photo("trail")),
            photo_file_size=len(photo("trail")), width=480, height=320),
        msg(2, base + 1, SAM, "", photo=NOT_INCLUDED, photo_file_size=51234, width=1280, height=960),
        msg(3, base + 1.5, LIA, "sent as a file", file=NOT_INCLUDED, file_name="IMG_2041.jpg",
            file_size=230114, mime_type="image/jpeg"),
        msg(4, base + 2, LIA, "", file=write_file(folder, "video_files/hike.mp4", VIDEO),
            file_name="hike.mp4", file_size=len(VIDEO), media_type="video_file",
            mime_type="video/mp4", duration_seconds=12, width=640, height=360),
        msg(5, base + 3, SAM, "", file=NOT_INCLUDED, file_name="summit.mp4", file_size=4_200_000,
            media_type="video_file", mime_type="video/mp4", duration_seconds=31),
        msg(6, base + 4, LIA, "", file=write_file(folder, "voice_messages/audio_1@06-04-2024_10-04-00.ogg", OGG),
            file_size=len(OGG), media_type="voice_message", mime_type="audio/ogg", duration_seconds=4),
        msg(7, base + 5, LIA, "", file=NOT_INCLUDED, file_name="trail-song.mp3", file_size=3_100_000,
            media_type="audio_file", mime_type="audio/mpeg", performer="The Ridge",
            title="Trail song", duration_seconds=184),
        msg(8, base + 6, SAM, "the list", file=write_file(folder, "files/packing-list.pdf", pdf),
            file_name="packing-list.pdf", file_size=len(pdf), mime_type="application/pdf"),
        msg(9, base + 7, LIA, "", file=NOT_INCLUDED, file_name="permit.pdf", file_size=88_000,
            mime_type="application/pdf"),
    ]
    result = {"name": "Lia Moreau", "type": "personal_chat", "id": 1007, "messages": messages}
    (folder / "result.json").write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n",
                                        encoding="utf-8")
    return folder


# ------------------------------------------------------------------------------ SMS Backup & Restore


def build_sms(root: Path) -> Path:
    from android_sms_builders import ANNA, COMMENT, SAM, _write, mms, text_part

    def part(name: str, ct: str, data: bytes | None) -> dict[str, str]:
        p = {"seq": "0", "ct": ct, "name": name, "chset": "null", "cd": "null", "fn": "null",
             "cid": f"<{name}>", "cl": name, "ctt_s": "null", "ctt_t": "null", "text": "null"}
        if data is not None:
            p["data"] = base64.b64encode(data).decode()
        return p

    files = {"image": ("image/jpeg", photo("trail")), "video": ("video/mp4", VIDEO),
             "audio": ("audio/amr", AMR), "document": ("text/x-vcard", VCARD)}
    items, n = [], 0
    for kind, (present, missing) in EXPECTED["sms"].items():
        ct, data = files[kind]
        for name, body in ((present, data), (missing, None)):
            n += 1
            items.append(mms(60 + n, 1, ANNA, "Anna Berg", [part(name, ct, body), text_part(f"{kind} {n}")],
                             [(ANNA, 137), (SAM, 151)]))
    return _write(root / "sms-20240406120000.xml", "smses", items, COMMENT)


# ------------------------------------------------------------------------------ Messenger


def build_meta(root: Path) -> Path:
    from meta_builders import m, thread, write

    top = root / "facebook-samrivera-2024-04-06"
    rel = "messages/inbox/annaberg_10158"
    folder = top / rel
    media = {"image": ("photos", photo("trail")), "video": ("videos", VIDEO),
             "audio": ("audio", M4A), "document": ("files", packing_list())}
    fields = {"image": "photos", "video": "videos", "audio": "audio_files", "document": "files"}
    messages = []
    for i, (kind, (present, missing)) in enumerate(EXPECTED["meta"].items()):
        sub, data = media[kind]
        _put(folder / sub / present, data)
        for j, name in enumerate((present, missing)):
            item = {"uri": f"{rel}/{sub}/{name}", "creation_timestamp": 1712390400 + i * 60 + j}
            messages.append(m(60 + 2 * i + j, "Anna Berg" if j == 0 else "Sam Rivera",
                              type="Generic", **{fields[kind]: [item]}))
    write(folder / "message_1.json", thread("Anna Berg", ["Anna Berg", "Sam Rivera"], messages,
                                            "inbox/annaberg_10158", thread_type="Regular"))
    return top


# ------------------------------------------------------------------------------ Signal phone export


def build_signal_phone(root: Path) -> Path:
    from signal_builders import at
    from signal_export_builders import CHAT, R_ANNA, SELF, Files, _header

    folder = root / "signal-export-2024-04-06"
    folder.mkdir(parents=True, exist_ok=True)
    files = Files(folder)
    data = {"image": ("image/jpeg", photo("trail")), "video": ("video/mp4", VIDEO),
            "audio": ("audio/mp4", M4A), "document": ("application/pdf", packing_list())}
    frames = _header()
    frames.append({"chat": {"id": str(CHAT[R_ANNA]), "recipientId": str(R_ANNA), "expireTimerVersion": 1}})
    n = 0
    for kind, (present, missing) in EXPECTED["signal-phone"].items():
        ct, body = data[kind]
        for name in (present, missing):
            n += 1
            content = body if name == present else body + name.encode()  # its own media name
            # the photo's caption is the attachment's own text, not the message's
            more = {"caption": "Sunrise over the Brocken ridge"} if name == "summit.jpg" else {}
            pointer = files.pointer(name, ct, content, **more)
            if name == missing:  # never downloaded: the export lists it without a file
                plain = base64.b64decode(pointer["locatorInfo"]["plaintextHash"])
                key = base64.b64decode(pointer["locatorInfo"]["localKey"])
                media = hashlib.sha256(plain + key).hexdigest()
                (files.folder / media[:2] / media).unlink()
            voice = kind == "audio"
            frames.append({"chatItem": {
                "chatId": str(CHAT[R_ANNA]), "authorId": str(R_ANNA if n % 2 else SELF),
                "dateSent": str(at(600 + n)),
                **({"incoming": {"dateReceived": str(at(600 + n) + 900), "read": True}} if n % 2 else
                   {"outgoing": {"sendStatus": [{"recipientId": str(R_ANNA), "delivered": {}}]}}),
                "standardMessage": {"text": {"body": f"{kind} {n}"}, "attachments": [{
                    "pointer": pointer, "flag": "VOICE_MESSAGE" if voice else "NONE",
                    "wasDownloaded": name == present}]}}})
    with (folder / "main.jsonl").open("w", encoding="utf-8", newline="\n") as f:
        for frame in frames[1:]:
            f.write(json.dumps(frame, ensure_ascii=False) + "\n")
    (folder / "metadata.json").write_text(json.dumps(frames[0], indent=2) + "\n", encoding="utf-8")
    return folder


# ------------------------------------------------------------------------------ signal-export


def build_sigexport(root: Path) -> Path:
    chat = root / "Anna Berg"
    (chat / "media").mkdir(parents=True, exist_ok=True)
    data = {"image": photo("trail"), "video": VIDEO, "audio": M4A, "document": packing_list()}
    lines, md = [], []
    for i, (kind, (present, missing)) in enumerate(EXPECTED["sigexport"].items()):
        for j, name in enumerate((present, missing)):
            when = minutes(2 * i + j)
            stamp = when.strftime("%Y-%m-%dT%H-%M-%S.000")
            exported = f"{stamp}_00_{name}"
            if j == 0:
                _put(chat / "media" / exported, data[kind])
            lines.append({"date": when.strftime("%Y-%m-%dT%H:%M:%S"),
                          "sender": "Anna Berg" if j == 0 else "Me", "body": f"{kind} {j}  ",
                          "quote": "", "sticker": None, "reactions": [],
                          "attachments": [{"name": exported, "path": f"media/{exported}",
                                           "missing_kind": None}],
                          "deleted": False, "call": False, "missed": False})
            md.append(f"[{when:%Y-%m-%d %H:%M}] {lines[-1]['sender']}: {kind} {j}  \n"
                      f"![{exported}](./media/{exported})  \n")
    (chat / "data.json").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                                    encoding="utf-8")
    (chat / "chat.md").write_text("".join(md), encoding="utf-8")
    return root


# ------------------------------------------------------------------------------ WhatsApp


def build_whatsapp(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    data = {"image": photo("trail"), "video": VIDEO, "audio": OGG, "document": packing_list()}
    lines = ["[4/6/24, 10:00:00 AM] Anna Berg: Files from the weekend"]
    n = 0
    for kind, (present, missing) in EXPECTED["whatsapp"].items():
        _put(root / present, data[kind])
        for name in (present, missing):
            n += 1
            lines.append(f"[4/6/24, 10:{n:02d}:00 AM] Anna Berg: \u200e<attached: {name}>")
    path = root / "WhatsApp Chat with Anna Berg.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# ------------------------------------------------------------------------------ iMessage


def build_imessage(root: Path) -> Path:
    from imessage_builders import ANNA, GEN_2023, ChatDbBuilder, attachment_body

    root.mkdir(parents=True, exist_ok=True)
    db = ChatDbBuilder(root / "chat.db", GEN_2023, page_size=512)
    anna = db.handle(ANNA)
    one = db.chat("iMessage;-;" + ANNA, [anna], ANNA, group=False)
    data = {"image": ("image/jpeg", "public.jpeg", photo("trail")),
            "video": ("video/quicktime", "com.apple.quicktime-movie", VIDEO),
            "audio": ("audio/x-caf", "com.apple.coreaudio-format", b"caff\x00\x01\x00\x00" + bytes(32)),
            "document": ("application/pdf", "com.adobe.pdf", packing_list())}
    n = 0
    for kind, (present, missing) in EXPECTED["imessage"].items():
        mime, uti, body = data[kind]
        for name in (present, missing):
            n += 1
            guid = f"F1000000-0000-4000-8000-{n:012d}"
            folder = f"{n:02x}/{n:02d}/AT{n:04d}"
            if name == present:
                _put(root / "Attachments" / folder / name, body)
            rowid = db.message(guid, minutes(n), one, anna, text="\ufffc",
                               body=attachment_body("", f"at_0_{guid}"))
            db.attachment(rowid, f"at_0_{guid}", f"~/Library/Messages/Attachments/{folder}/{name}",
                          mime, name, len(body), uti)
    db.close()
    return root / "chat.db"


# ------------------------------------------------------------------------------ Signal Desktop


def build_signal_desktop(root: Path) -> Path:
    from signal_builders import ANNA, Msg, _msg_id, at, build_database

    data = {"image": ("image/jpeg", photo("trail")), "video": ("video/mp4", VIDEO),
            "audio": ("audio/mp4", M4A), "document": ("application/pdf", packing_list())}
    messages, n = [], 0
    for kind, (present, missing) in EXPECTED["signal-desktop"].items():
        ct, body = data[kind]
        for name in (present, missing):
            n += 1
            relative = f"{n:02x}/{n:02x}attach{n:04d}"
            if name == present:  # newer Signal Desktop: encrypted on disk with the record's key
                _put(root / "attachments.noindex" / relative, signal_encrypt(body))
            messages.append(Msg(_msg_id(900 + n), ANNA.conv, "incoming", at(900 + n), f"{kind} {n}", ANNA,
                                attachments=[{"contentType": ct, "size": len(body), "fileName": name,
                                              "path": relative, "localKey": SIGNAL_FIXTURE_KEY,
                                              "version": 2}]))
    (root / "sql").mkdir(parents=True, exist_ok=True)
    path = build_database(root / "sql" / "db.sqlite", "new", messages)
    shutil.rmtree(root / "sql" / "attachments.noindex")  # the standard scenario's files: not ours
    return path


BUILDERS = {
    "telegram": build_telegram, "sms": build_sms, "meta": build_meta,
    "signal-phone": build_signal_phone, "sigexport": build_sigexport, "whatsapp": build_whatsapp,
    "imessage": build_imessage, "signal-desktop": build_signal_desktop,
}


def build_all(folder: Path) -> None:
    for name, build in BUILDERS.items():
        shutil.rmtree(folder / name, ignore_errors=True)
        build(folder / name)
