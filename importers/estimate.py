"""Looking into a file cheaply: its first bytes as text (what detection reads), and how many
records it holds, roughly and fast — a count of a byte pattern, read in blocks, for the
importers whose format has no count up front. The progress display turns it into the
time left (records.Estimate); a pattern that also matches elsewhere only makes it a little high.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

BLOCK = 1 << 18  # a quarter MB at a time: the count costs no memory worth speaking of
TAIL = 64  # a file without line breaks: what is carried to the next block


def head_text(path: Path, size: int = 4096) -> str:
    """The first `size` bytes of a file as text (undecodable bytes replaced); OSError when it
    cannot be read."""
    with open(path, "rb") as f:
        return f.read(size).decode("utf-8", errors="replace")


def _blocks(path: Path) -> Iterator[bytes]:
    """The file in blocks; none when it cannot be read (the reading proper reports that)."""
    try:
        with open(path, "rb") as f:
            while block := f.read(BLOCK):
                yield block
    except OSError:
        return


def count_matches(paths: Iterable[Path], pattern: bytes) -> int:
    """Occurrences of `pattern` (a regular expression whose matches are shorter than TAIL
    bytes) in the files."""
    rx = re.compile(pattern)
    n = 0
    for path in paths:
        carry = b""
        for block in _blocks(path):
            data = carry + block
            # matches that start before the last TAIL bytes are whole here; the rest start in
            # the carry and are counted with the next block
            edge = max(0, len(data) - TAIL)
            n += sum(1 for m in rx.finditer(data) if m.start() < edge)
            carry = data[edge:]
        n += sum(1 for _ in rx.finditer(carry))
    return n


def count_lines(paths: Iterable[Path]) -> int:
    """Lines (records of a JSON Lines file, frames of Signal's export; blank ones too)."""
    n = 0
    for path in paths:
        last = b"\n"
        for block in _blocks(path):
            n += block.count(b"\n")
            last = block[-1:]
        n += last != b"\n"  # a last line without its line break
    return n
