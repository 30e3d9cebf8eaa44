"""How many records a file holds, roughly and fast: a count of a byte pattern, read in blocks,
for the importers whose format has no count up front. The progress display turns it into the
time left (records.Estimate); a pattern that also matches elsewhere only makes it a little high.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

BLOCK = 1 << 18  # a quarter MB at a time: the count costs no memory worth speaking of
TAIL = 64  # a file without line breaks: what is carried to the next block


def count_matches(paths: Iterable[Path], pattern: bytes) -> int:
    """Occurrences of `pattern` (a regular expression whose matches are shorter than TAIL
    bytes) in the files; a file that cannot be read counts 0 (the reading proper reports it)."""
    rx = re.compile(pattern)
    n = 0
    for path in paths:
        try:
            with open(path, "rb") as f:
                carry = b""
                while block := f.read(BLOCK):
                    data = carry + block
                    # matches that start before the last TAIL bytes are whole here; the rest
                    # start in the carry and are counted with the next block
                    edge = max(0, len(data) - TAIL)
                    n += sum(1 for m in rx.finditer(data) if m.start() < edge)
                    carry = data[edge:]
                n += sum(1 for _ in rx.finditer(carry))
        except OSError:
            continue
    return n


def count_lines(paths: Iterable[Path]) -> int:
    """Lines (records of a JSON Lines file, frames of Signal's export; blank ones too)."""
    n = 0
    for path in paths:
        try:
            with open(path, "rb") as f:
                last = b"\n"
                while block := f.read(BLOCK):
                    n += block.count(b"\n")
                    last = block[-1:]
                n += last != b"\n"  # a last line without its line break
        except OSError:
            continue
    return n
