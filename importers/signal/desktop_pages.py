"""Which blocks of `messages` SQLite's own pages prove unchanged since the last import (issue 17).

A table's rows live in the leaf pages of its b-tree, in rowid order; a row too long for its page
continues in overflow pages. Leaf page i holds exactly the rows with rowid in
[first rowid of page i, first rowid of page i+1): when a leaf page's bytes (with its overflow
pages' bytes) and that interval are the same as at the last import, so is every row in the
interval, whatever the page's number in the file. A block of rowids (desktop_resume's 1,024) is
proven unchanged when every leaf page whose interval meets it is; its rows need not be read
again to compare them. Anything else about a page (a new number, free space, another layout of
the same rows) only makes the proof fail, and then the block's rows are digested as before: the
proof can skip reading a block, never decide that a block changed.

Where that pays: a database that grows in place (Signal's own file, a copy of it taken with the
file) keeps every older leaf page; a copy that lays the table out anew (`sigtop`) keeps the pages
before the first row that grew. The page bytes are read from the file itself, so only a plain
database read as it is on disk qualifies: not an encrypted one, not one whose last writes are
still in a -wal file (`Database.file` is None for those), and only with SQLite's `dbstat` table.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import xxhash

from ..sqlite_pages import varint

PROOF_VERSION = 1
LEAF_TABLE_PAGE = 0x0D  # b-tree page type of a table's leaf page
OPEN = -(1 << 63)  # an interval's open end, in a proof


def _first_rowid(page: bytes, pageno: int) -> int | None:
    """The rowid of a table leaf page's first cell; None for an empty page."""
    head = 100 if pageno == 1 else 0  # page 1 starts with the file's header
    if page[head] != LEAF_TABLE_PAGE:
        raise ValueError(f"page {pageno} is not a table's leaf page")
    if not page[head + 3] and not page[head + 4]:  # no cell
        return None
    at = (page[head + 8] << 8) | page[head + 9]  # the first cell: its payload's length, its rowid
    while page[at] & 0x80:
        at += 1
    rowid, _ = varint(page, at + 1)
    return rowid - (1 << 64) if rowid >= 1 << 63 else rowid


def _leaves(conn: Any, table: str) -> list[tuple[int, list[int]]]:
    """The table's leaf pages in rowid order, each with its overflow pages in chain order."""
    out: list[tuple[int, list[int]]] = []
    leaf_path = ""
    for path, pageno, leaf in conn.execute(  # in the tree's order, overflow after its leaf
            "SELECT path, pageno, pagetype = 'leaf' FROM dbstat "
            "WHERE name = ? AND pagetype != 'internal'", (table,)):
        if leaf:
            out.append((pageno, []))
            leaf_path = path
        elif out and path.startswith(leaf_path):
            out[-1][1].append(pageno)
        else:
            raise ValueError(f"overflow page {pageno} ({path}) before its leaf")
    return out


def _pages(fd: int, size: int, numbers: list[int]) -> Iterator[bytes]:
    for n in numbers:
        page = os.pread(fd, size, (n - 1) * size)
        if len(page) != size:
            raise ValueError(f"page {n} is past the end of the file")
        yield page


def schema_key(conn: Any, table: str) -> str:
    """What the meaning of a page's bytes depends on: the table's definition, the text encoding,
    the page size."""
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                       (table,)).fetchone()
    encoding = conn.execute("PRAGMA encoding").fetchone()[0]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    text = f"{PROOF_VERSION}\x1f{sql and sql[0]}\x1f{encoding}\x1f{size}"
    return xxhash.xxh3_64_hexdigest(text.encode("utf-8", "surrogatepass"))


def page_proofs(conn: Any, file: Path, table: str, bits: int, upto: int) -> dict[str, str]:
    """Block number (as a string) → hash of the leaf pages (bytes, overflow pages' bytes and
    rowid interval) that hold the rows of `table` with rowid in the block, for the blocks of
    2**bits rowids from 0 to `upto`'s. ValueError when the file is not what SQLite said."""
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    leaves = _leaves(conn, table)
    last = upto >> bits
    proofs: dict[int, Any] = {}
    fd = os.open(file, os.O_RDONLY)
    try:
        firsts: list[int] = []
        hashes: list[bytes] = []
        for pageno, overflow in leaves:
            page = os.pread(fd, size, (pageno - 1) * size)
            if len(page) != size:
                raise ValueError(f"page {pageno} is past the end of the file")
            first = _first_rowid(page, pageno)
            if first is None and len(leaves) == 1:  # an empty table: nothing to prove
                return {}
            if first is None or (firsts and first <= firsts[-1]):
                raise ValueError(f"leaf page {pageno} is not where its rowids say")
            if overflow:
                h = xxhash.xxh3_128(page)
                for more in _pages(fd, size, overflow):
                    h.update(more)
                hashes.append(h.digest())
            else:
                hashes.append(xxhash.xxh3_128_digest(page))
            firsts.append(first)
    finally:
        os.close(fd)
    pack = struct.Struct(">qq").pack
    ends = [*firsts[1:], None]
    for i, (lo, nxt, digest) in enumerate(zip(firsts, ends, hashes)):
        first_block = 0 if i == 0 else max(lo >> bits, 0)  # the first page holds all below too
        end_block = last if nxt is None else min((nxt - 1) >> bits, last)
        entry = pack(OPEN if i == 0 else lo, OPEN if nxt is None else nxt) + digest
        for block in range(first_block, end_block + 1):
            acc = proofs.get(block)
            if acc is None:
                acc = proofs[block] = xxhash.xxh3_64()
            acc.update(entry)
    return {str(b): h.hexdigest() for b, h in proofs.items()}
