"""Signal export chat items that are not people's messages: update messages as the text the
app shows, and calls as facts. Field and enum names are Backup.proto's (`ChatUpdateMessage`,
`GroupChangeChatUpdate`, `IndividualCall`, `GroupCall`, `SimpleChatUpdate`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .backup_people import as_int, enum_name
from .desktop_events import actor_text, timer_text

Name = Callable[[Any], str]  # base64 ACI → display name ("me" for the owner)

SIMPLE_UPDATES = {  # SimpleChatUpdate.Type
    0: "UNKNOWN", 1: "JOINED_SIGNAL", 2: "IDENTITY_UPDATE", 3: "IDENTITY_VERIFIED",
    4: "IDENTITY_DEFAULT", 5: "CHANGE_NUMBER", 6: "RELEASE_CHANNEL_DONATION_REQUEST",
    7: "END_SESSION", 8: "CHAT_SESSION_REFRESH", 9: "BAD_DECRYPT", 10: "PAYMENTS_ACTIVATED",
    11: "PAYMENT_ACTIVATION_REQUEST", 12: "UNSUPPORTED_PROTOCOL_MESSAGE", 13: "REPORTED_SPAM",
    14: "BLOCKED", 15: "UNBLOCKED", 16: "MESSAGE_REQUEST_ACCEPTED",
}
SIMPLE_TEXT = {
    "JOINED_SIGNAL": "{author} is on Signal",
    "IDENTITY_UPDATE": "Your safety number with {author} has changed",
    "IDENTITY_VERIFIED": "You marked your safety number with {author} verified",
    "IDENTITY_DEFAULT": "You marked your safety number with {author} unverified",
    "CHANGE_NUMBER": "{author} changed their phone number",
    "RELEASE_CHANNEL_DONATION_REQUEST": "Signal asked for a donation",
    "END_SESSION": "Secure session reset",
    "CHAT_SESSION_REFRESH": "Chat session refreshed",
    "BAD_DECRYPT": "A message from {author} could not be delivered",
    "PAYMENTS_ACTIVATED": "{author} activated payments",
    "PAYMENT_ACTIVATION_REQUEST": "{author} asked you to activate payments",
    "UNSUPPORTED_PROTOCOL_MESSAGE": "{author} sent a message this version could not show",
    "REPORTED_SPAM": "Reported as spam",
    "BLOCKED": "You blocked {author}",
    "UNBLOCKED": "You unblocked {author}",
    "MESSAGE_REQUEST_ACCEPTED": "You accepted the message request",
}
# GroupChangeChatUpdate.Update: one line per kind; {fields ending in Aci} are people.
GROUP_TEXT = {
    "genericGroupUpdate": "{updaterAci} updated the group",
    "groupCreationUpdate": "{updaterAci} created the group",
    "groupNameUpdate": "{updaterAci} changed the group name to “{newGroupName}”",
    "groupAvatarUpdate": "{updaterAci} changed the group avatar",
    "groupDescriptionUpdate": "{updaterAci} changed the group description",
    "groupMembershipAccessLevelChangeUpdate": "{updaterAci} changed who can add members",
    "groupAttributesAccessLevelChangeUpdate": "{updaterAci} changed who can edit group info",
    "groupMemberLabelAccessLevelChangeUpdate": "{updaterAci} changed who can set member labels",
    "groupAnnouncementOnlyChangeUpdate": "{updaterAci} changed who can send messages",
    "groupAdminStatusUpdate": "{updaterAci} changed the admin status of {memberAci}",
    "groupMemberLeftUpdate": "{aci} left the group",
    "groupMemberRemovedUpdate": "{removerAci} removed {removedAci}",
    "selfInvitedToGroupUpdate": "{inviterAci} invited you to the group",
    "selfInvitedOtherUserToGroupUpdate": "You invited someone to the group",
    "groupUnknownInviteeUpdate": "{inviterAci} invited {inviteeCount} people to the group",
    "groupInvitationAcceptedUpdate": "{newMemberAci} accepted an invitation to the group",
    "groupInvitationDeclinedUpdate": "{inviteeAci} declined an invitation to the group",
    "groupMemberJoinedUpdate": "{newMemberAci} joined the group",
    "groupMemberAddedUpdate": "{updaterAci} added {newMemberAci}",
    "groupSelfInvitationRevokedUpdate": "{revokerAci} revoked your invitation to the group",
    "groupInvitationRevokedUpdate": "{updaterAci} revoked invitations to the group",
    "groupJoinRequestUpdate": "{requestorAci} asked to join the group",
    "groupJoinRequestApprovalUpdate": "{updaterAci} answered the request of {requestorAci} to join",
    "groupJoinRequestCanceledUpdate": "{requestorAci} cancelled their request to join",
    "groupSequenceOfRequestsAndCancelsUpdate": "{requestorAci} asked to join and cancelled",
    "groupInviteLinkResetUpdate": "{updaterAci} reset the group link",
    "groupInviteLinkEnabledUpdate": "{updaterAci} turned on the group link",
    "groupInviteLinkAdminApprovalUpdate": "{updaterAci} changed the group link's admin approval",
    "groupInviteLinkDisabledUpdate": "{updaterAci} turned off the group link",
    "groupMemberJoinedByLinkUpdate": "{newMemberAci} joined the group via the group link",
    "groupV2MigrationUpdate": "This group was upgraded to a New Group",
    "groupV2MigrationSelfInvitedUpdate": "You were invited to the upgraded group",
    "groupV2MigrationInvitedMembersUpdate": "{invitedMembersCount} members were invited to the upgraded group",
    "groupV2MigrationDroppedMembersUpdate": "{droppedMembersCount} members could not be added to the upgraded group",
    "groupExpirationTimerUpdate": "{updaterAci} set the disappearing message timer to {expiresIn}",
    "groupTerminateChangeUpdate": "{updaterAci} ended the group",
}


def duration_text(ms: Any) -> str:
    """Milliseconds as people say a timer (the words Signal Desktop's reader uses).

    >>> duration_text("604800000"), duration_text(3600000), duration_text(0)
    ('1 week', '1 hour', 'off')
    """
    return timer_text((as_int(ms) or 0) // 1000)


def group_update_text(update: dict[str, Any], name: Name) -> tuple[str, str | None]:
    """(text, the ACI of who did it) for one GroupChangeChatUpdate.Update."""
    kind, body = next(((k, v) for k, v in update.items() if isinstance(v, dict)), ("", {}))
    template = GROUP_TEXT.get(kind, "{updaterAci} changed the group")
    values: dict[str, Any] = {"expiresIn": duration_text(body.get("expiresInMs"))}
    for field_name in ("updaterAci", "memberAci", "aci", "removerAci", "removedAci", "inviterAci",
                       "inviteeAci", "newMemberAci", "revokerAci", "requestorAci"):
        values[field_name] = actor_text(name(body.get(field_name))) if body.get(field_name) else "Someone"
    for field_name in ("newGroupName", "inviteeCount", "invitedMembersCount", "droppedMembersCount"):
        values[field_name] = body.get(field_name, "")
    text = template.format(**values)
    if kind == "groupAvatarUpdate" and body.get("wasRemoved"):
        text = text.replace("changed the group avatar", "removed the group avatar")
    if kind == "groupAdminStatusUpdate":
        text += " (made admin)" if body.get("wasAdminStatusGranted") else " (admin revoked)"
    actor = next((body.get(f) for f in ("updaterAci", "aci", "removerAci", "newMemberAci",
                                         "requestorAci", "inviterAci") if body.get(f)), None)
    return text, actor


def update_text(update: dict[str, Any], author: str, name: Name) -> tuple[str, str, str | None]:
    """(event kind, text, ACI of the actor when it is not the item's author) of a
    ChatUpdateMessage that is not a call."""
    who = actor_text(author)
    if isinstance(update.get("simpleUpdate"), dict):
        kind = enum_name(update["simpleUpdate"].get("type"), SIMPLE_UPDATES)
        return kind.lower(), SIMPLE_TEXT.get(kind, f"Signal notice ({kind})").format(author=who), None
    if isinstance(update.get("groupChange"), dict):
        lines, actor = [], None
        for u in update["groupChange"].get("updates") or []:
            if isinstance(u, dict):
                text, who_did = group_update_text(u, name)
                lines.append(text)
                actor = actor or who_did
        return "group_change", "; ".join(lines) or "The group changed", actor
    if isinstance(update.get("expirationTimerChange"), dict):
        ms = update["expirationTimerChange"].get("expiresInMs")
        text = (f"{who} set the disappearing message timer to {duration_text(ms)}"
                if as_int(ms) else f"{who} turned off disappearing messages")
        return "expiration_timer", text, None
    if isinstance(update.get("profileChange"), dict):
        p = update["profileChange"]
        return "profile_change", f"{p.get('previousName') or who} changed their profile name to {p.get('newName', '')}", None
    if isinstance(update.get("threadMerge"), dict):
        return "thread_merge", f"Your chats with {who} and +{update['threadMerge'].get('previousE164', '')} were merged", None
    if isinstance(update.get("sessionSwitchover"), dict):
        return "session_switchover", f"{who} now uses a new number or device", None
    if isinstance(update.get("learnedProfileChange"), dict):
        p = update["learnedProfileChange"]
        was = f"+{p['e164']}" if p.get("e164") else p.get("username", "")
        return "learned_profile", f"{who} was known as {was}", None
    if isinstance(update.get("pollTerminate"), dict):
        return "poll_end", f"{who} ended the poll “{update['pollTerminate'].get('question', '')}”", None
    if isinstance(update.get("pinMessage"), dict):
        return "pin", f"{who} pinned a message", None
    kind = next(iter(update), "unknown")
    return kind, f"Signal notice ({kind})", None


INDIVIDUAL_TYPES = {0: "UNKNOWN_TYPE", 1: "AUDIO_CALL", 2: "VIDEO_CALL"}
INDIVIDUAL_DIRECTIONS = {0: "UNKNOWN_DIRECTION", 1: "INCOMING", 2: "OUTGOING"}
INDIVIDUAL_STATES = {0: "UNKNOWN_STATE", 1: "ACCEPTED", 2: "NOT_ACCEPTED", 3: "MISSED",
                     4: "MISSED_NOTIFICATION_PROFILE"}
GROUP_STATES = {0: "UNKNOWN_STATE", 1: "GENERIC", 2: "JOINED", 3: "RINGING", 4: "ACCEPTED",
                5: "DECLINED", 6: "MISSED", 7: "MISSED_NOTIFICATION_PROFILE", 8: "OUTGOING_RING"}
MISSED_STATES = {"MISSED", "MISSED_NOTIFICATION_PROFILE", "DECLINED"}


def call_facts(update: dict[str, Any], started_by_owner: Callable[[Any], bool]) -> dict[str, Any] | None:
    """direction / media / answered / start / duration of an IndividualCall or GroupCall.

    >>> call_facts({"individualCall": {"type": "VIDEO_CALL", "direction": "INCOMING",
    ...             "state": "MISSED", "startedCallTimestamp": "1000"}}, bool)["direction"]
    'missed'
    """
    if isinstance(update.get("individualCall"), dict):
        c = update["individualCall"]
        state = enum_name(c.get("state"), INDIVIDUAL_STATES)
        incoming = enum_name(c.get("direction"), INDIVIDUAL_DIRECTIONS) != "OUTGOING"
        missed = state in MISSED_STATES or (incoming and state == "NOT_ACCEPTED")
        return {
            "id": c.get("callId"),
            "direction": "missed" if missed else ("incoming" if incoming else "outgoing"),
            "media": "video" if enum_name(c.get("type"), INDIVIDUAL_TYPES) == "VIDEO_CALL" else "voice",
            "answered": True if state == "ACCEPTED" else (False if missed or state == "NOT_ACCEPTED" else None),
            "started": as_int(c.get("startedCallTimestamp")),
            "duration": None,
            "state": state,
        }
    if isinstance(update.get("groupCall"), dict):
        c = update["groupCall"]
        state = enum_name(c.get("state"), GROUP_STATES)
        begin, end = as_int(c.get("startedCallTimestamp")), as_int(c.get("endedCallTimestamp"))
        outgoing = started_by_owner(c.get("startedCallRecipientId")) or state == "OUTGOING_RING"
        missed = state in MISSED_STATES
        return {
            "id": c.get("callId"),
            "direction": "missed" if missed else ("outgoing" if outgoing else "incoming"),
            "media": "video",  # Signal's group calls are video calls
            "answered": True if state in {"JOINED", "ACCEPTED"} else (False if missed else None),
            "started": begin,
            "duration": (end - begin) // 1000 if begin and end and end >= begin else None,
            "state": state,
        }
    return None
