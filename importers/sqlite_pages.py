"""Which rows of a SQLite table can have changed since the last import, told by the file's pages
(issue 17).

A table's rows live in the leaf pages of its b-tree, a long row going on in overflow pages; an
index or an interior page holds no row's content. An import keeps a 64-bit hash of every page
of the file (8 bytes a page: about 2 MB for a million messages) and the list of free pages. The
next import hashes the pages again (one read of the file, a tenth of a second per 600 MB) and
looks only at the pages that differ, or that were free and are in use again:

- a table leaf page of the table: the rows the tree sends to it (by the keys of the interior
  pages above it, so also a row deleted from either end of it) may have changed;
- an index page, an interior page, a leaf of another table, a page free now: no row of the table;
- a page past the old end of the file: only a changed page can point to it (a leaf's cell or the
  overflow page before it), so what it holds is found from that page;
- any other page (an overflow page of an older row rewritten in place, with its leaf page byte
  for byte as it was): it must be the overflow of a changed leaf's row, else the answer is None
  and the caller reads what it would without this module.

A file written in place (Messages' chat.db, Signal's database, a copy of either) keeps its older
pages where they were; a file laid out anew (VACUUM, `sigtop`) changes most pages, and then the
answer is None too. The pages are read from the file as it is on disk: only a database opened
as it is (no -wal, not encrypted) qualifies.
"""

from __future__ import annotations

import base64
import os
import sqlite3
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import xxhash

from chatmem import read_digests

PAGES_VERSION = 1
TABLE_LEAF, TABLE_INTERIOR = 0x0D, 0x05
BTREE_PAGES = {0x02, 0x05, 0x0A, 0x0D}  # index interior, table interior, index leaf, table leaf
# An overflow page starts with the number of the next one: below 2**24 its first byte is 0, which
# tells it from a b-tree page (types 2, 5, 10, 13).
MAX_PAGES = 1 << 24
MAX_CHANGED_PAGES = 20000  # older leaves and other pages changed beyond this: a file laid out anew


class Pages:
    """The file's pages now: their hashes and the free ones; `page` reads one."""

    def __init__(self, file: Path) -> None:
        self.fd = os.open(file, os.O_RDONLY)
        try:
            self._read(file)
        except BaseException:
            os.close(self.fd)
            raise

    def _read(self, file: Path) -> None:
        head = os.pread(self.fd, 100, 0)
        if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
            raise ValueError(f"{file}: not a SQLite file")
        size = int.from_bytes(head[16:18], "big")
        self.size = 65536 if size == 1 else size  # 1 stands for 65,536
        self.usable = self.size - head[20]
        before = os.fstat(self.fd)
        length = before.st_size
        if not self.size or length % self.size:
            raise ValueError(f"{file}: not a whole number of pages")
        self.count = length // self.size
        # read a MB at a time into one buffer (mapping the file would count it all as the
        # process's memory); the whole file's xxh3_128 on the way is the store's content digest
        # of it (chatmem.read_digests: the file is not read again for it)
        buffer = bytearray(max(1 << 20, self.size))
        view, step, h = memoryview(buffer), self.size, xxhash.xxh3_64_intdigest
        whole = xxhash.xxh3_128()
        self.hashes = array("Q")
        with open(self.fd, "rb", buffering=0, closefd=False) as f:
            while n := f.readinto(buffer):
                self.hashes.extend(h(view[at:at + step]) for at in range(0, n - n % step, step))
                whole.update(view[:n])
        view.release()
        if len(self.hashes) != self.count:
            raise ValueError(f"{file}: changed while it was read")
        read_digests.remember(before, os.fstat(self.fd), whole.digest())
        self.free = self._free_pages(int.from_bytes(head[32:36], "big"),
                                     int.from_bytes(head[36:40], "big"))

    def close(self) -> None:
        os.close(self.fd)

    def page(self, n: int) -> bytes:
        page = os.pread(self.fd, self.size, (n - 1) * self.size) if n >= 1 else b""
        if len(page) != self.size:
            raise ValueError(f"page {n} is past the end of the file")
        return page

    def _free_pages(self, trunk: int, total: int) -> set[int]:
        """The freelist: its trunk pages and the leaf pages they list."""
        free: set[int] = set()
        while trunk and len(free) <= total:
            page = self.page(trunk)
            free.add(trunk)
            n = int.from_bytes(page[4:8], "big")
            free.update(int.from_bytes(page[8 + 4 * i : 12 + 4 * i], "big") for i in range(n))
            trunk = int.from_bytes(page[:4], "big")
        return free

    def state(self) -> dict[str, Any]:
        """What the next import compares with."""
        return {"v": PAGES_VERSION, "size": self.size,
                "hashes": base64.b64encode(self.hashes.tobytes()).decode("ascii"),
                "free": sorted(self.free)}  # fmt: skip


