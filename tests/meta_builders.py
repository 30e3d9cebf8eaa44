"""Meta "Download your information" message files (Messenger, Instagram) for tests and
fixtures, written as Meta writes them: UTF-8 escaped as Latin-1 code points, newest message
first, long threads split into message_1.json, message_2.json... (fictional people; the owner
is Sam Rivera).

- `build_messenger_small(root)`: the older layout, one 1:1 thread (messages/inbox/<thread>/).
- `build_messenger_full(root)`: the current layout (your_activity_across_facebook/messages/...):
  a 1:1 thread over two files with photos, a share, reactions, a call, a missed call, an unsent
  message, a sticker, and a group thread with people joining and leaving.
- `build_instagram(root)`: your_instagram_activity/messages/inbox/<thread>/message_1.json.
- `build_messenger_e2ee(root)`: the end-to-end encrypted Messenger layout (camelCase, real UTF-8).
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


def build_messenger_e2ee(root: Path) -> Path:
    path = root / "messages" / "e2ee_cutover" / "annaberg_10158" / "message_1.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"participants": ["Anna Berg", "Sam Rivera"], "threadName": "Anna Berg", "messages": [
        {"isUnsent": False, "media": [], "reactions": [], "senderName": "Anna Berg",
         "text": "Encrypted chats export too — café ☕", "timestamp": ms(70), "type": "text"},
        {"isUnsent": False, "media": [{"uri": "./media/photo_1.jpg"}], "reactions": [
            {"actor": "Anna Berg", "reaction": "👍"}], "senderName": "Sam Rivera", "text": "",
         "timestamp": ms(71), "type": "media"},
    ]}
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
