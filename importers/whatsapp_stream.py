"""Reading a WhatsApp chat text as a stream, and resuming where the last import stopped.

Memory does not grow with the export: the text is read line by line, twice (a first pass
learns what only the whole file tells — date order, authors, the chat's names — and a second
yields the records), and repeated messages are numbered with a window of recent times.

A newer export of the same chat starts with the same bytes as the one imported before. So the
first pass leaves a checkpoint every `CHECKPOINT_ENTRIES` messages: the byte offset and line of a
message's header, a digest of every byte before it, and what the first pass had learned by then.
The last checkpoint goes into the source's import state; the next import checks the digest of
that prefix and reads only from there on, producing exactly the records a full read would
(same ids, same occurrence numbers, same line numbers), or reads the whole file again when the
prefix changed or the new part changes a whole-file decision.

    >>> occ = WindowOccurrences(); from datetime import datetime as d
    >>> [occ.next(("2023-01-01T10:00", "Anna", "hi"), d(2023, 1, 1, 10)) for _ in range(2)]
    [0, 1]
"""

from __future__ import annotations

import codecs
import hashlib
import io
from array import array
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, BinaryIO

from .byte_digest import KIND, hasher, marked
from .whatsapp_header import ClockStats, DateOrderStats
from .whatsapp_source import ChatText

CHUNK = 1 << 20
CHECKPOINT_ENTRIES = 1000  # a resumed import re-reads at most this many known messages
OCCURRENCE_WINDOW = timedelta(days=2)  # messages this much older than the newest are settled
EVICT_EVERY = 4096
RESUME_VERSION = 2  # 2: header signatures say time-first; 12-hour markers and group authors
_BYTE_LINES = ("utf-8", "cp1252", "latin-1")  # encodings whose lines can be split as bytes


# ----------------------------------------------------------------------------- bytes and lines

@dataclass
class Encoding:
    """How a chat text is decoded: the same choice `whatsapp_source.decode` makes for the
    whole text, found by streaming over it."""

    codec: str
    errors: str = "strict"
    notes: list[str] = field(default_factory=list)

    @property
    def resumable(self) -> bool:
        """Lines split as bytes, so that a byte offset marks a line (UTF-16 does not)."""
        return self.codec in _BYTE_LINES and self.errors == "strict"


def _chunks(fh: BinaryIO) -> Iterator[bytes]:
    while True:
        chunk = fh.read(CHUNK)
        if not chunk:
            return
        yield chunk


def _decodes(chat: ChatText, codec: str, skip: int = 0) -> bool:
    dec = codecs.getincrementaldecoder(codec)("strict")
    with chat.open() as fh:
        if skip:
            _skip(fh, skip)
        try:
            for chunk in _chunks(fh):
                dec.decode(chunk)
            dec.decode(b"", final=True)
        except UnicodeDecodeError:
            return False
    return True


def _skip(fh: BinaryIO, n: int) -> None:
    """Past the next `n` bytes: a file's position is set (a 1M export's 80 MB already imported
    were read twice just to be passed over), a zip member's bytes are read."""
    if fh.seekable():
        fh.seek(n, io.SEEK_CUR)
        return
    while n > 0:
        got = len(fh.read(min(n, CHUNK)))
        if not got:
            return
        n -= got


def text_encoding(chat: ChatText, valid_prefix: int = 0) -> Encoding:
    """UTF-8 (a BOM stays in the text, as exported); UTF-16 when a BOM or the NUL pattern says
    so; otherwise UTF-8 with the few bad bytes replaced, or cp1252 / Latin-1 when most
    non-ASCII bytes are not UTF-8. `valid_prefix`: that many first bytes are known to be
    UTF-8 (checked by the import that read them, and unchanged since)."""
    where = chat.where
    with chat.open() as fh:
        head = fh.read(400)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return Encoding("utf-16", "replace")
    if head.count(0) > len(head) // 4:
        enc = "utf-16-le" if head[1::2].count(0) > head[0::2].count(0) else "utf-16-be"
        return Encoding(enc, "replace", [f"{where}: read as {enc} (no byte-order mark)"])
    if _decodes(chat, "utf-8", skip=valid_prefix):  # a prefix already checked need not be again
        return Encoding("utf-8")
    bad = good = 0
    dec = codecs.getincrementaldecoder("utf-8")("replace")
    carry = b""
    with chat.open() as fh:
        for chunk in _chunks(fh):
            text = dec.decode(chunk)
            replaced = text.count("\ufffd")
            bad += replaced
            good += len(text) - len(text.encode("ascii", "ignore")) - replaced
            both = carry + chunk  # a literal U+FFFD in the file is not a bad byte
            bad -= both.count(b"\xef\xbf\xbd") - carry.count(b"\xef\xbf\xbd")
            carry = chunk[-2:]
        text = dec.decode(b"", final=True)  # a sequence cut off by the end of the file
        bad += text.count("\ufffd")
        good -= text.count("\ufffd") - (len(text) - len(text.encode("ascii", "ignore")))
    if good >= bad:
        return Encoding("utf-8", "replace",
                        [f"{where}: {bad} byte sequence(s) that are not UTF-8 were replaced by U+FFFD"])
    if _decodes(chat, "cp1252"):
        return Encoding("cp1252", notes=[f"{where}: not UTF-8; read as Windows-1252"])
    return Encoding("latin-1", notes=[f"{where}: not UTF-8; read as Latin-1"])