def varint(page: bytes, at: int) -> tuple[int, int]:
    """SQLite's big-endian variable-length integer at `at`: (value, offset after it)."""
    value = 0
    for i in range(8):
        byte = page[at + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return (value << 8) | page[at + 8], at + 9


def _signed(n: int) -> int:
    return n - (1 << 64) if n >= 1 << 63 else n


def _cells(page: bytes, pageno: int) -> tuple[int, list[int]]:
    """(page type, offsets of its cells) of a b-tree page."""
    head = 100 if pageno == 1 else 0
    kind, n = page[head], int.from_bytes(page[head + 3 : head + 5], "big")
    start = head + (12 if kind in (0x02, 0x05) else 8)
    return kind, [int.from_bytes(page[start + 2 * i : start + 2 * i + 2], "big") for i in range(n)]


def _leaf_cell(page: bytes, at: int) -> tuple[int, int, int]:
    """A table leaf cell at `at`: (payload length, rowid, offset of the payload)."""
    length, at = varint(page, at)
    rowid, at = varint(page, at)
    return length, _signed(rowid), at


def _interior(page: bytes, pageno: int) -> tuple[list[int], list[int], int]:
    """A table interior page: its keys, its children left of each key, its right-most child."""
    head = 100 if pageno == 1 else 0
    keys, children = [], []
    for at in _cells(page, pageno)[1]:
        children.append(int.from_bytes(page[at : at + 4], "big"))
        keys.append(_signed(varint(page, at + 4)[0]))
    return keys, children, int.from_bytes(page[head + 8 : head + 12], "big")


class _Tree:
    """A table's b-tree, walked from its root page by rowid (interior pages read once)."""

    def __init__(self, pages: Pages, root: int) -> None:
        self.pages, self.root = pages, root
        self.interior: dict[int, tuple[list[int], list[int], int]] = {}

    def leaf_of(self, rowid: int) -> tuple[int, int | None, int | None] | None:
        """The leaf page where the table keeps `rowid`, with the rowids the tree sends there
        (above the first bound, up to the second; None: open); None when the tree is not as
        expected."""
        pageno, low, high = self.root, None, None
        for _ in range(64):
            page = self.pages.page(pageno)
            kind = page[100 if pageno == 1 else 0]
            if kind == TABLE_LEAF:
                return pageno, low, high
            if kind != TABLE_INTERIOR:
                return None
            if pageno not in self.interior:
                self.interior[pageno] = _interior(page, pageno)
            keys, children, right = self.interior[pageno]
            i = bisect_left(keys, rowid)
            if i:
                low = keys[i - 1]
            if i < len(keys):
                high = keys[i]
            pageno = children[i] if i < len(keys) else right
        return None


def _overflow(pages: Pages, page: bytes, at: int) -> Iterator[int]:
    """The overflow pages of the table leaf cell at `at`, in chain order."""
    length, _, payload = _leaf_cell(page, at)
    usable = pages.usable
    most = usable - 35
    if length <= most:
        return
    least = (usable - 12) * 32 // 255 - 23
    local = least + (length - least) % (usable - 4)
    local = local if local <= most else least
    nxt = int.from_bytes(page[payload + local : payload + local + 4], "big")
    for _ in range(-(-(length - local) // (usable - 4))):
        if not nxt:
            return
        yield nxt
        nxt = int.from_bytes(pages.page(nxt)[:4], "big")


def changed_rows(pages: Pages, previous: Any, root: int, upto: int) -> list[tuple[int, int]] | None:
    """Rowid ranges (up to `upto`) of the table whose b-tree starts at page `root` that hold
    every row that may have changed since the import that kept `previous` (a `Pages.state()`);
    None when the pages cannot tell (no earlier state, another page size, too much changed)."""
    if (not isinstance(previous, dict) or previous.get("v") != PAGES_VERSION
            or previous.get("size") != pages.size or pages.count >= MAX_PAGES):
        return None
    try:
        old = array("Q", base64.b64decode(previous["hashes"]))
        was_free = set(previous.get("free") or ())
    except (KeyError, TypeError, ValueError):
        return None
    now, known = pages.hashes, len(old)
    changed = {i + 1 for i in range(min(known, pages.count)) if now[i] != old[i]}
    changed.update(p for p in was_free - pages.free if p <= known)  # in use again, bytes as were
    tree = _Tree(pages, root)
    leaves: list[tuple[int, bytes]] = []
    unknown: set[int] = set()
    for p in sorted(changed - pages.free):
        page = pages.page(p)
        kind = page[100 if p == 1 else 0]
        if kind == TABLE_LEAF:
            leaves.append((p, page))
        elif kind not in BTREE_PAGES:
            unknown.add(p)
    if len(leaves) + len(unknown) > MAX_CHANGED_PAGES:  # laid out anew
        return None
    for p in range(known + 1, pages.count + 1):  # new pages: only their leaves hold rows
        page = pages.page(p)
        if page[0] == TABLE_LEAF and p not in pages.free:
            leaves.append((p, page))
    ranges: list[tuple[int, int]] = []
    for p, page in leaves:
        cells = _cells(page, p)[1]
        if not cells:
            continue
        if unknown:  # an older page rewritten in place must be one of these rows' overflow
            for at in cells:
                unknown.difference_update(_overflow(pages, page, at))
        first = _leaf_cell(page, cells[0])[1]
        if first > upto:  # new rows alone
            continue
        found = tree.leaf_of(first)
        if found is None:
            return None
        if found[0] != p:  # another table's page
            continue
        # the rowids the tree sends here: also a row deleted from either end of the page
        low = min(first, 0) if found[1] is None else found[1] + 1
        ranges.append((low, upto if found[2] is None else min(found[2], upto)))
    return None if unknown else merge(ranges)


def merge(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, overlapping or touching ranges joined.

    >>> merge([(5, 9), (1, 2), (3, 4), (20, 20)])
    [(1, 9), (20, 20)]
    """
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def look(conn: Any, file: Path | None, table: str, previous: Any,
         upto: int) -> tuple[dict[str, Any] | None, list[tuple[int, int]] | None]:
    """(the state of `file`'s pages now, for the next import; `changed_rows` of `table` since
    `previous`, or None). Both None when the file cannot be read page by page: `file` None (its
    last writes are in a -wal, or it is encrypted), a damaged page, a file that changed."""
    if file is None:
        return None, None
    try:
        pages = Pages(file)
        try:
            state = pages.state()
            if not upto or previous is None:
                return state, None
            return state, changed_rows(pages, previous, _root_page(conn, table), upto)
        finally:
            pages.close()
    except (ValueError, IndexError, OSError, sqlite3.Error):
        return None, None


def _root_page(conn: Any, table: str) -> int:
    row = conn.execute("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?",
                       (table,)).fetchone()
    if not row or not row[0]:
        raise ValueError(f"no table {table}")
    return int(row[0])
