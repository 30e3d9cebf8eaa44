"""What a re-import of a Messenger / Instagram thread needs to decode (issue 17).

A thread's files (`message_1.json` newest) hold its messages newest first, split into files of
up to 10,000; a newer download puts its new messages at the start of `message_1.json` and moves
every later message down, so the split moves and every file of a long thread changes. What stays
is the run of the messages' bytes: the files' message lists laid end to end (each file's list
between its first message's "{" and its last message's "}", joined with the separator the files
use between messages) end with the run the last import read. The import keeps, for that run,
the digest of each stretch it added (the oldest first), and of the bytes every file holds
before and after its list (the participants, title...: the same in every file of a thread).

A re-import whose files have the same bytes around their lists, and whose run ends with the
stretches it kept, separator before them, decodes only the run's start before that: the new
messages. Those must be newer than every message the last import read (or the whole thread is
read: equal times would number repeated messages differently). A file whose split falls inside
a message cannot pass: the run's bytes at that point are the kept ones, so the split is where a
separator (a line break and the list's indentation, never inside a JSON string) was.

Everything else (a changed message, a new participant, a different separator) reads the files
whole, as before, and the store compares.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chatmem.errors import FormatError

from .json_scan import Broken, Bytes, Cursor, new_digest, reading, shown

STATE_KEY = "meta"
STATE_VERSION = 1
MAX_STRETCHES = 16  # kept digests; past this many the run's digest is taken whole again


@dataclass
class Layout:
    """Where a thread file's message list is in its bytes."""

    size: int
    start: int = 0  # its first message's first byte
    end: int = 0  # past its last message's last byte
    count: int = 0
    sep: str | None = None  # between its messages, when every pair has the same ("" unknown)
    around: str = ""  # digest of the bytes before `start` and after `end`


KEEP = 10_000  # messages of one file kept decoded from its scan to its records (Meta's files hold 10,000)
BATCH_BYTES = 1 << 20  # bytes read at a time when a file's messages are decoded again from its bytes


@dataclass
class ThreadFile:
    """One thread file, scanned: every key but the message list, where each message lies in its
    bytes, and the messages themselves when there are at most KEEP of them (more are decoded
    again from their bytes, a batch at a time, when they are read)."""

    path: Path
    head: dict[str, Any]  # what json.loads gives for the document, without "messages"
    layout: Layout
    listed: bool = False  # the document is an object whose "messages" is a list
    spans: array = field(default_factory=lambda: array("q"))  # start, end byte of each message
    times: array = field(default_factory=lambda: array("d"))  # each message's time (sort_time)
    values: list[Any] | None = None

    @property
    def count(self) -> int:
        return len(self.spans) // 2

    def oldest_first(self) -> Iterator[tuple[int, Any]]:
        """(index in the file's list, message) oldest first: the list from its last message to
        its first (Meta writes the newest first), sorted by time when it is not in that order
        (the encrypted download's files are oldest first); equal times keep that order."""
        times, n = self.times, self.count
        order: list[int] | range = range(n - 1, -1, -1)
        if any(times[i] > times[i - 1] for i in range(1, n)):  # not newest first
            order = sorted(order, key=times.__getitem__)
        if self.values is not None:
            values = self.values
            for i in order:
                yield i, values[i]
            return
        try:
            f = self.path.open("rb")
        except OSError as e:
            raise FormatError(f"{self.path}: cannot read ({e})") from e
        with f:
            data = Bytes(f)
            if isinstance(order, range):
                yield from self._batches(data)
                return
            for i in order:
                yield i, self._decode(data[self.spans[2 * i]:self.spans[2 * i + 1]], i)

    def _decode(self, raw: bytes, i: int) -> Any:
        try:
            return json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):
            raise FormatError(f"{self.path}: changed while it was being read (its message at byte "
                              f"{self.spans[2 * i]:,} is no longer whole JSON)") from None

    def _batches(self, data: Bytes) -> Iterator[tuple[int, Any]]:
        """The messages from the last to the first, read a batch of bytes at a time."""
        spans, j = self.spans, self.count
        while j > 0:
            lo, top = j - 1, spans[2 * j - 1]
            while lo > 0 and top - spans[2 * lo - 2] <= BATCH_BYTES:
                lo -= 1
            base = spans[2 * lo]
            chunk = data[base:top]
            for i in range(j - 1, lo - 1, -1):
                yield i, self._decode(chunk[spans[2 * i] - base:spans[2 * i + 1] - base], i)
            j = lo


def sort_time(m: Any) -> float:
    """A message's time in ms (-inf when it has none): what the messages are ordered by."""
    if not isinstance(m, dict):
        return float("-inf")
    value = m.get("timestamp_ms", m.get("timestamp"))
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else float("-inf")


