"""Build Signal's own export from the phone (`main.jsonl` + `metadata.json` + `files/`), in the
JSON mapping of Backup.proto, for tests and fixtures.

`build_export(folder, "full")` writes the conversations of `signal_builders.SCENARIO` (the same
ones as the Signal Desktop fixture, as the phone holds them) plus one chat item of every kind
that carries content; `"small"` writes the one-to-one chat with Anna Berg only.
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from pathlib import Path
from typing import Any

from signal_builders import ANNA, BEN, GROUP_CONV, GROUP_NAME, SAM, SCENARIO, Msg, Person, at

SELF, RELEASE, R_ANNA, R_BEN, R_GROUP = 1, 2, 4, 5, 10
RECIPIENT = {ANNA.conv: R_ANNA, BEN.conv: R_BEN, GROUP_CONV: R_GROUP}
CHAT = {R_ANNA: 1, R_BEN: 2, R_GROUP: 3}
PERSON_ID = {SAM.aci: SELF, ANNA.aci: R_ANNA, BEN.aci: R_BEN}
MASTER_KEY = base64.b64encode(bytes(range(32))).decode()


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def aci(person: Person) -> str:
    return b64(uuid.UUID(person.aci).bytes)


def rid(person: Person | None) -> int:
    return SELF if person is None or person is SAM else PERSON_ID[person.aci]


class Files:
    """Attachment files as Signal's local backups name them: files/<2 hex>/<media name>."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder / "files"

    def pointer(self, name: str | None, content_type: str, data: bytes, **more: Any) -> dict:
        plain = hashlib.sha256(data).digest()
        key = hashlib.sha256(b"local key " + data).digest()
        media = hashlib.sha256(plain + key).hexdigest()
        target = self.folder / media[:2] / media
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        pointer = {"contentType": content_type, "locatorInfo": {
            "plaintextHash": b64(plain), "localKey": b64(key), "size": len(data),
            "key": b64(b"\x01" * 32)}, **more}
        if name:
            pointer["fileName"] = name
        return pointer


def _header() -> list[dict]:
    return [
        {"version": "1", "backupTimeMs": str(at(600)), "currentAppVersion": "Signal-Android 8.0.0",
         "firstAppVersion": "Signal-Android 7.0.0"},
        {"account": {"profileKey": b64(b"k" * 32), "givenName": "Sam", "familyName": "Rivera",
                     "accountSettings": {"readReceipts": True}}},
        {"recipient": {"id": str(SELF), "self": {"avatarColor": "A100"}}},
        {"recipient": {"id": str(RELEASE), "releaseNotes": {}}},
        {"recipient": {"id": str(R_ANNA), "contact": {
            "aci": aci(ANNA), "e164": ANNA.e164.lstrip("+"), "profileGivenName": "Anna",
            "profileFamilyName": "Berg", "registered": {}, "visibility": "VISIBLE"}}},
        {"recipient": {"id": str(R_BEN), "contact": {
            "aci": aci(BEN), "e164": BEN.e164.lstrip("+"), "profileGivenName": "Benny",
            "profileFamilyName": "O", "systemGivenName": "Ben", "systemFamilyName": "Ortiz",
            "registered": {}}}},
        {"recipient": {"id": str(R_GROUP), "group": {"masterKey": MASTER_KEY, "whitelisted": True,
            "snapshot": {"title": {"title": GROUP_NAME}, "version": 3, "members": [
                {"userId": aci(p), "role": "ADMINISTRATOR" if p is SAM else "DEFAULT"}
                for p in (SAM, ANNA, BEN)]}}}},
    ]


