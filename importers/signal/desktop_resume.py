"""What a re-import of a Signal Desktop database has to read again (issue 17).

Signal changes rows in place (a reaction, an edit or a deletion rewrites the message's `json`;
an attachment's row gains its path once downloaded; a call's status changes), so the highest
rowid alone does not say what is new. The import remembers, besides that rowid:

- a digest of every block of 1,024 rowids of `messages` (the columns the reader uses), so a
  re-import reads the rows past the old highest rowid plus the blocks whose digest changed (an
  edited, reacted-to or deleted message) and nothing else;
- the same for `message_attachments` (schema 1360+): a changed block re-reads its messages;
- a digest of `callsHistory`: when it changed, the call rows are read again;
- a digest of who is who (every conversation's chat name, members, handles; the owner): when a
  contact was renamed, the sender names of old messages change, so the whole database is read
  and compared.

Computing the digests is one pass over the table without parsing anything (about 0.2 s of CPU
per 100k rows), against a full read that parses every row's json and compares it with the store.
Most of that pass is skipped when the file is read as it is on disk: the import also remembers
a hash of every page of the file (sqlite_pages), and a block in which no page of the table's rows
changed is not read again (its digest is carried over). When the pages cannot tell (a file laid
out anew, as `sigtop` writes it, or an older row's overflow page rewritten alone), the import
compares per block a hash of the leaf pages that hold its rows wherever they are (desktop_pages,
which asks SQLite's `dbstat` for them: 0.5 s at a million messages, against 0.1 s), and keeps
those too for the next one. A store imported before has neither: its next import digests every
block, then keeps them.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import sqlite3
from bisect import bisect_left
from collections.abc import Container, Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from chatmem.records import RESUME_STATE

from .. import sqlite_pages
from ..sqlite_pages import merge
from .desktop_pages import page_proofs, schema_key
from .desktop_people import People

BLOCK_BITS = 10  # 1,024 rowids per digest block
STATE_VERSION = 1


def block_digests(conn: Any, table: str, columns: Iterable[str], start: int, upto: int,
                  skip: Container[str] = ()) -> dict[str, str]:
    """Block number (as a string, for JSON) → digest of `table`'s rows with rowid in
    [start, upto], blocks of 1,024 rowids; empty blocks and those in `skip` are absent.

    A block's rows are serialised by `marshal` in one C call (values and their types: NULL, ''
    and 0 differ); a Python upgrade that changed its format would only make every block look
    changed, i.e. one whole read."""
    query = (f"SELECT rowid, {', '.join(columns)} FROM {table} WHERE rowid BETWEEN ? AND ? "
             "ORDER BY rowid")
    out: dict[str, str] = {}
    block = max(start, 0) >> BLOCK_BITS
    while (block << BLOCK_BITS) <= upto:
        if str(block) in skip:
            block += 1
            continue
        lo = max(block << BLOCK_BITS, start)
        hi = min(((block + 1) << BLOCK_BITS) - 1, upto)
        rows = conn.execute(query, (lo, hi)).fetchall()
        if not rows:  # skip a run of empty blocks at once
            nxt = conn.execute(f"SELECT min(rowid) FROM {table} WHERE rowid > ?", (hi,)).fetchone()[0]
            if nxt is None:
                break
            block = nxt >> BLOCK_BITS
            continue
        out[str(block)] = hashlib.blake2b(marshal.dumps(rows, 4), digest_size=8).hexdigest()
        block += 1
    return out


def block_range(block: str | int, upto: int) -> tuple[int, int]:
    lo = int(block) << BLOCK_BITS
    return lo, min(lo + (1 << BLOCK_BITS) - 1, upto)


def time_bounds(conn: Any, ranges: Iterable[tuple[int, int]]) -> dict[str, list[int] | None]:
    """Block number → [least, greatest] `sent_at` of its rows with rowid in `ranges` (None when
    a value is not a number: the block is searched for every time)."""
    out: dict[str, list[int] | None] = {}
    for lo, hi in ranges:
        for block, least, most, odd in conn.execute(
                f"SELECT rowid >> {BLOCK_BITS}, min(sent_at), max(sent_at), "
                "sum(typeof(sent_at) NOT IN ('integer', 'real')) FROM messages "
                "WHERE rowid BETWEEN ? AND ? GROUP BY 1", (lo, hi)):
            out[str(block)] = None if odd else [least, most]
    return out


def people_digest(people: People) -> str:
    """Who is who, as far as the records of old messages depend on it."""
    h = hashlib.blake2b(digest_size=16)
    for cid in sorted(people.conversations):
        facts = [asdict(people.chat(cid)), people.name(cid), people.handle(cid)]
        h.update(json.dumps(facts, sort_keys=True, default=str).encode())
    h.update(json.dumps([sorted(people._index.items()), people.owner_aci, people.owner_e164,
                         people.owner_conversation]).encode())
    return h.hexdigest()


def calls_digest(calls: dict[str, dict[str, Any]]) -> str:
    text = json.dumps(sorted(calls.items()), sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


class Plan:
    """Which rowids of `messages` this import reads, and the state to remember after it.

    `ranges` is None for a whole read (a first import, --force, or a fallback; `reason` says
    which)."""

    def __init__(self, conn: Any, columns: list[str], people: People,
                 calls: dict[str, dict[str, Any]], attachment_columns: list[str] | None,
                 state: dict[str, Any], file: Path | None = None) -> None:
        self.conn = conn
        self.file = file
        self.top = conn.execute("SELECT coalesce(max(rowid), 0) FROM messages").fetchone()[0]
        self.columns = columns
        self.attachment_columns = attachment_columns
        self.people = people_digest(people)
        self.calls = calls_digest(calls)
        self.ranges: list[tuple[int, int]] | None = None
        self.reason = ""
        self.changed_blocks = 0
        self.proven_blocks = 0  # older blocks left unread: their pages are as they were
        self.file_pages: dict[str, Any] | None = None  # sqlite_pages' state of the file now
        self.proofs: dict[str, Any] | None = None  # desktop_pages' proofs, when they were made
        self.attachments_now: dict[str, str] | None = None  # message_attachments' digests now
        self.times: dict[str, list[int] | None] | None = None  # time_bounds of every block
        prev = state.get(RESUME_STATE)
        if not isinstance(prev, dict) or prev.get("v") != STATE_VERSION:
            self.reason = "first import" if prev is None else "state of an older version"
        elif prev.get("columns") != columns or prev.get("attachment_columns") != attachment_columns:
            self.reason = "the database's schema changed since the last import: read whole"
        elif prev.get("people") != self.people:
            self.reason = ("names, members or numbers changed since the last import: "
                           "read whole and compared")
        else:
            self._resume(prev)
        if self.ranges is None:  # a whole read: the proofs the next import may need
            self.proofs = self._page_proofs()
        # what the next import compares with: taken before any row is read, from the same
        # snapshot the rows are read from
        self.state = self._state(prev if self.ranges is not None else None)

    def _resume(self, prev: dict[str, Any]) -> None:
        since = int(prev.get("rowid") or 0)
        self.since = since
        old = prev.get("blocks") or {}
        proven = self._unchanged_pages(prev.get("file_pages"), since, old)
        if proven is None:
            self.proofs = self._page_proofs()
            proven = self._proven(prev.get("pages"), since)
        self.proven_blocks = sum(1 for b in proven if b in old)
        self.now = {b: old[b] for b in proven if b in old}
        self.now.update(block_digests(self.conn, "messages", self.columns, 0, since, proven))
        changed = [b for b, d in self.now.items() if old.get(b) != d]
        self.changed_blocks = len(changed)
        ranges = [block_range(b, since) for b in changed]
        if self.attachment_columns is not None:
            ranges += self._changed_attachment_rows(prev.get("attachments") or {}, since)
        if prev.get("calls") != self.calls:
            ranges += [(r, r) for r, in self.conn.execute(
                "SELECT rowid FROM messages WHERE rowid <= ? AND type = 'call-history'", (since,))]
        if self.top > since:
            ranges.append((since + 1, self.top))
        self.ranges = merge(ranges)

    def _unchanged_pages(self, prev: Any, since: int, old: dict[str, str]) -> set[str] | None:
        """The blocks up to the last import's highest rowid in which no page of the file changed
        since (sqlite_pages: a file written in place); None when the pages cannot tell (then
        desktop_pages' proofs, which also follow rows laid out anew, are made and compared)."""
        self.file_pages, ranges = sqlite_pages.look(self.conn, self.file, "messages", prev, since)
        if ranges is None:
            return None
        touched = {str(b) for lo, hi in ranges for b in range(lo >> BLOCK_BITS, (hi >> BLOCK_BITS) + 1)}
        return set(old) - touched

    def _page_proofs(self) -> dict[str, Any] | None:
        """The page proofs of every block of `messages` (see desktop_pages), or None when the
        file cannot be read page by page."""
        if self.file is None:
            return None
        try:
            return {"schema": schema_key(self.conn, "messages"),
                    "blocks": page_proofs(self.conn, self.file, "messages", BLOCK_BITS, self.top)}
        except (ValueError, IndexError, OSError, sqlite3.Error):
            return None  # no dbstat, a damaged page, the file changed: the rows are digested

    def _proven(self, prev: Any, since: int) -> set[str]:
        """The blocks up to the last import's highest rowid whose pages are as it left them."""
        if (self.proofs is None or not isinstance(prev, dict)
                or prev.get("schema") != self.proofs["schema"]):
            return set()
        old = prev.get("blocks") or {}
        last = since >> BLOCK_BITS
        return {b for b, d in self.proofs["blocks"].items() if int(b) <= last and old.get(b) == d}

    def _changed_attachment_rows(self, prev: dict[str, Any], since: int) -> list[tuple[int, int]]:
        assert self.attachment_columns is not None
        upto = int(prev.get("rowid") or 0)
        old = prev.get("blocks") or {}
        now = block_digests(self.conn, "message_attachments", self.attachment_columns, 0, upto)
        self.attachments_now = now
        ids: set[str] = set()
        for b, d in now.items():
            if old.get(b) != d:
                lo, hi = block_range(b, upto)
                ids.update(i for i, in self.conn.execute(
                    "SELECT messageId FROM message_attachments WHERE rowid BETWEEN ? AND ?", (lo, hi)))
        # attachments of new rows past the old top come with their messages; of old ones:
        ids.update(i for i, in self.conn.execute(
            "SELECT messageId FROM message_attachments WHERE rowid > ?", (upto,)))
        out: list[tuple[int, int]] = []
        listed = sorted(ids)
        for i in range(0, len(listed), 500):
            chunk = listed[i:i + 500]
            out += [(r, r) for r, in self.conn.execute(
                f"SELECT rowid FROM messages WHERE rowid <= ? AND id IN ({', '.join('?' * len(chunk))})",
                (since, *chunk))]
        return out

    def _state(self, prev: dict[str, Any] | None) -> dict[str, Any]:
        if prev is None:  # a whole read: every block
            blocks = block_digests(self.conn, "messages", self.columns, 0, self.top)
        else:  # the blocks up to the old top as they are now, the rest from its block on
            start = (self.since >> BLOCK_BITS) << BLOCK_BITS
            blocks = {b: d for b, d in self.now.items() if (int(b) << BLOCK_BITS) < start}
            blocks.update(block_digests(self.conn, "messages", self.columns, start, self.top))
        out: dict[str, Any] = {"v": STATE_VERSION, "rowid": self.top, "columns": self.columns,
                               "attachment_columns": self.attachment_columns,
                               "people": self.people, "calls": self.calls, "blocks": blocks}
        if "sent_at" in self.columns:
            out["times"] = self.times = self._times(prev, blocks)
        if self.proofs is not None:
            out["pages"] = self.proofs
        if prev is None:  # a whole read
            self.file_pages = sqlite_pages.look(self.conn, self.file, "messages", None, 0)[0]
        if self.file_pages is not None:
            out["file_pages"] = self.file_pages
        if self.attachment_columns is not None:
            top = self.conn.execute(
                "SELECT coalesce(max(rowid), 0) FROM message_attachments").fetchone()[0]
            kept = self.attachments_now  # digested up to the old top already
            if prev is None or kept is None:
                attached = block_digests(self.conn, "message_attachments",
                                         self.attachment_columns, 0, top)
            else:
                upto = int((prev.get("attachments") or {}).get("rowid") or 0)
                start = (upto >> BLOCK_BITS) << BLOCK_BITS
                attached = {b: d for b, d in kept.items() if (int(b) << BLOCK_BITS) < start}
                attached.update(block_digests(self.conn, "message_attachments",
                                              self.attachment_columns, start, top))
            out["attachments"] = {"rowid": top, "blocks": attached}
        return out

    def _times(self, prev: dict[str, Any] | None,
               blocks: dict[str, str]) -> dict[str, list[int] | None]:
        """`time_bounds` of every block now: the last import's for a block whose digest is
        the same (its times are among the digested columns), the others' read."""
        kept = (prev or {}).get("times")
        old = (prev or {}).get("blocks") or {}
        times = {b: kept[b] for b in blocks if isinstance(kept, dict) and b in kept
                 and old.get(b) == blocks[b]}
        todo = [block_range(b, self.top) for b in blocks if b not in times]
        times.update(time_bounds(self.conn, merge(todo)))
        return times

    def holding_times(self, values: Iterable[Any]) -> list[tuple[int, int]] | None:
        """The rowid ranges of the blocks whose rows' `sent_at` can be one of `values`; None
        when they cannot tell (a value that is not a number, no bounds)."""
        wanted = list(values)
        if self.times is None or not all(type(v) in (int, float) for v in wanted):
            return None
        wanted.sort()
        out = []
        for b, bounds in self.times.items():
            i = bisect_left(wanted, bounds[0]) if bounds is not None else 0
            if bounds is None or (i < len(wanted) and wanted[i] <= bounds[1]):
                out.append(block_range(b, self.top))
        return merge(out)

    def estimate(self) -> int:
        if self.ranges is None:
            return self.top
        return sum(hi - lo + 1 for lo, hi in self.ranges)

    def note(self) -> str:
        if self.ranges is None:
            return self.reason
        read = self.estimate()
        return (f"re-import: read {read:,} row(s): the ones added since the last import and "
                f"{self.changed_blocks} block(s) of older rows that changed (edits, reactions, "
                f"deletions); {self.proven_blocks:,} of {len(self.now):,} older block(s) not read "
                "again: their pages in the file are as the last import left them")