def read_lines(chat: ChatText, enc: Encoding, offset: int = 0) -> Iterator[tuple[bytes, str]]:
    """(raw bytes, text) of each line, as `text.split("\\n")` would cut the decoded text but
    without the empty piece after a final line break; from byte `offset` on (a line start)."""
    with chat.open() as fh:
        if enc.codec not in _BYTE_LINES:
            wrapper = io.TextIOWrapper(fh, encoding=enc.codec, errors=enc.errors, newline="\n")
            for line in wrapper:
                yield b"", line[:-1] if line.endswith("\n") else line
            return
        if offset:
            _skip(fh, offset)
        codec, errors = enc.codec, enc.errors
        for raw in fh:
            text = raw[:-1] if raw.endswith(b"\n") else raw
            yield raw, text.decode(codec, errors)


# The digest of the bytes before a checkpoint, written "xxh3:<hex>" (XXH3-128: the 80 MB before a
# 1M export's checkpoint in 0.01 s of CPU, BLAKE2b-128 0.1 s); an unmarked one is BLAKE2b-128, as
# earlier versions wrote it, and is still checked as such (a store need not read its exports
# whole again after an upgrade).
def prefix_digest(chat: ChatText, length: int, recorded: str = "") -> tuple[str, Any] | None:
    """Digest of the first `length` bytes in the kind `recorded` is (None when the text is
    shorter), and the running XXH3 hash of them, to go on hashing what follows."""
    h = hasher()
    earlier = None if recorded.startswith(KIND + ":") else hashlib.blake2b(digest_size=16)
    left = length
    with chat.open() as fh:
        while left > 0:
            chunk = fh.read(min(left, CHUNK))
            if not chunk:
                return None
            h.update(chunk)
            if earlier is not None:
                earlier.update(chunk)
            left -= len(chunk)
    return (earlier.hexdigest() if earlier is not None else marked(h)), h


# ----------------------------------------------------------------------------- occurrences

def _key_hash(parts: tuple) -> int:
    data = "\x1f".join(parts[1:]).encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


class WindowOccurrences:
    """`Occurrences` over a stream: numbers repeated (when, sender, text) keys in order, keeping
    only recent times in memory. Keys older than the newest time by more than
    `OCCURRENCE_WINDOW` move to a compact array of hashes, consulted only for a message that
    turns up that late (a phone clock set back)."""

    def __init__(self) -> None:
        self.buckets: dict[str, tuple[datetime, dict[int, int]]] = {}
        self.newest: datetime | None = None
        self.evicted_below: datetime | None = None
        self.old = array("Q")
        self.old_counts: Counter[int] | None = None
        self.count = 0

    def next(self, key: tuple, dt: datetime) -> int:
        when = key[0]
        h = _key_hash(key)
        bucket = self.buckets.get(when)
        if bucket is None:
            bucket = self.buckets[when] = (dt, {})
        n = bucket[1].get(h, 0)
        if self.evicted_below is not None and dt < self.evicted_below:
            if self.old_counts is None:
                self.old_counts = Counter(self.old)
            n_old = self.old_counts.get(h, 0)
        else:
            n_old = 0
        bucket[1][h] = n + 1
        if self.newest is None or dt > self.newest:
            self.newest = dt
        self.count += 1
        if self.count % EVICT_EVERY == 0:
            self._evict()
        return n + n_old

    def _evict(self) -> None:
        assert self.newest is not None
        horizon = self.newest - OCCURRENCE_WINDOW
        for when in [w for w, (dt, _) in self.buckets.items() if dt < horizon]:
            _, counts = self.buckets.pop(when)
            for h, n in counts.items():
                if self.old_counts is not None:
                    self.old_counts[h] += n
                self.old.extend([h] * n)
        if self.evicted_below is None or horizon > self.evicted_below:
            self.evicted_below = horizon

    def snapshot(self) -> dict[str, Any]:
        """The recent keys (JSON): enough to go on numbering messages newer than `horizon`."""
        horizon = (self.newest - OCCURRENCE_WINDOW) if self.newest else None
        return {
            "horizon": horizon.isoformat() if horizon else None,
            "buckets": {w: [dt.isoformat(), {str(h): n for h, n in c.items()}]
                        for w, (dt, c) in self.buckets.items() if horizon is None or dt >= horizon},
        }

    @classmethod
    def restore(cls, data: dict[str, Any]) -> WindowOccurrences:
        occ = cls()
        for w, (dt, counts) in data["buckets"].items():
            occ.buckets[w] = (datetime.fromisoformat(dt), {int(h): n for h, n in counts.items()})
            occ.newest = max(occ.newest or occ.buckets[w][0], occ.buckets[w][0])
        if data.get("horizon"):
            occ.evicted_below = datetime.fromisoformat(data["horizon"])
        return occ


