"""Android SMS and MMS from "SMS Backup & Restore" (SyncTech) XML, and its call log.

`sms-<date>.xml` holds `<smses>` with `<sms>` and `<mms>` elements; `calls-<date>.xml` holds
`<calls>` with `<call>` elements. Backups run to hundreds of MB (MMS parts carry their files as
base64), so the file is streamed (`iterparse`, each element cleared once read), never loaded
whole. Attribute names are the Android content providers' columns as the app writes them:

    <sms address="+1 555-010-0001" date="1709370000000" type="1" body="Hello"
         contact_name="Anna Berg" readable_date="Mar 2, 2024 10:00:00" ... />
      → Message(sender="Anna Berg", sender_handle="+1 555-010-0001", text="Hello",
                sent_at=2024-03-02 09:00 UTC)

A conversation is the set of the other people's numbers (an MMS group has several, joined by
`~` in `address`, by `,` on some phones, written with and without `+`); its key does not depend
on the backup file, so the next backup, or a backup of the same phone made by another run, lands
in the same chats. Messages have no id that survives a restore, so ids are derived from chat +
time in ms + sender + text + occurrence. Where each attribute and code was seen in public
material: importers/SOURCES.md.

The owner's own number is in the `<addr>` list of a group MMS (type 137, "from", on what they
sent). Without owner.handles in the config, the first sent MMS that names it teaches it (one
extra streamed pass over the file, stopped there), so that group chats do not count the owner
as a member.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from chatmem.errors import FormatError
from chatmem.importers.android_sms_blocks import (
    UTF16_BOMS,
    Block,
    Scan,
    blocks_of,
    elements,
    open_clean,
    position,
    scan,
)
from chatmem.importers.byte_digest import KIND
from chatmem.importers.resume_blocks import only_changed
from chatmem.records import (
    OWNER,
    PORTABLE,
    RESUME_STATE,
    Attachment,
    Call,
    Chat,
    Estimate,
    HashedOccurrences,
    ImportOptions,
    Message,
    Problem,
    Record,
    SourceState,
    call_id,
    message_id_from_content,
)

PLATFORM = "sms"
KEY_PREFIX = "android:"  # chat keys: the other numbers of the conversation
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
HEAD_BYTES = 2048
NULL = "null"  # how the app writes a missing value

# <sms type>: Telephony.TextBasedSmsColumns.MESSAGE_TYPE_*
SMS_RECEIVED, SMS_SENT, SMS_DRAFT, SMS_OUTBOX, SMS_FAILED, SMS_QUEUED = 1, 2, 3, 4, 5, 6
# <mms msg_box>: Telephony.BaseMmsColumns.MESSAGE_BOX_*
MMS_INBOX, MMS_SENT, MMS_DRAFTS, MMS_OUTBOX = 1, 2, 3, 4
# <mms m_type>: PduHeaders MESSAGE_TYPE_*: a notification of an MMS never downloaded
MMS_NOTIFICATION_IND = 130
# <addr type>: PduHeaders FROM / TO / CC / BCC
ADDR_FROM, ADDR_TO, ADDR_CC, ADDR_BCC = 137, 151, 130, 129
NO_ADDRESS = "insert-address-token"  # what a sent MMS has as its "from" before the network fills it
# Signal's plaintext export (Signal-Android PR #4925 and forks that carry it): a message of a
# group has the group's id in `thread_address` beside its sender's number in `address` (a message
# you sent to the group: the id in `address` itself)
SIGNAL_GROUP = "__textsecure_group__!"
SMIL = "application/smil"
# <call type>: CallLog.Calls.*_TYPE
CALL_INCOMING, CALL_OUTGOING, CALL_MISSED, CALL_VOICEMAIL, CALL_REJECTED, CALL_BLOCKED = 1, 2, 3, 4, 5, 6
CALL_ANSWERED_EXTERNALLY = 7  # answered on another device of the same number
UNANSWERED_CALLS = {CALL_MISSED, CALL_VOICEMAIL, CALL_REJECTED, CALL_BLOCKED}
# <call presentation>: CallLog.Calls.PRESENTATION_*: who called when no number is shown
HIDDEN_CALLERS = {2: "Private number", 3: "Unknown number", 4: "Payphone"}
SECONDS_BEFORE = 10**11  # an Android time below this is in seconds (MMS date_sent), else in ms
STATE_VERSION = 2
STATE_KIND = "sms-xml"
RESUME_LIMIT = 200_000  # records a re-import holds back at most before it reads the file whole
COUNTS = ("sms", "mms", "call", "draft", "embedded")


def _value(element: ET.Element, name: str) -> str:
    value = element.get(name)
    return "" if value is None or value == NULL else value


def _int(value: str) -> int | None:
    try:
        return int(value)
    except ValueError:
        return None


@functools.lru_cache(maxsize=1 << 16)
def phone_key(number: str) -> str:
    """A number as a chat key part: its last ten digits (so "+1 555…" and "555…" are one
    person, as the phone itself matches them); short codes, names and e-mail as written,
    lower-cased.

    >>> phone_key("+1 (555) 010-0001"), phone_key("5550100001"), phone_key("GOOGLE")
    ('5550100001', '5550100001', 'google')
    """
    digits = re.sub(r"\D", "", number)
    if len(digits) >= 7 and "@" not in number:
        return digits[-10:]
    return number.strip().lower()


def from_ms(value: str) -> datetime:
    ms = _int(value)
    if ms is None:
        raise ValueError(f"not a time: {value!r}")
    return EPOCH + timedelta(milliseconds=ms)


def _sent_time(value: str) -> str | None:
    """`date_sent` as ISO text: ms for SMS, seconds for MMS; 0 (what sent messages have) is None."""
    n = _int(value)
    if not n or n < 0:
        return None
    try:
        return (EPOCH + timedelta(milliseconds=n if n >= SECONDS_BEFORE else n * 1000)).isoformat()
    except OverflowError:
        return None


def _numbers(address: str) -> list[str]:
    """The numbers of an `address` attribute: one, or a group's joined by `~` (or `,`)."""
    return [a.strip() for a in re.split(r"[~,]", address) if a.strip()]


