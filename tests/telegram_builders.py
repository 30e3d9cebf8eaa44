"""Telegram Desktop JSON exports (`result.json` and its media folders) for tests and fixtures,
written the way Telegram Desktop writes them (fictional people; the owner is Sam Rivera).

- `build_chat_export(folder)`: "Export chat history" of one personal chat (small).
- `build_account_export(folder)`: "Export Telegram data" with personal information, contacts,
  chats (a personal chat with every kind of message, a forum group with topics, saved
  messages) and left chats (a channel).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

BERLIN = timezone(timedelta(hours=1))  # the exporting machine's zone, for the local `date`
T0 = datetime(2024, 3, 2, 9, 0, tzinfo=timezone.utc)
SAM, LIA, TOM, CHLOE = "user1000", "user1007", "user1008", "user1009"
NAMES = {SAM: "Sam Rivera", LIA: "Lia Moreau", TOM: "Tom Becker", CHLOE: "Chloé Dubois"}
LIA_CHAT, FORUM, CHANNEL = 1007, 1788001122, 1899003344
NOT_INCLUDED = "(File not included. Change data exporting settings to download.)"


def stamp(minutes: float) -> dict[str, str]:
    when = T0 + timedelta(minutes=minutes)
    return {"date": when.astimezone(BERLIN).replace(tzinfo=None).isoformat(),
            "date_unixtime": str(int(when.timestamp()))}


def reacted(who: str, minutes: float) -> dict[str, str]:
    """One of a reaction's `recent` list: who and when, `date` only (local time, no unixtime)."""
    return {"from": NAMES[who], "from_id": who, "date": stamp(minutes)["date"]}


def text_entities(text: Any) -> list[dict]:
    if isinstance(text, str):
        return [{"type": "plain", "text": text}] if text else []
    return [p if isinstance(p, dict) else {"type": "plain", "text": p} for p in text]


def msg(mid: int, minutes: float, who: str, text: Any = "", **more: Any) -> dict:
    out = {"id": mid, "type": "message", **stamp(minutes), "from": NAMES[who], "from_id": who, **more}
    out["text"] = text
    out["text_entities"] = text_entities(text)
    return out


def service(mid: int, minutes: float, who: str, action: str, **more: Any) -> dict:
    return {"id": mid, "type": "service", **stamp(minutes), "actor": NAMES[who], "actor_id": who,
            "action": action, **more, "text": "", "text_entities": []}


def write_file(folder: Path, relative: str, data: bytes) -> str:
    target = folder / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return relative


def lia_messages(folder: Path, full: bool) -> list[dict]:
    """The personal chat with Lia Moreau; `full` adds one message of every other kind."""
    out = [
        msg(1, 0, LIA, "Are you coming to the climbing gym tonight?"),
        msg(2, 1, SAM, ["Yes! ", {"type": "bold", "text": "7pm"}, " works"],
            reactions=[{"type": "emoji", "count": 1, "emoji": "👍",
                        "recent": [reacted(LIA, 2)]}]),
        msg(3, 3, LIA, "Great, see you there", reply_to_message_id=2),
        msg(4, 5, SAM, "Bringing the new rope", edited=stamp(6)["date"],
            edited_unixtime=stamp(6)["date_unixtime"]),
        service(5, 10, LIA, "phone_call", duration_seconds=95, discard_reason="hangup"),
        service(6, 20, SAM, "phone_call", discard_reason="missed"),
        msg(7, 30, LIA, "The wall after the reset",
            photo=write_file(folder, "photos/photo_1@02-03-2024_10-30-00.jpg", b"\xff\xd8wall"),
            photo_file_size=6, width=1280, height=960),
    ]
    if not full:
        return out
    return out + [
        msg(8, 40, LIA, "", file=write_file(folder, "files/route.pdf", b"%PDF-1.4 route"),
            file_name="route.pdf", file_size=14, mime_type="application/pdf"),
        msg(9, 41, SAM, "", file=NOT_INCLUDED, file_name="big-video.mp4", file_size=91234567,
            media_type="video_file", mime_type="video/mp4", duration_seconds=64),
        msg(10, 42, LIA, "", file=write_file(folder, "voice_messages/audio_1@02-03-2024_10-42-00.ogg",
                                              b"OggS voice"),
            media_type="voice_message", mime_type="audio/ogg", duration_seconds=7),
        msg(11, 43, SAM, "", file=NOT_INCLUDED, media_type="sticker", sticker_emoji="🧗"),
        msg(12, 44, LIA, "", location_information={"latitude": 52.52, "longitude": 13.405},
            place_name="Boulderhalle", address="Am Gleis 1, Berlin"),
        msg(13, 45, LIA, "", contact_information={"first_name": "Tom", "last_name": "Becker",
                                                  "phone_number": "+1 555 010 0008"}),
        msg(14, 46, SAM, "", poll={"question": "Which day next week?", "closed": False,
                                   "total_voters": 2, "answers": [
                                       {"text": "Tuesday", "voters": 1, "chosen": True},
                                       {"text": "Thursday", "voters": 1, "chosen": False}]}),
        msg(15, 47, LIA, ["Route info: ", {"type": "text_link", "text": "topo",
                                           "href": "https://example.org/topo"},
                          " and ", {"type": "link", "text": "https://example.org/gym"}]),
        msg(16, 48, LIA, "Forwarding this from Tom", forwarded_from=NAMES[TOM]),
        msg(17, 49, SAM, "Nice, thanks", reply_to_message_id=16,
            reactions=[{"type": "emoji", "count": 2, "emoji": "❤️",
                        "recent": [reacted(LIA, 50)]},
                       {"type": "custom_emoji", "count": 1, "document_id": "5368324170671202286"}]),
        msg(18, 51, LIA, "", photo=NOT_INCLUDED, self_destruct_period_seconds=10),
        # a video with its thumbnail, shown blurred (a spoiler); the thumbnail is no second file
        msg(19, 52, LIA, "Spoiler: we made it", file=NOT_INCLUDED, file_name="summit.mp4",
            file_size=48213377, thumbnail=write_file(folder, "video_files/summit.mp4_thumb.jpg", b"\xff\xd8th"),
            thumbnail_file_size=5, media_type="video_file", mime_type="video/mp4", duration_seconds=31,
            width=1920, height=1080, media_spoiler=True),
        service(20, 53, SAM, "pin_message", message_id=19),
        # a reply to a message of another chat (the channel): kept as a reference, not a link
        msg(21, 54, LIA, "Did you see this closure?", reply_to_message_id=301,
            reply_to_peer_id=f"channel{CHANNEL}"),
        # a bot's message with buttons under it
        msg(22, 55, LIA, "Weather for Saturday: dry", via_bot="@weatherbot",
            inline_bot_buttons=[[{"type": "url", "text": "Forecast", "data": "https://example.org/wx"}]]),
    ]