# ----------------------------------------------------------------------------- the first pass

class SeenCounter(Counter):
    """Authors per name, remembering every lookup the classification makes and its answer:
    when the whole file gives another answer, what the first pass decided must be redone."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.log: set[tuple] = set()

    def add(self, key: str) -> None:
        dict.__setitem__(self, key, dict.get(self, key, 0) + 1)

    def __getitem__(self, key: str) -> int:
        n = dict.get(self, key, 0)
        self.log.add(("n", key, n))
        return n

    def __contains__(self, key: object) -> bool:
        found = dict.__contains__(self, key)
        self.log.add(("in", key, found))
        return found


class SeenSet(set):
    """Names that talk (a line not starting with an invisible mark), lookups remembered."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.log: set[tuple] = set()

    def __contains__(self, key: object) -> bool:
        found = set.__contains__(self, key)
        self.log.add(("talks", key, found))
        return found


def sig_key(sig: tuple) -> str:
    return "|".join(map(str, sig))


def sig_from_key(key: str) -> tuple:
    layout, sep, *flags = key.split("|")
    return (layout, sep, *(flag == "True" for flag in flags))


class Scan:
    """What the first pass has learned: everything whole-file decisions are made from."""

    def __init__(self) -> None:
        self.layouts: Counter[str] = Counter()
        self.orders: dict[tuple, DateOrderStats] = {}
        self.authors = SeenCounter()
        self.talkers = SeenSet()
        self.group = False  # a group event was seen
        self.created: list[str] = []  # names the group was created with
        self.subjects: list[tuple[str, str]] = []  # (old, new) of subject changes
        self.people: list[str] = []  # authors of non-system messages, first seen first
        self.people_seen: set[str] = set()
        self.entries = 0
        self.first_line: int | None = None  # line of the first message header
        self.clock = ClockStats()  # the words beside the time (12-hour markers to learn)
        self.group_evidence: set[str] = set()  # authors whose lines are the group's own
        self.e2e_lines: set[int] = set()  # the end-to-end notice under an author's name

    def stale(self) -> bool:
        """True when a lookup made while the file was still being read would now be answered
        differently (an author seen again later, a name that only later wrote)."""
        for op, key, answer in self.authors.log:
            now = dict.get(self.authors, key, 0) if op == "n" else dict.__contains__(self.authors, key)
            if now != answer:
                return True
        return any(set.__contains__(self.talkers, key) != answer for _, key, answer in self.talkers.log)

    def as_json(self) -> dict[str, Any]:
        return {
            "layouts": dict(self.layouts),
            "orders": {sig_key(s): st.as_json() for s, st in self.orders.items()},
            "authors": dict(self.authors), "talkers": sorted(self.talkers),
            "log": sorted(([*k] for k in self.authors.log | self.talkers.log), key=repr),
            "group": self.group, "created": list(self.created),
            "subjects": [list(s) for s in self.subjects], "people": list(self.people),
            "entries": self.entries, "first_line": self.first_line,
            "clock": self.clock.as_json(), "group_evidence": sorted(self.group_evidence),
            "e2e_lines": sorted(self.e2e_lines),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Scan:
        scan = cls()
        scan.layouts = Counter(data["layouts"])
        scan.orders = {sig_from_key(k): DateOrderStats.from_json(v) for k, v in data["orders"].items()}
        scan.authors = SeenCounter(data["authors"])
        scan.talkers = SeenSet(data["talkers"])
        for op, key, answer in data["log"]:
            (scan.talkers.log if op == "talks" else scan.authors.log).add((op, key, answer))
        scan.group = data["group"]
        scan.created = list(data["created"])
        scan.subjects = [(o, n) for o, n in data["subjects"]]
        scan.people = list(data["people"])
        scan.people_seen = set(scan.people)
        scan.entries = data["entries"]
        scan.first_line = data["first_line"]
        scan.clock = ClockStats.from_json(data["clock"])
        scan.group_evidence = set(data["group_evidence"])
        scan.e2e_lines = set(data["e2e_lines"])
        return scan


@dataclass
class Checkpoint:
    """A message header where a later import may resume: its byte offset and 0-based line,
    the digest of every byte before it, and the first pass's knowledge up to there."""

    offset: int
    line: int
    digest: str
    scan: dict[str, Any]
