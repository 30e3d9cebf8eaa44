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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


def load_file(path: Path) -> tuple[Any, Layout]:
    """The file's JSON value, and where its message list is; FormatError naming the file and
    the line, column and byte where it is broken."""
    with reading(path, lambda at, why: f"not complete JSON ({at}: {why})") as data:
        return _load(data)


def _load(data: Bytes) -> tuple[Any, Layout]:
    c = Cursor(data)
    layout = Layout(len(data))
    if c.text.startswith("\ufeff"):
        c.i = 1
    if c.ws() != "{":
        value = c.value()
        _end(c)
        return value, layout
    c.i += 1
    obj: dict[str, Any] = {}
    if c.ws() == "}":
        c.i += 1
    else:
        while True:
            key = c.key()
            if key == "messages" and c.ws() == "[":
                obj[key] = _messages(c, layout)
            else:
                obj[key] = c.value()
            nxt = c.ws()
            c.i += 1
            if nxt == "}":
                break
            if nxt != ",":
                raise Broken(c.pos(c.i - 1), f"expected ',' or '}}', found {shown(nxt)}")
    _end(c)
    if layout.count:
        h = new_digest()
        data.hash_into(h, 0, layout.start)
        h.update(b"\0")
        data.hash_into(h, layout.end, layout.size)
        layout.around = h.hexdigest()
    return obj, layout


def _end(c: Cursor) -> None:
    rest = c.ws()
    if rest:
        raise Broken(c.pos(), f"more after the end of the document ({shown(rest)})")


def _messages(c: Cursor, layout: Layout) -> list[Any]:
    """The list at the cursor's "[", one message at a time, noting where it lies."""
    c.i += 1
    out: list[Any] = []
    if c.ws() == "]":
        c.i += 1
        return out
    layout.start = c.pos()
    seps: set[str] = set()
    while True:
        out.append(c.value())
        text, base, i = c.text, c.base, c.i
        nxt = c.ws()
        c.i += 1
        if nxt == "]":
            layout.end = base + (i if text.isascii() else len(text[:i].encode("utf-8")))
            break
        if nxt != ",":
            raise Broken(c.pos(c.i - 1), f"expected ',' or ']', found {shown(nxt)}")
        c.ws()
        if c.base == base:
            seps.add(text[i:c.i])
        else:  # across the window's edge: from the bytes
            at = base + (i if text.isascii() else len(text[:i].encode("utf-8")))
            seps.add(c.data[at:c.pos()].decode("utf-8"))
    layout.count = len(out)
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

    def digest(self, a: int, b: int) -> str:
        h = new_digest()
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
                h = new_digest()
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
        if run.digest(at - n, at) != digest:
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
