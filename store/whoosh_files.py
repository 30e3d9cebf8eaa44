"""Whoosh's segment files read in place, not copied into memory.

Whoosh maps each segment file into memory and hands out its parts (term dictionary, postings,
stored fields, ...) as `BufferFile`s over that map. A `BufferFile` also wraps its part in a
`BytesIO` for the few sequential reads it makes (a header, a pickled table of contents), and
`BytesIO` copies what it is given: opening a reader copied the term dictionaries and postings
of every segment, about the size of the index (~400 MB and 0.12 s of CPU at a million
messages; twice during a re-import). Here the sequential reads go through a small file object
over the same memory view, so opening a reader costs what it reads, whatever the index's size.
Positional reads (`get`, which every search and lookup uses) were always made on the view.

Installed once, by `install()`, on the class Whoosh's compound storage opens files with
(whoosh-reloaded is pinned exactly in pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from whoosh.filedb import compound
from whoosh.filedb.structfile import BufferFile

LINE_WINDOW = 4096  # bytes looked at per step when a reader asks for a line
PEEK = 512  # bytes shown ahead to pickle's loader (a postings block's header is ~100)


class ViewFile:
    """`read`/`readline`/`seek`/`tell` over a memory view, without copying it."""

    __slots__ = ("_buf", "_pos", "closed")

    def __init__(self, buf: Any) -> None:
        self._buf = buf
        self._pos = 0
        self.closed = False

    def read(self, n: int | None = -1) -> bytes:
        size, pos = len(self._buf), self._pos
        if pos >= size:
            return b""
        end = size if n is None or n < 0 else min(pos + n, size)
        self._pos = end
        return bytes(self._buf[pos:end])

    def peek(self, n: int = 0) -> bytes:
        """Bytes from the position on, without moving it. Pickle's loader peeks before it
        reads: two calls per pickled value instead of one `read` per field (a search reads a
        pickled header per block of 128 postings: 7.5 us a block more without it)."""
        pos = self._pos
        return bytes(self._buf[pos:pos + PEEK])

    def readline(self, limit: int | None = -1) -> bytes:
        size, pos = len(self._buf), self._pos
        if pos >= size:
            return b""
        stop = size if limit is None or limit < 0 else min(pos + limit, size)
        end = pos
        while end < stop:
            window = bytes(self._buf[end:min(end + LINE_WINDOW, stop)])
            k = window.find(b"\n")
            if k >= 0:
                end += k + 1
                break
            end += len(window)
        self._pos = end
        return bytes(self._buf[pos:end])

    def seek(self, pos: int, whence: int = 0) -> int:
        if whence == 0 and pos < 0:
            raise ValueError(f"negative seek position {pos}")
        if whence == 1:
            pos = max(pos + self._pos, 0)  # as BytesIO: clamped to the start
        elif whence == 2:
            pos = max(pos + len(self._buf), 0)
        self._pos = pos
        return pos

    def tell(self) -> int:
        return self._pos

    def close(self) -> None:
        self.closed = True


class ViewBufferFile(BufferFile):
    """A `BufferFile` whose sequential reads are made on the view itself."""

    def __init__(self, buf: Any, name: str | None = None, onclose: Any = None) -> None:
        super().__init__(b"", name=name, onclose=onclose)
        self._buf = buf
        self.file = ViewFile(buf)


def install() -> None:
    compound.BufferFile = ViewBufferFile
