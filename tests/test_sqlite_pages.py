"""The file's pages tell a re-import of chat.db or Signal Desktop which older rows may have
changed: every row changed in place lies in a range it gives (or it says it cannot tell), and
the rows it gives are few when little changed."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from chatmem.importers import sqlite_pages


def _rows(conn: sqlite3.Connection) -> dict[int, tuple]:
    return {r[0]: r[1:] for r in conn.execute("SELECT rowid, body, extra FROM t")}


def _changes(path: Path, previous: dict, upto: int) -> list[tuple[int, int]] | None:
    conn = sqlite3.connect(path)
    state, ranges = sqlite_pages.look(conn, path, "t", previous, upto)
    conn.close()
    assert state is not None
    return ranges


@pytest.mark.parametrize("seed", range(12))
def test_every_row_changed_in_place_is_in_a_changed_range(tmp_path, seed):
    rnd = random.Random(seed)
    path = tmp_path / "db.sqlite"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA page_size = {rnd.choice([512, 1024, 4096])}")
    conn.execute("CREATE TABLE t (body TEXT, extra BLOB)")
    conn.execute("CREATE TABLE other (body TEXT)")
    conn.execute("CREATE INDEX t_body ON t (body)")
    for i in range(1, 3001):  # some long rows go on in overflow pages
        conn.execute("INSERT INTO t VALUES (?, ?)",
                     (f"row {i} {rnd.random()}", bytes(rnd.choice([0, 10, 2000, 5000]))))
        conn.execute("INSERT INTO other VALUES (?)", (f"other {i}",))
    conn.commit()
    upto = 3000
    previous, _ = sqlite_pages.look(conn, path, "t", None, 0)
    assert previous is not None
    before = _rows(conn)
    for _ in range(rnd.choice([1, 5, 40])):
        rowid = rnd.randint(1, upto)
        kind = rnd.random()
        if kind < 0.3:  # the same length: SQLite overwrites the cell where it is
            conn.execute("UPDATE t SET extra = zeroblob(length(extra)) || x'01' WHERE rowid = ?",
                         (rowid,))
            conn.execute("UPDATE t SET extra = substr(extra, 2) WHERE rowid = ?", (rowid,))
            conn.execute("UPDATE t SET extra = x'07' || substr(extra, 2) WHERE rowid = ? "
                         "AND length(extra) > 0", (rowid,))
        elif kind < 0.6:
            conn.execute("UPDATE t SET body = body || ' edited' WHERE rowid = ?", (rowid,))
        elif kind < 0.7:
            conn.execute("DELETE FROM t WHERE rowid = ?", (rowid,))
        else:
            conn.execute("UPDATE other SET body = body || ' more' WHERE rowid = ?", (rowid,))
    for i in range(rnd.choice([0, 50])):  # new rows
        conn.execute("INSERT INTO t VALUES (?, ?)", (f"new {i}", bytes(rnd.choice([0, 3000]))))
    conn.commit()
    after = _rows(conn)
    conn.close()
    changed = {r for r in before if before[r] != after.get(r)}  # deleted ones too
    ranges = _changes(path, previous, upto)
    if ranges is None:  # an overflow page rewritten alone: the caller reads as without pages
        return
    assert all(any(lo <= r <= hi for lo, hi in ranges) for r in changed)
    covered = sum(hi - lo + 1 for lo, hi in ranges)
    assert covered <= max(400, 40 * len(changed))  # the rows of the changed pages, not all


def test_every_page_changed_gives_every_row_and_another_page_size_cannot_tell(tmp_path):
    path = tmp_path / "db.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (body TEXT, extra BLOB)")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(f"row {i}", None) for i in range(200_000)])
    conn.commit()
    previous, _ = sqlite_pages.look(conn, path, "t", None, 0)
    assert previous is not None
    assert _changes(path, previous, 200_000) == []  # nothing changed: nothing to read
    conn.execute("UPDATE t SET extra = x'00' WHERE rowid % 7 = 0")  # every page
    conn.commit()
    assert _changes(path, previous, 200_000) == [(0, 200_000)]
    conn.execute("PRAGMA page_size = 1024")
    conn.execute("VACUUM")
    conn.close()
    assert _changes(path, previous, 200_000) is None


def test_docstring_examples_hold():
    import doctest

    result = doctest.testmod(sqlite_pages)
    assert result.attempted and not result.failed
