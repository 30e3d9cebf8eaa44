"""Telegram Desktop export: message text (a string, or an array of strings and entity objects)
and service messages (`"type": "service"`, with an `action`) as the text the app shows.

Field names are those Telegram Desktop writes (`Telegram/SourceFiles/export/output/
export_output_json.cpp` in telegramdesktop/tdesktop): `actor`, `action`, `title`, `members`,
`duration_seconds`, `discard_reason`, `period`, `new_title`...
"""

from __future__ import annotations

from typing import Any

from chatmem.importers.words import duration_words

LINK_TYPES = {"link", "text_link"}


def plain_text(value: Any, links: list[str] | None = None) -> str:
    """The text of a message: a string, or parts that are strings or {"type", "text", ...}.

    >>> plain_text(["Look ", {"type": "bold", "text": "here"}, "!"])
    'Look here!'
    >>> found = []; plain_text([{"type": "text_link", "text": "map", "href": "https://x.org"}], found), found
    ('map', ['https://x.org'])
    """
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        return ""
    out = []
    for part in value:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict):
            text = part.get("text")
            out.append(text if isinstance(text, str) else "")
            if links is not None and part.get("type") in LINK_TYPES:
                href = part.get("href") or part.get("text")
                if isinstance(href, str) and href:
                    links.append(href)
    return "".join(out)


def _names(value: Any) -> str:
    names = [n if isinstance(n, str) else "a deleted account" for n in value or []]
    return ", ".join(names) or "someone"


def _you(name: str) -> str:
    return "You" if name == "me" else name


def service_text(msg: dict[str, Any], actor: str) -> str:
    """What Telegram shows for a service message, in English.

    >>> service_text({"action": "invite_members", "members": ["Ben Ortiz"]}, "Anna Berg")
    'Anna Berg added Ben Ortiz'
    >>> service_text({"action": "set_messages_ttl", "period": 86400}, "me")
    'You set messages to disappear after 1 day'
    """
    who = _you(actor)
    action = msg.get("action")
    title = msg.get("title") or ""
    if action == "create_group":
        return f"{who} created the group “{title}”"
    if action == "create_channel":
        return f"{who} created the channel “{title}”"
    if action == "edit_group_title":
        return f"{who} changed the group name to “{title}”"
    if action == "edit_group_photo":
        return f"{who} changed the group photo"
    if action == "delete_group_photo":
        return f"{who} removed the group photo"
    if action == "invite_members":
        return f"{who} added {_names(msg.get('members'))}"
    if action == "remove_members":
        members = _names(msg.get("members"))
        return f"{who} left the group" if members == actor else f"{who} removed {members}"
    if action == "join_group_by_link":
        return f"{who} joined the group via invite link"
    if action == "join_group_by_request":
        return f"{who} was accepted into the group"
    if action == "migrate_to_supergroup" or action == "migrate_from_group":
        return "The group was upgraded to a supergroup"
    if action == "pin_message":
        return f"{who} pinned a message"
    if action == "clear_history":
        return "History was cleared"
    if action == "set_messages_ttl":
        period = msg.get("period") or msg.get("period_seconds") or 0
        return (f"{who} set messages to disappear after {duration_words(period)}" if period
                else f"{who} turned off disappearing messages")
    if action == "topic_created":
        return f"{who} created the topic “{title}”"
    if action == "topic_edit":
        return f"{who} renamed the topic to “{msg.get('new_title') or ''}”"
    if action == "joined_telegram":
        return f"{who} joined Telegram"
    if action == "take_screenshot":
        return f"{who} took a screenshot"
    if action == "edit_chat_theme":
        return f"{who} changed the chat theme"
    if action == "send_payment":
        return f"Payment of {msg.get('amount', '')} {msg.get('currency', '')}".strip()
    if action == "invite_to_group_call":
        return f"{who} invited {_names(msg.get('members'))} to the voice chat"
    if action == "group_call_scheduled":
        return f"{who} scheduled a voice chat"
    if isinstance(msg.get("information_text"), str):
        return msg["information_text"]
    return f"{who}: {action or 'service message'}".replace("_", " ")
