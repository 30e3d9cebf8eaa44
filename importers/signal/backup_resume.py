"""What a re-import of Signal's own export (main.jsonl) has to read again (issue 17).

A newer export of the same phone writes the same frames again: who is who first (account,
recipients, chats, sticker packs: "context"), then every chat item, one a line, oldest first.
New messages come at the end; an edit, a reaction or a deletion for everyone rewrites the
item's line where it was. So the import remembers, per block of chat item lines, a digest of
the block's bytes, and a re-import

- reads every line once without parsing it to split it into context runs and blocks of at
  most 1,024 chat item lines and digest each (XXH3-128, "xxh3:<hex>"; a state an earlier
  version wrote has BLAKE2b digests, so those are made beside, once); runs of lines that all
  start `{"chatItem":` are taken a block at a time by one regular expression (about 0.15 s of
  CPU per million lines), any other line alone;
- parses the context whole (names, members, chats: a few thousand lines at most);
- reads and parses only the blocks whose digest is new or changed.

What else makes an old item's record differ, and how it is caught:
- a name, a member or a chat changed (any context byte): the whole file is read and compared;
- the files under files/ changed (an attachment downloaded since): the blocks whose items looked
  files up are looked at again (only the lines naming a file pointer are parsed), and those whose
  lookups now find something else are read;
- a quote of an older message becomes a reply link only when that message comes earlier in the
  file (as in a whole read): for a quote whose target is in a block not read this time, the
  blocks whose item times cover the target's time (kept per block) are parsed to see whether it
  is there.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chatmem.errors import FormatError
from chatmem.records import PORTABLE, RESUME_STATE

from ..byte_digest import KIND, digest, hasher, marked

BLOCK_ITEMS = 1024  # chat item lines per digest block
STATE_VERSION = 1
ITEM_LINE = re.compile(rb'\s*\{\s*"chatItem"\s*:')
FAST_PREFIX = b'{"chatItem":'
FILE_MARKERS = (b'"pointer"', b'"longText"', b'"data"')  # lines that may look a file up
CHUNK = 1 << 22  # bytes read at a time by the scan


@functools.lru_cache(maxsize=64)
def _item_lines(n: int, exact: bool) -> re.Pattern[bytes]:
    """Exactly n (or 1 to n) lines that start as FAST_PREFIX (possessive: a run that stops
    short is not tried again line by line)."""
    return re.compile(rb"(?:" + re.escape(FAST_PREFIX) + rb"[^\n]*+\n)" + (b"{%d}" % n if exact else b"{1,%d}" % n))


def _legacy_hasher() -> Any:
    """The block digest an earlier version wrote (BLAKE2b, 8 bytes, unmarked)."""
    return hashlib.blake2b(digest_size=8)


@dataclass
class Segment:
    """A run of lines in the file: a block of chat items (`block` is its number) or context."""

    block: int | None
    start: int  # byte offset of its first line
    end: int  # byte offset after its last line
    first_line: int  # line number of its first line (1-based)
    digest: str = ""
    items: int = 0  # chat item lines in it (a context run: its lines)
    legacy: str = ""  # the BLAKE2b digest an earlier version wrote, when asked


@dataclass
class Scan:
    """main.jsonl split into segments, in file order, with a digest per block and one of the
    context (its bytes and where it sits between the blocks)."""

    segments: list[Segment] = field(default_factory=list)
    context: str = ""
    items: int = 0  # chat item lines
    lines: int = 0

    @property
    def blocks(self) -> dict[int, Segment]:
        return {s.block: s for s in self.segments if s.block is not None}


def scan(path: Path, legacy: bool = False) -> Scan:
    """One read of the file's bytes: segments and digests, nothing parsed; with `legacy`,
    each block's BLAKE2b digest beside (what a state an earlier version wrote compares)."""
    try:
        f = path.open("rb")
    except OSError as e:
        raise FormatError(f"{path}: cannot read ({e})") from e
    with f:
        return _Scanner(legacy).run(f)