class AndroidSmsImporter:
    platform = PLATFORM

    def detect(self, path: Path) -> bool:
        path = Path(path)
        if not path.is_file() or path.suffix.lower() != ".xml":
            return False
        try:
            with path.open("rb") as f:
                raw = f.read(HEAD_BYTES)
        except OSError:
            return False
        head = (raw.decode("utf-16", errors="replace") if raw.startswith(UTF16_BOMS)
                else raw.decode("utf-8", errors="replace"))
        return bool(re.search(r"<(smses|calls)[\s>]", head))

    def read(self, path: Path, options: ImportOptions) -> Iterator[Record]:
        """The file cut into blocks of raw element bytes (importers/android_sms_blocks.py): a
        re-import parses only the blocks that are new or changed since the last import and
        gives the store their records, and reads the file whole when what every record depends
        on changed (see `_Run.resumed`). A file that cannot be cut is parsed whole, as one."""
        return _Run(Path(path), options).records()


class _Run:
    def __init__(self, path: Path, options: ImportOptions) -> None:
        self.path, self.options = path, options
        self.where = str(path)
        self.owner = {phone_key(h) for h in options.owner_handles}
        self.chats: dict[str, Chat] = {}
        self.yielded: set[str] = set()  # chat keys already given to the store
        self.occurrences = HashedOccurrences()  # a million texts are not kept to the end
        self.counts = {"sms": 0, "mms": 0, "call": 0, "draft": 0, "embedded": 0}
        self.keys: list[tuple] | None = None  # the natural keys of the records made, when asked
        self.dates: list[int] = []  # times of repeated natural keys (occurrence > 0)
        self.lo: int | None = None  # the earliest and latest time of the current block
        self.hi: int | None = None
        self.learned: str | None = None
        self.learned_at: int | None = None  # the block that taught the owner's number
        self.block = 0  # the block being read
        self.first: dict[str, int] = {}  # chat key: the block it is first named in
        self.chat_keys: dict[tuple[str, ...], str] = {}  # (numbers, names): the chat they make
        self.old: dict[int, int] = {}  # a skipped block's index in the last import
        self.fact: dict[str, Any] = {}
        self.before: list[int] = []  # the counts when the current block began
        self.repeats = 0
        self.done = 0  # elements of the current block read
        self.state: dict[str, Any] = {}
        self.context: list[Any] = []
        self.legacy = False  # the last import's blocks are keyed by BLAKE2b (an earlier version)

    def _is_owner(self, number: str) -> bool:
        return phone_key(number) in self.owner

    # ---------------------------------------------------------------- the owner

    def _learn_owner(self) -> str | None:
        """The owner's number as a sent MMS names it (its 137 "from" address), or None."""
        try:
            with open_clean(self.path) as stream:
                for _event, element in ET.iterparse(stream, events=("end",)):
                    if element.tag == "mms":
                        found = _sender_of_sent(element)
                        if found:
                            return found
                        element.clear()
                    elif element.tag in ("sms", "call"):
                        element.clear()
        except (ET.ParseError, OSError):
            return None  # the real pass reports it
        return None

    def _learn_owner_in_blocks(self, found: Scan) -> tuple[str | None, int | None]:
        """`_learn_owner` over the blocks (only those holding an MMS are parsed)."""
        try:
            for i, data in blocks_of(self.path, found, list(range(len(found.blocks)))):
                if b"<mms" not in data:
                    continue
                for e in elements(data, found.root):
                    for mms in e.iter("mms"):
                        number = _sender_of_sent(mms)
                        if number:
                            return number, i
        except (ET.ParseError, OSError):
            return self._learn_owner(), None
        return None, None

    def _owner_of(self, found: Scan, prev: dict[str, Any] | None) -> None:
        """The owner's numbers: from the config, else learned (from the file, or, when the
        blocks up to the one that taught it last time are the same, from the last import)."""
        if self.owner:
            return
        was = (prev or {}).get("learned")
        if isinstance(was, list) and len(was) == 2 and isinstance(was[1], int) and was[1] < len(found.blocks):
            by_index = {f.get("i"): d for d, f in ((prev or {}).get("blocks") or {}).items()}
            if all(by_index.get(i) == self._key(found.blocks[i]) for i in range(was[1] + 1)):
                self.learned, self.learned_at = was[0], was[1]
        if self.learned is None:
            self.learned, self.learned_at = self._learn_owner_in_blocks(found)
        if self.learned:
            self.owner = {phone_key(self.learned)}

    # ---------------------------------------------------------------- the pass

    def _key(self, block: Block) -> str:
        """A block's key in the last import's state: its digest, or the BLAKE2b digest an
        earlier version keyed it by (so that an upgraded store skips what it imported)."""
        return block.legacy if self.legacy else block.digest

    def records(self) -> Iterator[Record]:
        prev = self.options.state.get(RESUME_STATE)
        if not (isinstance(prev, dict) and prev.get("v") == STATE_VERSION and prev.get("kind") == STATE_KIND):
            prev = None
        self.legacy = prev is not None and prev.get("digest") != KIND
        found, why = scan(self.path, legacy=self.legacy)
        if found is None:  # read whole, as one document; re-imports compare records
            yield from only_changed(self._whole(), self.options.state, "sms")
            return
        self._owner_of(found, prev)
        self.context = [found.context, sorted(self.owner)]
        resumed: list[Record] | None = None
        reason = "first import" if prev is None else ""
        if prev is not None and prev.get("context") != self.context:
            reason = ("the file's header, or your number, changed since the last import: read whole "
                      "and compared")
        elif prev is not None:
            resumed, reason = self._resumed(found, prev)
        if resumed is None:
            owner, learned = (self.owner, self.learned, self.learned_at), self.context
            self.__init__(self.path, self.options)  # type: ignore[misc]  # what the attempt learned goes
            (self.owner, self.learned, self.learned_at), self.context = owner, learned
            if found.count:
                yield Estimate(found.count)
            facts: dict[int, dict[str, Any]] = {}
            yield from self._parse_all(found, facts)
            state = self._state(found, facts)
        else:
            yield Estimate(sum(isinstance(r, (Message, Call)) for r in resumed))
            yield from resumed
            state = self.state
        notes = self._notes()
        if resumed is not None:
            parsed = sum(1 for f in state["blocks"].values() if f.get("p"))
            notes.append(f"re-import: parsed {parsed:,} of {len(found.blocks):,} block(s) of about a "
                         "thousand messages: the new ones and the ones that changed")
        elif reason != "first import":
            notes.append(f"re-import: {reason}")
        for f in state["blocks"].values():
            f.pop("p", None)
        yield SourceState(state={RESUME_STATE: state}, notes=notes)

    def _notes(self) -> list[str]:
        notes = [f"SMS Backup & Restore: {self.counts['sms']} SMS, {self.counts['mms']} MMS, "
                 f"{self.counts['call']} call(s)"]
        if self.counts["draft"]:
            notes.append(f"{self.counts['draft']} draft(s) kept as messages from you, marked draft")
        if self.counts["embedded"]:
            notes.append(f"{self.counts['embedded']} MMS attachment(s) are inside the backup (base64); "
                         "read_attachment reads them from it while it is there")
        if self.learned:
            notes.append(f"your number taken to be {self.learned} (the sender of your own MMS); "
                         "set owner.handles in the config to be sure")
        elif not self.owner:
            notes.append("owner.handles is not set in the config: group MMS may list your own number")
        return notes

    def _whole(self) -> Iterator[Record]:
        """The file parsed whole with one streaming parser (a file the blocks cannot cut)."""
        if not self.owner:
            self.learned = self._learn_owner()
            if self.learned:
                self.owner = {phone_key(self.learned)}
        try:
            stream = open_clean(self.path)
        except OSError as e:
            raise FormatError(f"{self.path}: cannot read ({e})") from e
        try:
            events = ET.iterparse(stream, events=("start", "end"))
            root_seen = False
            depth = 0
            for event, element in events:
                if event == "start":
                    depth += 1
                    if not root_seen:
                        root_seen = True
                        if element.tag not in ("smses", "calls"):
                            raise FormatError(f"{self.path}: not an SMS Backup & Restore file "
                                              f"(the root element is <{element.tag}>)")
                        count = _int(element.get("count") or "")
                        if count:
                            yield Estimate(count)
                    continue
                depth -= 1
                if depth != 1:
                    continue  # parts and addrs are read with their message
                yield from self._element(element)
                element.clear()  # what makes it stream: nothing read stays in memory
        except ET.ParseError as e:
            line, column = e.position
            raise self._not_xml(line, column, e) from e
        except OSError as e:
            raise FormatError(f"{self.path}: cannot read ({e})") from e
        finally:
            stream.close()
        yield SourceState(notes=self._notes())

    def _not_xml(self, line: int, column: int, e: ET.ParseError) -> FormatError:
        # expat's text without the position it adds (a block's own: the file's is given first)
        why = re.sub(r": line \d+, column \d+$", "", str(e))
        return FormatError(f"{self.path}: line {line}, column {column}: not well-formed XML "
                           f"({why}); was the backup cut short? "
                           "Everything before that point was read, nothing was stored")

    # ---------------------------------------------------------------- blocks

    def _block(self, i: int, elems: Iterator[ET.Element], skip: int = 0) -> Iterator[Record]:
        """The records of one block's elements (but the first `skip`, read already); its facts
        are left in `self.fact`."""
        if not skip:
            self.before = [self.counts[k] for k in COUNTS]
            self.repeats = len(self.dates)
            self.lo = self.hi = None
            self.done = 0
        self.block = i
        for n, element in enumerate(elems):
            if n >= skip:
                yield from self._element(element)
                self.done += 1
        self.fact = {"i": i, "n": self.done, "c": [self.counts[k] - b for k, b in zip(COUNTS, self.before)],
                     "lo": self.lo, "hi": self.hi, "u": int(len(self.dates) > self.repeats), "p": 1}

    def _parse_all(self, found: Scan, facts: dict[int, dict[str, Any]]) -> Iterator[Record]:
        """Every block parsed, in order; a block that does not parse alone is parsed again with
        the next (the cut fell inside a comment, say), past the elements already read; the
        last one's error is the file's."""
        pending: list[tuple[int, bytes]] = []
        skip = 0
        try:
            for i, data in blocks_of(self.path, found, list(range(len(found.blocks)))):
                pending.append((i, data))
                joined = b"".join(d for _, d in pending) if len(pending) > 1 else data
                first = pending[0][0]
                if len(pending) == 1:
                    offset = self.counts["mms"]
                try:
                    yield from self._block(first, elements(joined, found.root), skip)
                except ET.ParseError as e:
                    if i + 1 < len(found.blocks):
                        skip = self.done
                        continue
                    b_line, b_column = position(self.path, found.blocks[first].start)
                    line, column = e.position
                    raise self._not_xml(b_line + line - 1, b_column + column if line == 1 else column, e) from e
                self.fact["o"] = offset
                if len(pending) > 1:  # merged: remembered as blocks no later import finds again
                    self.fact["merged"] = [j for j, _ in pending]
                facts[first] = self.fact
                pending, skip = [], 0
        except OSError as e:
            raise FormatError(f"{self.path}: cannot read ({e})") from e
        self._mark_repeats(facts)

    def _mark_repeats(self, facts: dict[int, dict[str, Any]]) -> None:
        """Blocks whose times cover a repeated natural key: a later change there may renumber
        the repeats elsewhere, so that a re-import then reads the file whole."""
        for d in self.dates:
            for f in facts.values():
                if f.get("lo") is not None and f["lo"] <= d <= f["hi"]:
                    f["u"] = 1

    def _state(self, found: Scan, facts: dict[int, dict[str, Any]]) -> dict[str, Any]:
        blocks: dict[str, Any] = {}
        seen: set[str] = set()
        for i, f in sorted(facts.items()):
            digest = found.blocks[i].digest
            if "merged" in f:
                digest = "merged:" + ".".join(found.blocks[j].digest for j in f.pop("merged"))
            if digest in seen:
                blocks[digest]["x"] = 1  # the same bytes twice: never skipped
                continue
            seen.add(digest)
            blocks[digest] = f
        chats = {k: [self.first.get(k, 0), c.name, c.group, c.participants, c.handles]
                 for k, c in self.chats.items()}
        return {"v": STATE_VERSION, "kind": STATE_KIND, "digest": KIND, "context": self.context,
                "path": str(self.path.absolute()),
                "learned": [self.learned, self.learned_at] if self.learned else None,
                "blocks": blocks, "chats": chats, PORTABLE: True}

    def _resumed(self, found: Scan, prev: dict[str, Any]) -> tuple[list[Record] | None, str]:
        """The records a re-import gives the store, in order, or None (and why) when the file
        is to be read whole: blocks whose bytes the last import parsed are skipped, unless
        they hold an MMS whose place in the file (its attachments are found by it) or file
        moved; the others are parsed. Then what a whole read would make differently is
        checked: a repeated message (its occurrence number), a chat first named elsewhere."""
        was: dict[str, Any] = prev.get("blocks") or {}
        was_chats: dict[str, list[Any]] = prev.get("chats") or {}
        by_index: dict[int, list[str]] = {}
        for key, c in was_chats.items():
            by_index.setdefault(c[0], []).append(key)
        same_path = prev.get("path") == str(self.path.absolute())
        digests = [self._key(b) for b in found.blocks]
        twice = {d for d in digests if digests.count(d) > 1} if len(set(digests)) < len(digests) else set()
        out: list[Record] = []
        facts: dict[int, dict[str, Any]] = {}
        skipped: list[int] = []  # new indexes of the blocks skipped
        last = -1  # the last skipped block's index in the last import
        parsed_keys: list[tuple[int, tuple]] = []
        self.keys = []
        try:
            for i, b in enumerate(found.blocks):
                f = was.get(self._key(b))
                if (f is not None and self._key(b) not in twice and not f.get("x") and f["i"] > last
                        and (not f["c"][1] or (same_path and f.get("o") == self.counts["mms"]))):
                    last = f["i"]
                    skipped.append(i)
                    self.old[i] = f["i"]
                    for k, n in zip(COUNTS, f["c"]):
                        self.counts[k] += n
                    for key in by_index.get(f["i"], ()):
                        if key not in self.chats:
                            c = was_chats[key]
                            chat = Chat(PLATFORM, key, c[1], group=c[2], participants=c[3], handles=c[4])
                            self.chats[key] = chat
                            self.first[key] = i
                            out.extend(self._new(chat))
                    facts[i] = {**f, "i": i}
                    continue
                offset = self.counts["mms"]
                start = len(self.keys)
                ((_i, data),) = blocks_of(self.path, found, [i])  # only a block read is read again
                out.extend(self._block(i, elements(data, found.root)))
                self.fact["o"] = offset
                facts[i] = self.fact
                parsed_keys.extend((i, k) for k in self.keys[start:])
                if len(out) > RESUME_LIMIT:
                    return None, "more than a few blocks changed: read whole"
        except (ET.ParseError, OSError):
            return None, "a changed block does not parse alone: read whole"
        self.keys = None
        # a block of the last import not found again, that held a repeated message
        found_again = {self._key(found.blocks[i]) for i in skipped}
        if any(f.get("u") for d, f in was.items() if d not in found_again):
            return None, "a block holding a repeated message changed: read whole and compared"
        # a chat first named in a block that changed, and not named before the next skipped one
        if not self._chats_placed(found, skipped, was_chats):
            return None, "the first message of a chat changed: read whole and compared"
        # a message repeated between a block read and one skipped
        if self._repeats_skipped(found, skipped, facts, parsed_keys):
            return None, "a new or changed message repeats one in a block not read: read whole"
        self._mark_repeats({i: f for i, f in facts.items() if f.get("p")})
        self.state = self._state(found, facts)
        return out, ""

    def _chats_placed(self, found: Scan, skipped: list[int], was_chats: dict[str, list[Any]]) -> bool:
        """Whether every chat of the last import whose first block was not skipped is first
        named, this time, in a block read before any skipped block that came after it then."""
        kept = set(self.old.values())
        for key, c in was_chats.items():
            if c[0] in kept:
                continue
            limit = next((i for i in skipped if self.old[i] > c[0]), len(found.blocks))
            if key not in self.first or self.first[key] >= limit:
                return False
        return True

    def _repeats_skipped(self, found: Scan, skipped: list[int], facts: dict[int, dict[str, Any]],
                         parsed_keys: list[tuple[int, tuple]]) -> bool:
        """Whether a record read has the natural key of one in a skipped block (whose times
        cover its time: those blocks are parsed to see)."""
        spans = sorted((facts[i]["lo"], facts[i]["hi"], i) for i in skipped if facts[i].get("lo") is not None)
        if not spans or not parsed_keys:
            return False
        los = [s[0] for s in spans]
        reach: list[int] = []  # the latest `hi` among spans[: k + 1]
        for s in spans:
            reach.append(max(s[1], reach[-1]) if reach else s[1])
        wanted: set[int] = set()
        for _i, key in parsed_keys:
            d = key[-1]
            k = bisect.bisect_right(los, d) - 1
            while k >= 0 and reach[k] >= d:
                if spans[k][1] >= d:
                    wanted.add(spans[k][2])
                k -= 1
        if not wanted:
            return False
        mine = {key for _i, key in parsed_keys}
        dry = _Run(self.path, self.options)
        dry.owner = self.owner
        dry.keys = []
        for _i, data in blocks_of(self.path, found, sorted(wanted)):
            for _ in dry._block(_i, elements(data, found.root)):
                pass
        return any(k in mine for k in dry.keys)

    def _element(self, element: ET.Element) -> Iterator[Record]:
        date = _int(element.get("date") or "")
        if date is not None:
            self.lo = date if self.lo is None or date < self.lo else self.lo
            self.hi = date if self.hi is None or date > self.hi else self.hi
        raw = _serialized(element)
        if len(raw) > 20_000:  # base64 parts: keep the record readable
            raw = re.sub(r'data="[^"]{200,}"', lambda m: f'data="[{len(m.group(0)) - 7} base64 characters]"', raw)
        try:
            if element.tag == "sms":
                yield from self._sms(element, raw)
            elif element.tag == "mms":
                yield from self._mms(element, raw)
            elif element.tag == "call":
                yield from self._call(element, raw)
            else:
                yield Problem(self.where, None, f"unknown element <{element.tag}>", raw[:2000])
        except (ValueError, OverflowError, TypeError) as e:
            yield Problem(self.where, None, f"unreadable <{element.tag}> ({e})", raw[:20_000],
                          None)

    def _group(self, e: ET.Element, address: str) -> Chat | None:
        """The Signal group a message of Signal's plaintext export was sent in, or None."""
        thread = _value(e, "thread_address")
        if not thread.startswith(SIGNAL_GROUP):
            thread = address if address.startswith(SIGNAL_GROUP) else ""
        if not thread:
            return None
        key = KEY_PREFIX + thread
        chat = self.chats.get(key)
        if chat is None:
            chat = self.chats[key] = Chat(PLATFORM, key, "Signal group " + thread[len(SIGNAL_GROUP):][:8],
                                          group=True)
            self.first[key] = self.block
        return chat

    def _chat(self, numbers: list[str], names: list[str]) -> Chat:
        known = self.chat_keys.get((*numbers, "\x00", *names))
        if known is not None:
            return self.chats[known]
        chat = self._new_chat(numbers, names)
        if len(self.chat_keys) > 100_000:
            self.chat_keys.clear()
        self.chat_keys[(*numbers, "\x00", *names)] = chat.key
        return chat

    def _new_chat(self, numbers: list[str], names: list[str]) -> Chat:
        others = [(n, names[i] if i < len(names) else "") for i, n in enumerate(numbers)
                  if n and not self._is_owner(n)]
        if not others:  # a message to yourself
            others = [(n, names[i] if i < len(names) else "") for i, n in enumerate(numbers) if n][:1]
        keys = sorted({phone_key(n) for n, _ in others}) or ["unknown"]
        key = KEY_PREFIX + "~".join(keys)
        chat = self.chats.get(key)
        if chat is None:
            shown = [name or number for number, name in others]
            group = len(keys) > 1
            chat = Chat(PLATFORM, key, ", ".join(shown) if group else (shown[0] if shown else "Unknown"),
                        group=group, participants=shown, handles=[n for n, _ in others])
            self.chats[key] = chat
            self.first[key] = self.block
        return chat

    def _new(self, chat: Chat) -> Iterator[Chat]:
        """The chat record, the first time a message names it."""
        if chat.key not in self.yielded:
            self.yielded.add(chat.key)
            yield chat

    def _message_id(self, chat: Chat, date: str, sender: str, text: str) -> str:
        n = self.occurrences.next((chat.key, date, sender, text))
        if n or self.keys is not None:
            when = _int(date) or 0
            if n:
                self.dates.append(when)
            if self.keys is not None:
                self.keys.append((chat.key, date, sender, text, when))
        return message_id_from_content(PLATFORM, chat.key, date, sender, text, n)

    def _sms(self, e: ET.Element, raw: str) -> Iterator[Record]:
        self.counts["sms"] += 1
        address, kind = _value(e, "address"), _int(_value(e, "type")) or SMS_RECEIVED
        names = [_value(e, "contact_name")] if _value(e, "contact_name") not in ("", "(Unknown)") else []
        chat = self._group(e, address) or self._chat([address], names)
        yield from self._new(chat)
        mine = kind != SMS_RECEIVED
        if address.startswith(SIGNAL_GROUP):  # the group, not who wrote it
            address, names = "", names or ["Unknown"]
        sender = OWNER if mine else (names[0] if names else address)
        text = _value(e, "body")
        msg = Message(id=self._message_id(chat, _value(e, "date"), OWNER if mine else phone_key(address), text),
                      platform=PLATFORM, chat_id=chat.id, sent_at=from_ms(_value(e, "date")),
                      sender=sender, sender_handle=None if mine else address or None, text=text, raw=raw)
        if _value(e, "subject"):
            msg.extra["subject"] = _value(e, "subject")
        if _sent_time(_value(e, "date_sent")):
            msg.extra["date_sent"] = _sent_time(_value(e, "date_sent"))  # the sender's phone's time
        self._status(msg, kind, {SMS_DRAFT: "draft", SMS_OUTBOX: "outbox", SMS_FAILED: "failed",
                                 SMS_QUEUED: "queued"})
        yield msg

    def _status(self, msg: Message, kind: int, names: dict[int, str]) -> None:
        if kind in names:
            msg.extra["status"] = names[kind]
            if names[kind] == "draft":
                self.counts["draft"] += 1

    def _mms(self, e: ET.Element, raw: str) -> Iterator[Record]:
        self.counts["mms"] += 1
        box = _int(_value(e, "msg_box")) or MMS_INBOX
        group = self._group(e, _value(e, "address"))
        numbers = [n for n in _numbers(_value(e, "address")) if not n.startswith(SIGNAL_GROUP)]
        addrs = [(a.get("address") or "", _int(a.get("type") or "")) for a in e.iter("addr")]
        if not numbers:
            numbers = [a for a, t in addrs if a and a != NO_ADDRESS]
        names = [n.strip() for n in _value(e, "contact_name").split(",")] if _value(e, "contact_name") else []
        if names == ["(Unknown)"]:
            names = []
        chat = group or self._chat(numbers, names if len(names) == len(numbers) else [])
        yield from self._new(chat)
        sender_number = next((a for a, t in addrs if t == ADDR_FROM), "")
        mine = box != MMS_INBOX or (sender_number and self._is_owner(sender_number))
        texts, attachments = [], []
        for number, part in enumerate(e.iter("part")):
            ct = _value(part, "ct")
            if ct == SMIL:
                continue
            if ct.startswith("text/plain"):
                texts.append(_value(part, "text"))
                continue
            data = part.get("data") or ""
            size = _decoded_size(data) if data else None
            if data:
                self.counts["embedded"] += 1
            name = _value(part, "name") or _value(part, "fn") or _value(part, "cl") or None
            # the file is the part's base64 data: found again by its place in the backup
            # (store/media.py reads it, streaming the XML); a part kept without data is missing
            locator = ("mms:" + json.dumps([str(self.path.absolute()), self.counts["mms"] - 1, number,
                                            e.get("date"), name]) if data else None)
            attachments.append(Attachment(name=name, mime_type=ct or None, size=size, path=locator,
                                          present=bool(data)))
        text = "\n".join(t for t in texts if t)
        handle: str | None
        if mine:
            sender, handle, author = OWNER, None, OWNER
        else:
            sent_by = sender_number or (numbers[0] if len(numbers) == 1 else "")
            idx = numbers.index(sent_by) if sent_by in numbers else -1
            sender = names[idx] if 0 <= idx < len(names) and len(names) == len(numbers) else (sent_by or "Unknown")
            handle, author = sent_by, phone_key(sent_by)
        msg = Message(id=self._message_id(chat, _value(e, "date"), author, text),
                      platform=PLATFORM, chat_id=chat.id, sent_at=from_ms(_value(e, "date")),
                      sender=sender, sender_handle=handle or None, text=text,
                      kind="media" if attachments else "text", attachments=attachments, raw=raw)
        if _value(e, "sub"):
            msg.extra["subject"] = _value(e, "sub")
        if _sent_time(_value(e, "date_sent")):
            msg.extra["date_sent"] = _sent_time(_value(e, "date_sent"))
        if _int(_value(e, "m_type")) == MMS_NOTIFICATION_IND:
            msg.extra["status"] = "not downloaded"  # the phone was told of it, never fetched it
        self._status(msg, box, {MMS_DRAFTS: "draft", MMS_OUTBOX: "outbox"})
        yield msg

    def _call(self, e: ET.Element, raw: str) -> Iterator[Record]:
        self.counts["call"] += 1
        number = _value(e, "number")
        names = [_value(e, "contact_name")] if _value(e, "contact_name") not in ("", "(Unknown)") else []
        hidden = HIDDEN_CALLERS.get(_int(_value(e, "presentation")) or 1)
        if hidden and not re.search(r"\d", number):
            number, names = hidden, [hidden]  # no number shown ("", "-2"...): one chat per kind
        chat = self._chat([number], names)
        yield from self._new(chat)
        kind = _int(_value(e, "type")) or CALL_INCOMING
        duration = _int(_value(e, "duration"))
        direction = "outgoing" if kind == CALL_OUTGOING else ("missed" if kind in UNANSWERED_CALLS else "incoming")
        # answered on another device (7) is answered; blocked (6) and rejected (5) are missed
        if self.keys is not None:
            self.keys.append(("call", chat.key, _value(e, "date"), kind, _int(_value(e, "date")) or 0))
        yield Call(id=call_id(PLATFORM, chat.key, _value(e, "date"), kind), platform=PLATFORM, chat_id=chat.id,
                   started_at=from_ms(_value(e, "date")), direction=direction, media="voice",
                   duration=duration, answered=None if kind == CALL_OUTGOING else kind not in UNANSWERED_CALLS,
                   peer=chat.name, raw=raw)