def scan_file(path: Path, keep: int = KEEP) -> ThreadFile:
    """The file scanned (see ThreadFile; its messages kept decoded when at most `keep`);
    FormatError naming the file and the line, column and byte where it is broken."""
    with reading(path, lambda at, why: f"not complete JSON ({at}: {why})") as data:
        return _scan(path, data, keep)


def _scan(path: Path, data: Bytes, keep: int) -> ThreadFile:
    c = Cursor(data)
    out = ThreadFile(path, {}, Layout(len(data)))
    if c.text.startswith("\ufeff"):
        c.i = 1
    if c.ws() != "{":
        c.value()
        _end(c)
        return out
    c.i += 1
    if c.ws() == "}":
        c.i += 1
    else:
        while True:
            key = c.key()
            if key == "messages" and c.ws() == "[":  # the last of a repeated key counts, as in json.loads
                out.head.pop(key, None)
                out.layout, out.spans, out.times, out.listed = Layout(len(data)), array("q"), array("d"), True
                out.values = _messages(c, out, keep)
            else:
                out.head[key] = c.value()
                if key == "messages":
                    out.listed, out.layout, out.spans, out.times, out.values = (
                        False, Layout(len(data)), array("q"), array("d"), None)
            nxt = c.ws()
            c.i += 1
            if nxt == "}":
                break
            if nxt != ",":
                raise Broken(c.pos(c.i - 1), f"expected ',' or '}}', found {shown(nxt)}")
    _end(c)
    layout = out.layout
    if layout.count:
        h = new_digest()
        data.hash_into(h, 0, layout.start)
        h.update(b"\0")
        data.hash_into(h, layout.end, layout.size)
        layout.around = h.hexdigest()
    return out


def _end(c: Cursor) -> None:
    rest = c.ws()
    if rest:
        raise Broken(c.pos(), f"more after the end of the document ({shown(rest)})")


class _Offsets:
    """Byte offsets of text positions in the cursor's window, counted on from the last one asked
    (a window of non-ASCII text would otherwise be encoded from its start for each message)."""

    def __init__(self, c: Cursor) -> None:
        self.c = c
        self.base, self.i, self.at = -1, 0, 0

    def __call__(self, i: int) -> int:
        c = self.c
        if c.ascii:
            return c.base + i
        if c.base != self.base or i < self.i:
            self.base, self.i, self.at = c.base, 0, c.base
        self.at += len(c.text[self.i:i].encode("utf-8"))
        self.i = i
        return self.at


def _messages(c: Cursor, into: ThreadFile, keep: int) -> list[Any] | None:
    """The list at the cursor's "[", one message at a time, noting where each lies; the
    messages themselves while there are at most `keep`."""
    c.i += 1
    out: list[Any] | None = []
    if c.ws() == "]":
        c.i += 1
        return out
    layout, spans, times = into.layout, into.spans, into.times
    offset = _Offsets(c)
    layout.start = offset(c.i)
    seps: set[str] = set()
    while True:
        start = offset(c.i)
        value = c.value()
        text, base, i = c.text, c.base, c.i
        end = offset(i)
        spans.append(start)
        spans.append(end)
        times.append(sort_time(value))
        if out is not None:
            if len(out) < keep:
                out.append(value)
            else:
                out = None
        nxt = c.ws()
        c.i += 1
        if nxt == "]":
            layout.end = end
            break
        if nxt != ",":
            raise Broken(c.pos(c.i - 1), f"expected ',' or ']', found {shown(nxt)}")
        c.ws()
        if c.base == base:
            seps.add(text[i:c.i])
        else:  # across the window's edge: from the bytes
            seps.add(c.data[end:c.pos()].decode("utf-8"))
    layout.count = len(spans) // 2
    layout.sep = seps.pop() if len(seps) == 1 else ("" if not seps else None)
    return out