class _Scanner:
    """The scan's state: the open run of lines (context or a block of items), where it is."""

    def __init__(self, legacy: bool) -> None:
        self.out = Scan()
        self.ctx = hashlib.blake2b(digest_size=16)
        self.legacy = legacy
        self.pos = 0  # file offset of the next line
        self.number = 0  # lines read
        self.blocks = 0
        self.open = False
        self.kind: int | None = None  # the open run's: None context, 0 items
        self.start = self.first = self.items = self.lines = 0
        self.parts: list[bytes] = []  # a context run's lines
        self.h: Any = None
        self.old: Any = None

    def run(self, f: Any) -> Scan:
        # one buffer, read into again and again (a new bytes object per read, joined to the
        # line left over from the last one, cost more than the rest of the scan)
        buf = bytearray(CHUNK)
        filled = 0  # bytes of buf holding data: the incomplete line left over, then a read
        while True:
            if filled == len(buf):  # a line longer than the buffer
                buf.extend(bytes(len(buf)))
            n = f.readinto(memoryview(buf)[filled:])
            if not n:
                break
            filled += n
            limit = buf.rfind(b"\n", 0, filled) + 1  # complete lines only; the rest waits
            self._lines(buf, limit)
            rest = filled - limit
            buf[:rest] = buf[limit:filled]
            filled = rest
        if filled:
            self._line(bytes(buf[:filled]))  # the last line, without its newline
        self._close()
        self.out.lines = self.number
        self.out.context = self.ctx.hexdigest()
        return self.out

    def _lines(self, buf: bytearray, limit: int) -> None:
        at = 0
        while at < limit:
            need = (BLOCK_ITEMS - self.items if self.open and self.kind == 0 and self.items < BLOCK_ITEMS
                    else BLOCK_ITEMS)
            m = _item_lines(need, True).match(buf, at, limit)
            if m is not None:
                k = need
            else:
                m = _item_lines(need, False).match(buf, at, limit)
                k = buf.count(b"\n", at, m.end()) if m is not None else 0
            if m is not None:  # k item lines, as many as fit the open block (or a new one)
                if self.open and (self.kind != 0 or self.items >= BLOCK_ITEMS):
                    self._close()
                if not self.open:
                    self._open(0)
                self._add(memoryview(buf)[at:m.end()], k, k)
                at = m.end()
                continue
            end = buf.index(b"\n", at, limit) + 1
            self._line(bytes(buf[at:end]))
            at = end

    def _line(self, line: bytes) -> None:
        """One line that is not a plain item line: a blank one, context, an item written
        otherwise (blanks before its key)."""
        kind: int | None
        if line[:12] == FAST_PREFIX or ITEM_LINE.match(line):
            kind = 0
        elif not line.strip():  # a blank line belongs to the run it is in
            kind = self.kind if self.open else None
        else:
            kind = None
        if self.open and (kind != self.kind or (kind == 0 and self.items >= BLOCK_ITEMS)):
            self._close()
        if not self.open:
            self._open(kind)
        self._add(line, 1 if kind == 0 and line.strip() else 0, 1)

    def _open(self, kind: int | None) -> None:
        self.open, self.kind = True, kind
        self.start, self.first, self.items, self.lines = self.pos, self.number + 1, 0, 0
        if kind is None:
            self.parts = []
        else:
            self.h = hasher()
            self.old = _legacy_hasher() if self.legacy else None

    def _add(self, data: Any, items: int, lines: int) -> None:
        if self.kind is None:
            self.parts.append(bytes(data))
        else:
            self.h.update(data)
            if self.old is not None:
                self.old.update(data)
        self.items += items
        self.out.items += items
        self.lines += lines
        self.number += lines
        self.pos += len(data)

    def _close(self) -> None:
        if not self.open:
            return
        self.open = False
        if self.kind is None:
            data = b"".join(self.parts)
            self.ctx.update(b"%d\x00%d\x00" % (self.blocks, len(data)))
            self.ctx.update(data)
            self.out.segments.append(Segment(None, self.start, self.pos, self.first, items=self.lines))
            self.parts = []
        else:
            self.out.segments.append(Segment(
                self.blocks, self.start, self.pos, self.first, marked(self.h),
                self.items, self.old.hexdigest() if self.old is not None else ""))
            self.blocks += 1