ATTRIBUTE_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"),
                     ("\r", "&#13;"), ("\n", "&#10;"), ("\t", "&#09;"))
SPECIAL = re.compile('[&<>"\r\n\t]')


def _serialized(element: ET.Element) -> str:
    """`ET.tostring(element, encoding="unicode")` without the element's tail (the blank after
    it: the parser gives it or not depending on where its reads of the file fall), the same
    characters, written directly for an element of attributes only (an <sms>, a <call>: most
    of a backup), where ElementTree's general writer costs more than the rest of the parse."""
    tag, attrib = element.tag, element.attrib
    if len(element) or element.text or "{" in tag or "{" in "".join(attrib):
        tail, element.tail = element.tail, None
        try:
            return ET.tostring(element, encoding="unicode")
        finally:
            element.tail = tail
    if not SPECIAL.search("".join(attrib.values())):  # nothing to escape, as most often
        return f"<{tag}" + "".join([f' {key}="{value}"' for key, value in attrib.items()]) + " />"
    out = [f"<{tag}"]
    for key, value in attrib.items():
        for char, escaped in ATTRIBUTE_ESCAPES:
            if char in value:
                value = value.replace(char, escaped)
        out.append(f' {key}="{value}"')
    out.append(" />")
    return "".join(out)


def _sender_of_sent(mms: ET.Element) -> str | None:
    """The "from" number of a sent MMS (what teaches the owner's number), or None."""
    if _value(mms, "msg_box") != str(MMS_SENT):
        return None
    for a in mms.iter("addr"):
        number = a.get("address") or ""
        if _int(a.get("type") or "") == ADDR_FROM and number and number != NO_ADDRESS:
            return number
    return None


def _decoded_size(data: str) -> int | None:
    """Bytes of a base64 attribute, without decoding it all."""
    stripped = data.strip()
    if len(stripped) % 4:
        try:
            return len(base64.b64decode(stripped + "=" * (-len(stripped) % 4)))
        except (binascii.Error, ValueError):
            return None
    return len(stripped) // 4 * 3 - stripped[-2:].count("=")