def forum_messages() -> list[dict]:
    """A forum supergroup: topics, replies inside them, a group call, members joining."""
    return [
        service(101, 60, SAM, "create_group", title="Climbing Forum", members=[NAMES[LIA], NAMES[CHLOE]]),
        service(102, 61, SAM, "topic_created", title="Gear"),
        service(103, 62, SAM, "topic_created", title="Trips"),
        msg(104, 63, CHLOE, "Anyone selling a harness?", reply_to_message_id=102),
        msg(105, 64, LIA, "I have a spare one", reply_to_message_id=104),
        msg(106, 65, SAM, "Font trip in May?", reply_to_message_id=103),
        msg(107, 66, CHLOE, "Welcome everyone!"),
        # an account deleted since: `from` is null, its id stays
        {"id": 113, "type": "message", **stamp(66.5), "from": None, "from_id": "user1010",
         "text": "Count me in for Font", "text_entities": [{"type": "plain", "text": "Count me in for Font"}],
         "reply_to_message_id": 103},
        service(108, 67, LIA, "group_call", duration=600),
        service(109, 68, CHLOE, "invite_members", members=[NAMES[TOM], None]),
        service(110, 69, SAM, "set_messages_ttl", period=604800),
        service(111, 70, SAM, "topic_edit", new_title="Trips 2024", reply_to_message_id=103),
        msg(112, 71, TOM, "Thanks for adding me", reply_to_message_id=109),
    ]


def build_chat_export(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    result = {"name": NAMES[LIA], "type": "personal_chat", "id": LIA_CHAT,
              "messages": lia_messages(folder, full=False)}
    return _write(folder, result)


def build_account_export(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    result = {
        "about": "Here is the data you requested. Remember: Telegram is ad free, it doesn't use "
                 "your data for ad targeting and doesn't sell it to others.",
        "personal_information": {"user_id": 1000, "first_name": "Sam", "last_name": "Rivera",
                                 "phone_number": "+1 555 010 0000", "username": "@samrivera"},
        "contacts": {"about": "This is your contacts list.", "list": [
            {"user_id": 1007, "first_name": "Lia", "last_name": "Moreau",
             "phone_number": "+1 555 010 0007", **stamp(-9999)},
            {"user_id": 1008, "first_name": "Tom", "last_name": "Becker",
             "phone_number": "+1 555 010 0008", **stamp(-9000)}]},
        "chats": {"about": "This page lists all chats from this export.", "list": [
            {"name": NAMES[LIA], "type": "personal_chat", "id": LIA_CHAT,
             "messages": lia_messages(folder, full=True)},
            {"name": "Climbing Forum", "type": "private_supergroup", "id": FORUM,
             "messages": forum_messages()},
            {"type": "saved_messages", "id": 1000, "messages": [
                msg(201, 80, SAM, "Shoe size 42.5 for the new climbing shoes")]},
        ]},
        "left_chats": {"about": "This page lists all supergroups and channels from this export "
                                "that you've left.", "list": [
            {"name": "Trail Conditions", "type": "public_channel", "id": CHANNEL, "messages": [
                {"id": 301, "type": "message", **stamp(90), "from": "Trail Conditions",
                 "from_id": f"channel{CHANNEL}", "author": "Ranger Jo",
                 "text": "North face route closed until April", "text_entities": []}]},
        ]},
    }
    return _write(folder, result)


def _write(folder: Path, result: dict) -> Path:
    path = folder / "result.json"
    path.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path