def _item(msg: Msg, chat: int, files: Files) -> dict | None:
    """One SCENARIO message as the phone's export holds it; None for what it leaves out."""
    item: dict[str, Any] = {"chatId": str(chat), "dateSent": str(msg.sent_at)}
    author = msg.author if msg.type == "incoming" else None
    item["authorId"] = str(rid(author))
    if msg.type == "outgoing":
        item["outgoing"] = {"sendStatus": [{"recipientId": str(chat), "delivered": {}}]}
    elif msg.type == "incoming":
        item["incoming"] = {"dateReceived": str(msg.sent_at + 900), "read": True}
    if msg.type == "story":
        return None
    if msg.type == "call-history":
        call = msg.call or {}
        item["authorId"] = str(SELF if call.get("direction") == "Outgoing" else RECIPIENT[msg.conv])
        item["directionless"] = {}
        item["updateMessage"] = {"individualCall": {
            "callId": call["callId"], "type": "VIDEO_CALL" if call["type"] == "Video" else "AUDIO_CALL",
            "direction": call["direction"].upper(),
            "state": "ACCEPTED" if call["status"] == "Accepted" else "MISSED",
            "startedCallTimestamp": str(call["timestamp"]), "read": True}}
        return item
    if msg.type == "keychange":
        item.update(authorId=str(R_BEN), directionless={},
                    updateMessage={"simpleUpdate": {"type": "IDENTITY_UPDATE"}})
        return item
    if msg.type == "profile-change":
        change = msg.extra["profileChange"]
        item.update(authorId=str(R_BEN), directionless={}, updateMessage={"profileChange": {
            "previousName": change["oldName"], "newName": change["newName"]}})
        return item
    if msg.type == "group-v2-change":
        change = msg.extra["groupV2Change"]
        updater = aci(SAM if change["from"] == SAM.aci else ANNA if change["from"] == ANNA.aci else BEN)
        updates = []
        for d in change["details"]:
            if d["type"] == "create":
                updates.append({"groupCreationUpdate": {"updaterAci": updater}})
            elif d["type"] == "member-add":
                member = ANNA if d["aci"] == ANNA.aci else BEN
                updates.append({"groupMemberAddedUpdate": {"updaterAci": updater,
                                                           "newMemberAci": aci(member)}})
            elif d["type"] == "title":
                updates.append({"groupNameUpdate": {"updaterAci": updater,
                                                    "newGroupName": d["newTitle"]}})
        item.update(authorId=str(PERSON_ID[change["from"]]), directionless={},
                    updateMessage={"groupChange": {"updates": updates}})
        return item
    if msg.type == "timer-notification":
        item.update(authorId=str(R_ANNA), incoming={"dateReceived": str(msg.sent_at)},
                    updateMessage={"expirationTimerChange": {
                        "expiresInMs": str(msg.extra["expirationTimerUpdate"]["expireTimer"] * 1000)}})
        return item
    if msg.deleted or msg.erased:
        item["remoteDeletedMessage"] = {}
        return item
    body = msg.edits[0][0] if msg.edits else msg.body
    std: dict[str, Any] = {}
    if body:
        text: dict[str, Any] = {"body": body}
        ranges = msg.extra.get("bodyRanges")
        if ranges:
            text["bodyRanges"] = [{"start": r["start"], "length": r["length"],
                                   "mentionAci": aci(BEN if r["mentionAci"] == BEN.aci else ANNA)}
                                  for r in ranges]
        std["text"] = text
    if msg.quote:
        target = next(m for m in SCENARIO if m.id == msg.quote[0])
        std["quote"] = {"targetSentTimestamp": str(target.sent_at), "authorId": str(rid(msg.quote[1])),
                        "text": {"body": target.body}, "type": "NORMAL"}
    if msg.quote_missing:
        sent, who, quoted = msg.quote_missing
        std["quote"] = {"targetSentTimestamp": str(sent), "authorId": str(rid(who)),
                        "text": {"body": quoted}, "type": "NORMAL"}
    if msg.attachments:
        std["attachments"] = []
        for n, a in enumerate(msg.attachments):
            voice = a.get("flags", 0) & 1
            seed = f"{a.get('fileName') or 'voice'} {n} ".encode()
            data = (seed * (a["size"] // len(seed) + 1))[: a["size"]]
            std["attachments"].append({
                "pointer": files.pointer(a.get("fileName"), a["contentType"], data),
                "flag": "VOICE_MESSAGE" if voice else "NONE", "wasDownloaded": True,
                "clientUuid": b64(uuid.uuid5(uuid.NAMESPACE_URL, msg.id + str(n)).bytes)})
    if msg.reactions:
        std["reactions"] = [{"emoji": emoji, "authorId": str(rid(who)), "sentTimestamp": str(ts),
                             "sortOrder": str(i)} for i, (who, emoji, ts) in enumerate(msg.reactions)]
    if msg.edits and len(msg.edits) > 1:
        item["revisions"] = [
            {**{k: v for k, v in item.items() if k != "revisions"}, "dateSent": str(ts),
             "standardMessage": {"text": {"body": old}}}
            for old, ts in reversed(msg.edits[1:])]
    item["standardMessage"] = std
    return item


def _every_kind(files: Files) -> list[dict]:
    """One chat item of every other kind that carries content, in the three chats."""
    long_text = ("A long note about the trail. " * 200).strip()
    group, anna, ben = str(CHAT[R_GROUP]), str(CHAT[R_ANNA]), str(CHAT[R_BEN])

    def incoming(chat: str, who: int, minute: int, **kind: Any) -> dict:
        return {"chatId": chat, "authorId": str(who), "dateSent": str(at(minute)),
                "incoming": {"dateReceived": str(at(minute) + 500)}, **kind}

    def outgoing(chat: str, minute: int, **kind: Any) -> dict:
        return {"chatId": chat, "authorId": str(SELF), "dateSent": str(at(minute)),
                "outgoing": {"sendStatus": []}, **kind}

    return [
        incoming(group, R_ANNA, 70, standardMessage={
            "text": {"body": long_text[:2000]}, "longText": files.pointer(None, "text/x-signal-plain",
                                                                          long_text.encode())}),
        incoming(group, R_BEN, 71, stickerMessage={"sticker": {
            "packId": b64(b"\x0a" * 16), "packKey": b64(b"\x0b" * 32), "stickerId": 3, "emoji": "🥾",
            "data": files.pointer(None, "image/webp", b"RIFFwebp-sticker")}}),
        outgoing(group, 72, poll={"question": "Start time?", "allowMultiple": False, "options": [
            {"option": "8:00", "votes": [{"voterId": str(R_ANNA), "voteCount": 1}]},
            {"option": "9:00", "votes": [{"voterId": str(R_BEN), "voteCount": 1},
                                         {"voterId": str(SELF), "voteCount": 1}]}],
            "reactions": [{"emoji": "👍", "authorId": str(R_ANNA), "sentTimestamp": str(at(73))}]}),
        incoming(group, R_BEN, 74, directionless=None, updateMessage={"groupCall": {
            "callId": "9001", "state": "JOINED", "startedCallRecipientId": str(R_BEN),
            "startedCallTimestamp": str(at(74)), "endedCallTimestamp": str(at(74) + 300_000)}}),
        outgoing(group, 76, standardMessage={
            "text": {"body": "Trail info: https://example.org/harz"},
            "linkPreview": [{"url": "https://example.org/harz", "title": "Harz trails"}]},
            expiresInMs="604800000", expireStartDate=str(at(76))),
        incoming(anna, R_ANNA, 80, viewOnceMessage={"attachment": {
            "pointer": files.pointer("summit.jpg", "image/jpeg", b"\xff\xd8summit")}}),
        outgoing(anna, 81, paymentNotification={"amountMob": "1.5", "feeMob": "0.01",
                                                "note": "coffee money"}),
        incoming(anna, R_ANNA, 82, contactMessage={"contact": {
            "name": {"givenName": "Lia", "familyName": "Moreau"},
            "number": [{"value": "+15550100007", "type": "MOBILE"}]}}),
        incoming(anna, R_ANNA, 83, giftBadge={"receiptCredentialPresentation": b64(b"gift"),
                                             "state": "OPENED"}),
        incoming(anna, R_ANNA, 84, directStoryReplyMessage={"textReply": {"text": {
            "body": "Great photo from the ridge!"}}}),
        incoming(anna, R_ANNA, 85, adminDeletedMessage={"adminId": str(R_ANNA)}),
        outgoing(anna, 86, updateMessage={"expirationTimerChange": {"expiresInMs": "0"}}),
        incoming(ben, R_BEN, 90, sms=True, standardMessage={"text": {"body": "Sent as SMS, sorry"}}),
        incoming(ben, R_BEN, 91, directionless={}, updateMessage={"simpleUpdate": {
            "type": "CHANGE_NUMBER"}}),
    ]


def frames(files: Files, size: str = "full") -> list[dict]:
    out = _header()
    chats = [R_ANNA] if size == "small" else [R_ANNA, R_BEN, R_GROUP]
    out += [{"chat": {"id": str(CHAT[r]), "recipientId": str(r), "expireTimerVersion": 1}}
            for r in chats]
    out.append({"stickerPack": {"packId": b64(b"\x0a" * 16), "packKey": b64(b"\x0b" * 32)}})
    for msg in SCENARIO:
        r = RECIPIENT[msg.conv]
        if r in chats:
            item = _item(msg, CHAT[r], files)
            if item is not None:
                out.append({"chatItem": {k: v for k, v in item.items() if v is not None}})
    if size == "full":
        for item in _every_kind(files):
            out.append({"chatItem": {k: v for k, v in item.items() if v is not None}})
    return out


def build_export(folder: Path, size: str = "full") -> Path:
    """Write the export folder; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = frames(Files(folder), size)
    with (folder / "main.jsonl").open("w", encoding="utf-8", newline="\n") as f:
        for frame in lines[1:]:
            f.write(json.dumps(frame, ensure_ascii=False) + "\n")
    (folder / "metadata.json").write_text(json.dumps(lines[0], indent=2) + "\n", encoding="utf-8")
    return folder
