"""Tapbacks and group events: what `associated_message_type` and `item_type` mean.

>>> tapback_emoji(2000, None), tapback_emoji(3006, "🎉"), tapback_emoji(2007, None)
(('❤️', False), ('🎉', True), ('sticker', False))
>>> group_event_text(group_event(1, 0), "me", "+15550100002", "")
'me added +15550100002'
"""

from __future__ import annotations

# associated_message_type: tapbacks 2000-2007, their removals 3000-3007.
TAPBACK_LOVE = 2000
TAPBACK_LIKE = 2001
TAPBACK_DISLIKE = 2002
TAPBACK_LAUGH = 2003
TAPBACK_EMPHASIZE = 2004
TAPBACK_QUESTION = 2005
TAPBACK_EMOJI = 2006  # the emoji is in associated_message_emoji
TAPBACK_STICKER = 2007
TAPBACK_REMOVED_OFFSET = 1000  # 3000 removes 2000, ...
TAPBACK_KINDS = frozenset(range(TAPBACK_LOVE, TAPBACK_STICKER + 1)) | frozenset(
    range(TAPBACK_LOVE + TAPBACK_REMOVED_OFFSET, TAPBACK_STICKER + TAPBACK_REMOVED_OFFSET + 1)
)
TAPBACK_EMOJI_TEXT = {  # the classic six, and stickers
    TAPBACK_LOVE: "❤️",
    TAPBACK_LIKE: "👍",
    TAPBACK_DISLIKE: "👎",
    TAPBACK_LAUGH: "😂",
    TAPBACK_EMPHASIZE: "‼️",
    TAPBACK_QUESTION: "❓",
    TAPBACK_STICKER: "sticker",
}

# (item_type, group_action_type) of group events; item_type 2 is a rename whatever the action.
ITEM_PARTICIPANT = 1
ITEM_RENAME = 2
ITEM_GROUP_ACTION = 3
GROUP_EVENTS = {
    (ITEM_PARTICIPANT, 0): "added",
    (ITEM_PARTICIPANT, 1): "removed",
    (ITEM_GROUP_ACTION, 0): "left",
    (ITEM_GROUP_ACTION, 1): "icon_changed",
    (ITEM_GROUP_ACTION, 2): "icon_removed",
}
CUSTOM_EMOJI_UNKNOWN = "?"  # a 2006 row without associated_message_emoji


def tapback_target(associated_guid: str) -> str:
    """'p:0/GUID' or 'bp:GUID' → 'GUID'.

    >>> tapback_target("p:1/6A1B-22"), tapback_target("bp:6A1B-22"), tapback_target("6A1B")
    ('6A1B-22', '6A1B-22', '6A1B')
    """
    if associated_guid.startswith("p:"):
        return associated_guid.partition("/")[2] or associated_guid
    if associated_guid.startswith("bp:"):
        return associated_guid[3:]
    return associated_guid


def tapback_emoji(kind: int, custom: str | None) -> tuple[str, bool]:
    """associated_message_type (+ associated_message_emoji) → (emoji, removed)."""
    removed = kind >= TAPBACK_LOVE + TAPBACK_REMOVED_OFFSET
    base = kind - TAPBACK_REMOVED_OFFSET if removed else kind
    if base == TAPBACK_EMOJI:
        return custom or CUSTOM_EMOJI_UNKNOWN, removed
    return TAPBACK_EMOJI_TEXT.get(base, CUSTOM_EMOJI_UNKNOWN), removed


def group_event(item_type: int, action: int) -> str | None:
    """(item_type, group_action_type) → 'added', 'renamed', ...; None for other items."""
    if item_type == ITEM_RENAME:
        return "renamed"
    return GROUP_EVENTS.get((item_type, action))


def group_event_text(event: str, actor: str, target: str | None, title: str) -> str:
    """The readable line a group event shows: "me added +1555...", "me left the group"."""
    if event == "added":
        return f"{actor} added {target or 'someone'}"
    if event == "removed":
        return f"{actor} removed {target or 'someone'}"
    if event == "left":
        return f"{actor} left the group"
    if event == "renamed":
        return (
            f"{actor} renamed the group to {title}" if title else f"{actor} removed the group name"
        )
    if event == "icon_changed":
        return f"{actor} changed the group photo"
    return f"{actor} removed the group photo"
