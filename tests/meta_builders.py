"""Meta "Download your information" message files (Messenger, Instagram) for tests and
fixtures, written as Meta writes them: UTF-8 escaped as Latin-1 code points, newest message
first, long threads split into message_1.json, message_2.json... (fictional people; the owner
is Sam Rivera).

- `build_messenger_small(root)`: the older layout, one 1:1 thread (messages/inbox/<thread>/).
- `build_messenger_full(root)`: the current layout (your_activity_across_facebook/messages/...):
  a 1:1 thread over two files with photos, a share, reactions, a call, a missed call, an unsent
  message, a sticker, and a group thread with people joining and leaving.
- `build_messenger_2025(root)`: the 2025 layout (your_facebook_activity/messages/...): a thread
  with videos (and their thumbnails), voice clips, gifs, files and a group video call, an
  archived thread, and a thread in e2ee_cutover/ (what was said before the chat became end-to-end
  encrypted, in the ordinary layout).
- `build_instagram(root)`: your_instagram_activity/messages/inbox/<thread>/message_1.json.
- `build_messenger_e2ee(root)`: the end-to-end encrypted Messenger download: one flat camelCase
  file per thread (`<name>_<n>.json`), its media in `media/` beside it.

Where each field was seen in public material: importers/SOURCES.md.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

T0 = datetime(2024, 3, 2, 9, 0, tzinfo=timezone.utc)


def ms(minutes: float) -> int:
    return int((T0 + timedelta(minutes=minutes)).timestamp() * 1000)


def mojibake(obj: Any) -> Any:
    """What Meta does to text: each UTF-8 byte written as the code point of the same number."""
    if isinstance(obj, str):
        return obj.encode("utf-8").decode("latin-1")
    if isinstance(obj, list):
        return [mojibake(x) for x in obj]
    if isinstance(obj, dict):
        return {k: mojibake(v) for k, v in obj.items()}
    return obj


def write(path: Path, data: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    # ensure_ascii: Meta escapes everything outside ASCII as \\u00XX
    path.write_text(json.dumps(mojibake(data), indent=2, ensure_ascii=True) + "\n", encoding="utf-8")
    return path


def m(minutes: float, who: str, content: str | None = None, **more: Any) -> dict:
    out: dict[str, Any] = {"sender_name": who, "timestamp_ms": ms(minutes)}
    if content is not None:
        out["content"] = content
    out.update(more)
    out.setdefault("is_geoblocked_for_viewer", False)
    return out


def thread(title: str, people: list[str], messages: list[dict], path: str, **more: Any) -> dict:
    return {"participants": [{"name": p} for p in people],
            "messages": sorted(messages, key=lambda x: -x["timestamp_ms"]),  # newest first
            "title": title, "is_still_participant": True, "thread_path": path,
            "magic_words": [], **more}


def build_messenger_small(root: Path) -> Path:
    folder = root / "messages" / "inbox" / "annaberg_10158"
    write(folder / "message_1.json", thread("Anna Berg", ["Anna Berg", "Sam Rivera"], [
        m(0, "Anna Berg", "Café at 9? ☕", type="Generic"),
        m(1, "Sam Rivera", "Sí, perfecto! 👍", type="Generic"),
        m(2, "Anna Berg", "Schön 😀", type="Generic",
          reactions=[{"reaction": "❤", "actor": "Sam Rivera"}]),
    ], "inbox/annaberg_10158", thread_type="Regular"))
    return folder


def build_messenger_full(root: Path) -> list[Path]:
    base = root / "your_activity_across_facebook" / "messages" / "inbox"
    lia = base / "liamoreau_20771"
    photo = "your_activity_across_facebook/messages/inbox/liamoreau_20771/photos/10234_n.jpg"
    (root / photo).parent.mkdir(parents=True, exist_ok=True)
    (root / photo).write_bytes(b"\xff\xd8photo")
    newer = [
        m(40, "Lia Moreau", "Here's the wall", photos=[{"uri": photo, "creation_timestamp": ms(40) // 1000}]),
        m(41, "Sam Rivera", None, share={"link": "https://example.org/topo", "share_text": "Topo"}),
        m(42, "Lia Moreau", "Lia called you.", call_duration=95),
        m(43, "Sam Rivera", "You called Lia.", call_duration=0),
        m(44, "Lia Moreau", "Lia Moreau unsent a message.", is_unsent=True),
        m(45, "Sam Rivera", None, sticker={"uri": "your_activity_across_facebook/messages/stickers_used/3694.png"}),
        m(46, "Lia Moreau", "Große Klasse, à bientôt! 🧗‍♀️",
          reactions=[{"reaction": "😆", "actor": "Sam Rivera"}, {"reaction": "❤", "actor": "Tom Becker"}]),
    ]
    older = [
        m(30, "Lia Moreau", "Climbing tonight?"),
        m(31, "Sam Rivera", "Yes, 7pm"),
        m(32, "Lia Moreau", "Yes, 7pm"),
    ]
    people = ["Lia Moreau", "Sam Rivera"]
    paths = [write(lia / "message_1.json", thread("Lia Moreau", people, newer, "inbox/liamoreau_20771")),
             write(lia / "message_2.json", thread("Lia Moreau", people, older, "inbox/liamoreau_20771"))]
    crew = base / "climbingcrew_99812"
    paths.append(write(crew / "message_1.json", thread(
        "Climbing Crew", ["Lia Moreau", "Tom Becker", "Sam Rivera"], [
            m(50, "Sam Rivera", "Sam Rivera created the group."),
            m(51, "Tom Becker", "Tom Becker joined the group.", type="Subscribe", users=[{"name": "Tom Becker"}]),
            m(52, "Tom Becker", "Hi crew"),
            m(53, "Lia Moreau", "Lia Moreau left the group.", type="Unsubscribe", users=[{"name": "Lia Moreau"}]),
        ], "inbox/climbingcrew_99812", thread_type="RegularGroup")))
    return paths


def build_instagram(root: Path) -> Path:
    folder = root / "your_instagram_activity" / "messages" / "inbox" / "tombecker_17843"
    return write(folder / "message_1.json", thread("Tom Becker", ["Tom Becker", "Sam Rivera"], [
        m(60, "Tom Becker", "Saw your post from the crag 🔥"),
        m(61, "Sam Rivera", None, share={"link": "https://www.instagram.com/p/Cx1/",
                                         "original_content_owner": "crag.daily"}),
        m(62, "Tom Becker", "Liked a message", reactions=[{"reaction": "❤️", "actor": "Sam Rivera"}]),
    ], "inbox/tombecker_17843"))


def build_messenger_2025(root: Path) -> list[Path]:
    base = root / "your_facebook_activity" / "messages"
    chloe = base / "inbox" / "chloedubois_31337"
    rel = "your_facebook_activity/messages/inbox/chloedubois_31337"
    for name, data in (("videos/2291_n.mp4", b"\x00\x00\x00\x18ftypmp42"),
                       ("photos/2291_thumb.jpg", b"\xff\xd8thumb"),
                       ("audio/audioclip1709370000.mp4", b"\x00\x00\x00\x18ftypM4A "),
                       ("gifs/dance.gif", b"GIF89a"), ("files/topo-north-face.pdf", b"%PDF-1.4 topo")):
        (root / rel / name).parent.mkdir(parents=True, exist_ok=True)
        (root / rel / name).write_bytes(data)
    paths = [write(chloe / "message_1.json", thread("Chloé Dubois", ["Chloé Dubois", "Sam Rivera"], [
        m(80, "Chloé Dubois", "Regarde ça !", videos=[{
            "uri": f"{rel}/videos/2291_n.mp4", "creation_timestamp": ms(80) // 1000,
            "thumbnail": {"uri": f"{rel}/photos/2291_thumb.jpg"}}]),
        m(81, "Sam Rivera", None, audio_files=[{"uri": f"{rel}/audio/audioclip1709370000.mp4",
                                                 "creation_timestamp": ms(81) // 1000}]),
        m(82, "Chloé Dubois", None, gifs=[{"uri": f"{rel}/gifs/dance.gif"}]),
        m(83, "Sam Rivera", None, files=[{"uri": f"{rel}/files/topo-north-face.pdf",
                                           "creation_timestamp": ms(83) // 1000}]),
        m(84, "Chloé Dubois", "The video call ended.", call_duration=312),
        m(85, "Chloé Dubois", "You missed a call from Chloé.", call_duration=0),
        m(86, "Sam Rivera", "Merci, à samedi 🧗",
          reactions=[{"reaction": "😍", "actor": "Chloé Dubois"}]),
    ], "inbox/chloedubois_31337", joinable_mode={"mode": 1, "link": ""}))]
    paths.append(write(base / "archived_threads" / "bennyortiz_4242" / "message_1.json", thread(
        "Ben Ortiz", ["Ben Ortiz", "Sam Rivera"], [
            m(90, "Ben Ortiz", "Old plans, archived"),
            m(91, "Sam Rivera", "Still on for spring?"),
        ], "archived_threads/bennyortiz_4242", is_still_participant=True)))
    paths.append(write(base / "e2ee_cutover" / "annaberg_10158" / "message_1.json", thread(
        "Anna Berg", ["Anna Berg", "Sam Rivera"], [
            m(92, "Anna Berg", "Before the switch to encryption"),
            m(93, "Sam Rivera", "Noted ✔"),
        ], "e2ee_cutover/annaberg_10158")))
    return paths


def build_messenger_e2ee(root: Path) -> Path:
    folder = root / "your_facebook_activity" / "messages"
    path = folder / "annaberg_1.json"
    (folder / "media").mkdir(parents=True, exist_ok=True)
    (folder / "media" / "5c2a9e.jpeg").write_bytes(b"\xff\xd8e2ee")
    data = {"participants": ["Anna Berg", "Sam Rivera"], "threadName": "Anna Berg", "messages": [
        {"isUnsent": False, "media": [], "reactions": [], "senderName": "Anna Berg",
         "text": "Encrypted chats export too — café ☕", "timestamp": ms(70), "type": "Generic"},
        {"isUnsent": False, "media": [{"uri": "./media/5c2a9e.jpeg"}], "reactions": [
            {"actor": "Anna Berg", "reaction": "👍"}], "senderName": "Sam Rivera", "text": "",
         "timestamp": ms(71), "type": "Generic"},
        {"isUnsent": True, "media": [], "reactions": [], "senderName": "Anna Berg", "text": "",
         "timestamp": ms(72), "type": "Generic"},
    ]}
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