@dataclass
class Run:
    """The thread's messages' bytes laid end to end (see the module's text)."""

    files: list[Path]
    layouts: list[Layout]
    sep: bytes
    pieces: list[tuple[int, int, int]] = field(default_factory=list)  # (file, start, end); a sep between

    def __post_init__(self) -> None:
        self.pieces = [(k, lay.start, lay.end) for k, lay in enumerate(self.layouts)]

    @property
    def length(self) -> int:
        return sum(e - s for _, s, e in self.pieces) + len(self.sep) * max(0, len(self.pieces) - 1)

    def stretch(self, a: int, b: int) -> list[tuple[int, int, int] | None]:
        """The run's bytes a..b as file spans (None: a separator)."""
        out: list[tuple[int, int, int] | None] = []
        at = 0
        for n, (k, s, e) in enumerate(self.pieces):
            if n:
                if a < at + len(self.sep) and b > at:
                    out.append(None if a <= at and b >= at + len(self.sep) else (-1, max(a, at) - at, min(b, at + len(self.sep)) - at))
                at += len(self.sep)
            lo, hi = max(a, at), min(b, at + e - s)
            if lo < hi:
                out.append((k, s + lo - at, s + hi - at))
            at += e - s
        return out

    def digest(self, a: int, b: int, like: str | None = None) -> str:
        h = new_digest(like=like)
        opened: dict[int, Any] = {}
        try:
            for span in self.stretch(a, b):
                if span is None:
                    h.update(self.sep)
                elif span[0] < 0:
                    h.update(self.sep[span[1]:span[2]])
                else:
                    k, s, e = span
                    if k not in opened:
                        opened[k] = self.files[k].open("rb")
                    Bytes(opened[k]).hash_into(h, s, e)
        finally:
            for f in opened.values():
                f.close()
        return h.hexdigest()

    def read(self, a: int, b: int) -> list[tuple[int, bytes]]:
        """The bytes a..b per file (separators between files left out)."""
        out = []
        for span in self.stretch(a, b):
            if span is not None and span[0] >= 0:
                k, s, e = span
                with self.files[k].open("rb") as f:
                    out.append((k, Bytes(f)[s:e]))
        return out


def kept_state(files: list[Path], layouts: list[Layout], newest: float | None, context: str) -> dict[str, Any] | None:
    """What the next import compares with: the stretches of the run (oldest first), the bytes
    around the lists, the separator, the newest message's time. None when the files do not
    allow it (a file without messages, different bytes around the lists, mixed separators)."""
    if not layouts or any(not lay.count or lay.sep is None for lay in layouts) or newest is None:
        return None
    if len({lay.around for lay in layouts}) != 1:
        return None
    seps = {lay.sep for lay in layouts if lay.sep}
    if len(seps) > 1:
        return None
    sep = seps.pop() if seps else _guess_sep(files[0], layouts[0])
    if sep is None:
        return None
    run = Run(files, layouts, sep.encode("utf-8"))
    before = layouts[0].start
    after = layouts[0].size - layouts[0].end
    stretches = [[run.length, run.digest(0, run.length)]]
    return {"v": STATE_VERSION, "around": layouts[0].around, "before": before, "after": after, "sep": sep,
            "stretches": stretches, "newest": newest, "context": context}


def _guess_sep(path: Path, layout: Layout) -> str | None:
    """A file of one message shows no separator: "," and the whitespace its list starts with."""
    with path.open("rb") as f:
        head = Bytes(f)[max(0, layout.start - 64):layout.start]
    at = head.rfind(b"[")
    if at < 0:
        return None
    ws = head[at + 1:]
    return "," + ws.decode("ascii") if not ws.strip() else None


@dataclass
class New:
    """The new messages' bytes of a thread that only grew, per file, and the stretch they add."""

    parts: list[tuple[int, bytes]]
    added: tuple[int, str]
    layouts: list[Layout]


def only_new(files: list[Path], kept: dict[str, Any], context: str) -> New | None:
    """The new messages of a newer download whose run ends with the kept one (None: read it whole)."""
    if kept.get("v") != STATE_VERSION or kept.get("context") != context:
        return None
    before, after, sep = kept["before"], kept["after"], kept["sep"].encode("utf-8")
    layouts = []
    for path in files:
        try:
            with path.open("rb") as f:
                data = Bytes(f)
                size = len(data)
                if size < before + after or size - after <= before:
                    return None
                h = new_digest(like=kept["around"])
                data.hash_into(h, 0, before)
                h.update(b"\0")
                data.hash_into(h, size - after, size)
        except OSError:
            return None
        if h.hexdigest() != kept["around"]:
            return None
        layouts.append(Layout(size, before, size - after, 1, None, kept["around"]))
    run = Run(files, layouts, sep)
    total = run.length
    old = sum(n for n, _ in kept["stretches"]) + len(sep) * (len(kept["stretches"]) - 1)
    fresh = total - old - len(sep)  # the new messages' bytes, before the separator
    if fresh <= 0:
        return None
    at = total
    for n, digest in kept["stretches"]:  # the oldest stretch ends the run
        if run.digest(at - n, at, digest) != digest:
            return None
        at -= n
        if run.digest(at - len(sep), at) != new_digest(sep).hexdigest():
            return None
        at -= len(sep)
    assert at == fresh
    return New(run.read(0, fresh), (fresh, run.digest(0, fresh)), layouts)


def decode_new(new: New) -> list[tuple[int, list[Any]]] | None:
    """The new messages per file (file index, messages in file order); None when they do not
    decode as whole messages."""
    out = []
    for k, raw in new.parts:
        try:
            messages = json.loads(b"[" + raw + b"]")
        except (ValueError, RecursionError):
            return None
        out.append((k, messages))
    return out