def files_digest(files: dict[str, str], folder: Path) -> str:
    """The attachment files an export holds (names and sizes), and where: another export
    folder makes every block that looked a file up be looked at again (its records name it)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(str(folder.absolute()).encode("utf-8", "surrogateescape") + b"\n")
    for relative in sorted(set(files.values())):
        try:
            size = (folder / relative).stat().st_size
        except OSError:
            size = -1
        h.update(f"{relative}\x00{size}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def read_lines(path: Path, seg: Segment) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of one segment, read again; its digest is checked against the scan
    (a file rewritten while being imported is an error, not a mix of two exports)."""
    with path.open("rb") as f:
        f.seek(seg.start)
        data = f.read(seg.end - seg.start)
    if seg.block is not None and digest(data) != seg.digest:
        raise FormatError(f"{path}: the file changed while it was being imported (line "
                          f"{seg.first_line}); import it again once it is complete")
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for i, line in enumerate(lines):
        yield seg.first_line + i, line


def has_file_lookup(line: bytes) -> bool:
    return any(m in line for m in FILE_MARKERS)


def digest_of(values: list[Any]) -> str:
    return hashlib.blake2b(repr(values).encode("utf-8", "surrogateescape"),
                           digest_size=8).hexdigest() if values else ""


def _previous(state: dict[str, Any]) -> dict[str, Any] | None:
    """The last import's resume state when this version can resume from it."""
    prev = state.get(RESUME_STATE)
    if isinstance(prev, dict) and prev.get("v") == STATE_VERSION and prev.get("kind") == "signal-export":
        return prev
    return None


def legacy_digests(state: dict[str, Any]) -> bool:
    """Whether the last import's blocks carry BLAKE2b digests (a version before XXH3): the
    scan then makes those too, so that this import skips the blocks it read."""
    prev = _previous(state)
    return prev is not None and prev.get("digest") != KIND


class Plan:
    """Which blocks this import parses, and what it remembers for the next one.

    `read` is the set of block numbers to parse (all of them for a whole read; `reason` says
    why a whole read); `skipped` maps the others to what the last import learned of them."""

    def __init__(self, found: Scan, files: str, state: dict[str, Any]) -> None:
        self.scan = found
        self.files = files
        self.reason = ""
        self.resumed = False
        blocks = found.blocks
        prev = _previous(state)
        self.prev_blocks: dict[str, Any] = {}
        if prev is None:
            self.reason = "first import" if state.get(RESUME_STATE) is None else "state of an older version"
        elif prev.get("context") != found.context:
            self.reason = ("names, members, chats or the export's header changed since the last "
                           "import: read whole and compared")
        else:
            self.resumed = True
            self.prev_blocks = prev.get("blocks") or {}
        self.read: set[int] = set(blocks)
        self.files_changed = isinstance(prev, dict) and self.resumed and prev.get("files") != files
        if self.resumed:
            legacy = legacy_digests(state)
            self.read = {b for b, seg in blocks.items()
                         if (self.prev_blocks.get(str(b)) or {}).get("d") != (seg.legacy if legacy else seg.digest)}
        self.rechecked = 0

    def estimate(self) -> int:
        """Lines to parse: the context and the blocks read."""
        return sum(s.items for s in self.scan.segments if s.block is None or s.block in self.read)

    def state(self, learned: dict[int, dict[str, Any]]) -> dict[str, Any]:
        """The state after this import: every block's digest, and per block what was learned of
        it (its item times, its file lookups, its missing files) now or, if not read, last time."""
        out: dict[str, Any] = {}
        for b, seg in self.scan.blocks.items():
            facts = dict(learned.get(b) or (self.prev_blocks.get(str(b)) or {}))
            facts["d"] = seg.digest
            out[str(b)] = facts
        return {"v": STATE_VERSION, "kind": "signal-export", "digest": KIND, "context": self.scan.context,
                "files": self.files, "blocks": out, PORTABLE: True}

    def note(self) -> str:
        if not self.resumed:
            return self.reason
        read = len(self.read)
        total = len(self.scan.blocks)
        more = (f", {self.rechecked} of them because the files under files/ changed"
                if self.rechecked else "")
        return (f"re-import: parsed {read:,} of {total:,} block(s) of up to {BLOCK_ITEMS:,} chat "
                f"items: the new ones and the older ones that changed (edits, reactions, "
                f"deletions){more}")
