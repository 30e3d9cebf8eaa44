"""Signal Desktop rows that are not plain messages: calls and service (system) messages.

`Names` is how these turn a service id, e164 or conversation id into what the user sees.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chatmem.importers.words import duration_words

Names = Callable[[Any], str]  # service id / e164 / conversation id → display name ("me")

# ------------------------------------------------------------------------------------ calls

# callsHistory (Signal Desktop 6.x+, schema ~88 on): direction and status are enums as text.
CALL_INCOMING, CALL_OUTGOING = "Incoming", "Outgoing"
UNANSWERED_STATUSES = {"Missed", "Declined", "MissedNotificationProfile", "NotAccepted"}
ANSWERED_STATUSES = {"Accepted", "Joined"}
VIDEO_CALL_TYPES = {"Video", "Group", "Adhoc"}  # group calls are video calls in Signal


def call_facts(history: dict[str, Any] | None, details: dict[str, Any] | None) -> dict[str, Any]:
    """direction / media / answered / duration of a call, from whichever record the schema has.

    `history` is the callsHistory row (6.x+); `details` the older `json.callHistoryDetails`.
    `started` is the callsHistory time when there is one (else use the message's sent_at).

    >>> call_facts({"direction": "Incoming", "status": "Missed", "type": "Video",
    ...             "timestamp": 1000, "endedTimestamp": None}, None)["direction"]
    'missed'
    >>> call_facts(None, {"wasIncoming": False, "wasVideoCall": False,
    ...                   "acceptedTime": 1000, "endedTime": 61000})["duration"]
    60
    """
    started = None
    if history is not None:
        incoming = history.get("direction") == CALL_INCOMING
        status = history.get("status")
        answered: bool | None = (
            True
            if status in ANSWERED_STATUSES
            else (False if status in UNANSWERED_STATUSES else None)
        )
        media = "video" if history.get("type") in VIDEO_CALL_TYPES else "voice"
        started = history.get("timestamp")
        begin, end = started, history.get("endedTimestamp")
    else:
        details = details or {}
        incoming = bool(details.get("wasIncoming"))
        begin, end = details.get("acceptedTime"), details.get("endedTime")
        if details.get("wasDeclined"):
            answered = False
        elif "acceptedTime" in details:
            answered = bool(begin)
        else:
            answered = None
        video = details.get("wasVideoCall") or details.get("callMode") == "Group"
        media = "video" if video else "voice"
    direction = "outgoing" if not incoming else ("missed" if answered is False else "incoming")
    duration = None
    if answered and begin and end and end >= begin:
        duration = int((end - begin) // 1000)
    return {
        "direction": direction,
        "media": media,
        "answered": answered,
        "started": started,
        "duration": duration,
    }


# ----------------------------------------------------------------------- service messages


def timer_text(seconds: Any) -> str:
    """Disappearing-message timer in words.

    >>> timer_text(604800), timer_text(90), timer_text(0)
    ('1 week', '90 seconds', 'off')
    """
    return duration_words(seconds or 0)


def actor_text(name: str) -> str:
    return "You" if name == "me" else name


def _group_detail(detail: dict[str, Any], who: str, name: Names) -> str:
    kind = detail.get("type")
    member = name(detail.get("aci") or detail.get("uuid") or detail.get("pni"))
    if kind == "create":
        return f"{who} created the group"
    if kind == "title":
        title = detail.get("newTitle")
        return (
            f"{who} changed the group name to “{title}”"
            if title
            else f"{who} removed the group name"
        )
    if kind in (
        "member-add",
        "member-add-from-invite",
        "member-add-from-link",
        "member-add-from-admin-approval",
    ):
        return f"{member} joined the group" if member == who else f"{who} added {actor_text(member)}"
    if kind == "member-remove":
        return f"{member} left the group" if member == who else f"{who} removed {actor_text(member)}"
    if kind == "avatar":
        return f"{who} {'removed' if detail.get('removed') else 'changed'} the group avatar"
    if kind == "description":
        return f"{who} {'removed' if detail.get('removed') else 'changed'} the group description"
    if kind == "member-privilege":
        role = "an admin" if detail.get("newPrivilege") == 2 else "a member"
        return f"{who} made {actor_text(member)} {role}"
    if kind == "pending-add-one":
        return f"{who} invited 1 person to the group"
    if kind == "pending-add-many":
        return f"{who} invited {detail.get('count', 'several')} people to the group"
    if kind == "group-link-add":
        return f"{who} turned on the group link"
    if kind == "group-link-remove":
        return f"{who} turned off the group link"
    if kind == "announcements-only":
        on = detail.get("announcementsOnly")
        return f"{who} {'allowed only admins' if on else 'allowed all members'} to send messages"
    return f"{who} updated the group ({kind})"


def _group_v2_change(data: dict[str, Any], name: Names) -> str:
    change = data.get("groupV2Change") or {}
    who = actor_text(name(change["from"])) if change.get("from") else "A member"
    texts = [_group_detail(d, who, name) for d in change.get("details") or []]
    return "; ".join(texts) or f"{who} updated the group"


def _group_v1_update(data: dict[str, Any], name: Names) -> str:
    update = data.get("group_update") or {}
    parts = []
    if update.get("name"):
        parts.append(f"Group name is now “{update['name']}”")
    if update.get("joined"):
        parts.append(", ".join(actor_text(name(m)) for m in update["joined"]) + " joined the group")
    if update.get("left"):
        parts.append(f"{actor_text(name(update['left']))} left the group")
    return "; ".join(parts) or "The group was updated"


def _timer_change(data: dict[str, Any], name: Names) -> str:
    update = data.get("expirationTimerUpdate") or {}
    src = update.get("sourceServiceId") or update.get("sourceUuid") or update.get("source")
    who = "You" if update.get("fromSync") else (actor_text(name(src)) if src else "Someone")
    timer = update.get("expireTimer")
    if not timer:
        return f"{who} turned off disappearing messages"
    return f"{who} set the disappearing message timer to {timer_text(timer)}"


def _profile_change(data: dict[str, Any], name: Names) -> str:
    change = data.get("profileChange") or {}
    who = actor_text(name(data.get("changedId")))
    if change.get("type") == "name" and change.get("newName"):
        old = change.get("oldName")
        return f"{old or who} changed their profile name to {change['newName']}"
    return f"{who} changed their profile"


def _verified(data: dict[str, Any], name: Names) -> str:
    who = name(data.get("verifiedChanged"))
    state = "verified" if data.get("verified") else "not verified"
    return f"You marked your safety number with {who} as {state}"


REQUEST_RESPONSES = {
    "ACCEPT": "You accepted the message request",
    "BLOCK": "You blocked this chat",
    "UNBLOCK": "You unblocked this chat",
    "SPAM": "You reported this chat as spam",
}

# type → text renderer. Types absent here still import, as "<type in words>".
SYSTEM_TEXT: dict[str, Callable[[dict[str, Any], Names], str]] = {
    "group-v2-change": _group_v2_change,
    "group": _group_v1_update,  # legacy v1 group updates
    "group-v1-migration": lambda d, n: "This group was upgraded to a New Group",
    "keychange": lambda d, n: f"Your safety number with {n(d.get('key_changed'))} has changed",
    "verified-change": _verified,
    "profile-change": _profile_change,
    "timer-notification": _timer_change,
    "change-number-notification": lambda d, n: (
        f"{n(d.get('sourceServiceId') or d.get('sourceUuid') or d.get('source'))} changed their phone number"
    ),
    "chat-session-refreshed": lambda d, n: "Chat session refreshed",
    "delivery-issue": lambda d, n: "A message could not be delivered",
    "conversation-merge": lambda d, n: (
        "Message histories of two chats with this person were merged"
    ),
    "phone-number-discovery": lambda d, n: "A phone number was linked to this chat",
    "joined-signal-notification": lambda d, n: "This person joined Signal",
    "universal-timer-notification": lambda d, n: "Default disappearing message timer set",
    "contact-removed-notification": lambda d, n: "You removed this person",
    "title-transition-notification": lambda d, n: "The chat's title changed",
    "message-history-unsynced": lambda d, n: "Earlier messages were not synced to this device",
    "message-request-response-event": lambda d, n: REQUEST_RESPONSES.get(
        str(d.get("messageRequestResponseEvent")), "Message request answered"
    ),
}


def system_text(kind: str, data: dict[str, Any], name: Names) -> str:
    """A readable line for a service message.

    >>> system_text("timer-notification", {"expirationTimerUpdate": {"expireTimer": 604800,
    ...     "sourceServiceId": "a1"}}, lambda s: "Anna Berg")
    'Anna Berg set the disappearing message timer to 1 week'
    >>> system_text("some-new-thing", {}, str)
    'Some new thing'
    """
    render = SYSTEM_TEXT.get(kind)
    if render is None:
        return kind.replace("-", " ").capitalize()
    return render(data, name)


def system_actor(kind: str, data: dict[str, Any]) -> Any:
    """The id of who caused a service message, when the row says."""
    if kind == "group-v2-change":
        return (data.get("groupV2Change") or {}).get("from")
    if kind == "timer-notification":
        update = data.get("expirationTimerUpdate") or {}
        if update.get("fromSync"):
            return "me"
        return update.get("sourceServiceId") or update.get("sourceUuid") or update.get("source")
    if kind == "profile-change":
        return data.get("changedId")
    return None
