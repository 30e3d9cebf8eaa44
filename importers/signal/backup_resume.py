"""What a re-import of Signal's own export (main.jsonl) has to read again (issue 17).

A newer export of the same phone writes the same frames again: who is who first (account,
recipients, chats, sticker packs: "context"), then every chat item, one a line, oldest first.
New messages come at the end; an edit, a reaction or a deletion for everyone rewrites the
item's line where it was. So the import remembers, per block of chat item lines, a digest of
the block's bytes, and a re-import

- reads every line once without parsing it (about 0.3 s of CPU per million lines) to split it
  into context runs and blocks of at most 1,024 chat item lines and digest each;
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

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chatmem.errors import FormatError
from chatmem.records import PORTABLE, RESUME_STATE

BLOCK_ITEMS = 1024  # chat item lines per digest block
STATE_VERSION = 1
ITEM_LINE = re.compile(rb'\s*\{\s*"chatItem"\s*:')
FAST_PREFIX = b'{"chatItem":'
FILE_MARKERS = (b'"pointer"', b'"longText"', b'"data"')  # lines that may look a file up


@dataclass
class Segment:
    """A run of lines in the file: a block of chat items (`block` is its number) or context."""

    block: int | None
    start: int  # byte offset of its first line
    end: int  # byte offset after its last line
    first_line: int  # line number of its first line (1-based)
    digest: str = ""
    items: int = 0  # chat item lines in it


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


def scan(path: Path) -> Scan:
    """One read of the file's bytes: segments and digests, nothing parsed."""
    out = Scan()
    ctx = hashlib.blake2b(digest_size=16)
    try:
        f = path.open("rb")
    except OSError as e:
        raise FormatError(f"{path}: cannot read ({e})") from e
    with f:
        pos = 0
        number = 0
        run: list[bytes] = []
        run_kind: int | None = None  # None: context, 0: items
        run_start = run_first = 0
        items_in_run = 0
        blocks = 0

        def close() -> None:
            nonlocal run, blocks, items_in_run
            if not run:
                return
            data = b"".join(run)
            if run_kind is None:
                ctx.update(b"%d\x00%d\x00" % (blocks, len(data)))
                ctx.update(data)
                out.segments.append(Segment(None, run_start, pos, run_first, items=len(run)))
            else:
                digest = hashlib.blake2b(data, digest_size=8).hexdigest()
                out.segments.append(Segment(blocks, run_start, pos, run_first, digest, items_in_run))
                blocks += 1
            run, items_in_run = [], 0

        for line in f:
            number += 1
            if line[:12] == FAST_PREFIX or ITEM_LINE.match(line):
                kind: int | None = 0
            elif not line.strip():  # a blank line belongs to the run it is in
                kind = run_kind if run else None
            else:
                kind = None
            if run and (kind != run_kind or (kind == 0 and items_in_run >= BLOCK_ITEMS)):
                close()
            if not run:
                run_kind, run_start, run_first = kind, pos, number
            run.append(line)
            if kind == 0 and line.strip():
                items_in_run += 1
                out.items += 1
            pos += len(line)
        close()
        out.lines = number
    out.context = ctx.hexdigest()
    return out


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
    if seg.block is not None and hashlib.blake2b(data, digest_size=8).hexdigest() != seg.digest:
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
        prev = state.get(RESUME_STATE)
        self.prev_blocks: dict[str, Any] = {}
        if not isinstance(prev, dict) or prev.get("v") != STATE_VERSION or prev.get("kind") != "signal-export":
            self.reason = "first import" if prev is None else "state of an older version"
        elif prev.get("context") != found.context:
            self.reason = ("names, members, chats or the export's header changed since the last "
                           "import: read whole and compared")
        else:
            self.resumed = True
            self.prev_blocks = prev.get("blocks") or {}
        self.read: set[int] = set(blocks)
        self.files_changed = isinstance(prev, dict) and self.resumed and prev.get("files") != files
        if self.resumed:
            self.read = {b for b, seg in blocks.items()
                         if (self.prev_blocks.get(str(b)) or {}).get("d") != seg.digest}
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
        return {"v": STATE_VERSION, "kind": "signal-export", "context": self.scan.context,
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
