"""The content digest of a file its importer read whole (sqlite_pages) is the one that reading
it would give, made without reading it again; a write to the file since is read."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from chatmem.importers import sqlite_pages
from chatmem.store import quick


def _db(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO t (body) VALUES (?)", [(f"row {i} " * 40,) for i in range(300)])
    conn.commit()
    conn.close()
    return path


def test_a_file_read_whole_is_digested_from_that_read_and_a_later_write_is_read(tmp_path, monkeypatch):
    db = _db(tmp_path / "a.db")
    options = {"platform": "imessage"}
    by_reading = quick.content_digest(db, options)
    reads: list[object] = []
    real = quick._file_digest
    monkeypatch.setattr(quick, "_file_digest", lambda fh, kind: reads.append(fh) or real(fh, kind))

    sqlite_pages.Pages(db).close()  # an importer's read of its pages
    assert quick.content_digest(db, options) == by_reading
    assert reads == []  # not read a second time

    st = db.stat()
    conn = sqlite3.connect(db)  # one page changed in place, its size and time put back
    conn.execute("UPDATE t SET body = replace(body, 'row 7 ', 'ROW 7 ') WHERE id = 8")
    conn.commit()
    conn.close()
    os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert db.stat().st_size == st.st_size
    sqlite_pages.Pages(tmp_path / "a.db").close()  # (its digest now: kept under its new identity)
    changed = quick.content_digest(db, options)
    assert changed != by_reading
    reads.clear()
    os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # a later time: the read's digest is not used
    assert quick.content_digest(db, options) == changed and len(reads) == 1
