"""An import's write-ahead log is folded into the store's database file before the import
returns (the commit leaves it to a checkpoint that runs beside the index catch-up): a copy of
chatmem.db alone, taken while the store is still open (a server holds it), has every message the
import wrote, and the writes after it fold their log in as before (issue 17)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from chatmem.importers import find_sources
from chatmem.store import Store


def write_export(path: Path, chat: str, n: int, start: int = 0) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for i in range(start, start + n):
            f.write(json.dumps({"platform": "whatsapp", "chat": chat, "sender": chat if i % 2 else "me",
                                "timestamp": f"2023-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00+00:00",
                                "text": f"message number {i} about the trip to the lake"}) + "\n")
    return path


def file_alone(home: Path, tmp_path: Path) -> sqlite3.Connection:
    """chatmem.db as it is on disk, without its -wal: what a copy of the file alone holds."""
    copy = tmp_path / "alone.db"
    shutil.copyfile(home / "chatmem.db", copy)
    return sqlite3.connect(copy)


def count(db: sqlite3.Connection, sql: str = "SELECT count(*) FROM messages") -> int:
    return db.execute(sql).fetchone()[0]


def test_the_database_file_holds_the_import_when_it_returns(tmp_path, config):
    home = tmp_path / "home"
    store = Store.open(home, config)
    try:
        export = write_export(tmp_path / "anna.jsonl", "Anna Berg", 300)
        [report] = store.import_sources(find_sources(export))
        assert report.as_dict()["messages"]["new"] == 300
        assert count(file_alone(home, tmp_path)) == 300
        # a newer export of it: the 200 new rows are in the file too, and search finds them
        write_export(export, "Anna Berg", 500)
        store.import_sources(find_sources(export))
        assert count(file_alone(home, tmp_path)) == 500
        assert store.index.doc_count() == 500
        # a write after the import (an agent's turn, a memory) is folded in by SQLite at its
        # commit once the log is big enough, as before: the import left no connection without
        with store.write() as conn:
            conn.exec_driver_sql("CREATE TABLE scratch (x BLOB)")
            conn.exec_driver_sql("INSERT INTO scratch VALUES (zeroblob(8000000))")
        assert count(file_alone(home, tmp_path), "SELECT count(*) FROM scratch") == 1
    finally:
        store.close()
    assert not (home / "chatmem.db-wal").exists()  # the last connection's close folds it in
    assert count(sqlite3.connect(home / "chatmem.db")) == 500


def test_several_sources_folded_in_after_their_last_commit(tmp_path, config):
    home, folder = tmp_path / "home", tmp_path / "exports"
    folder.mkdir()
    for n, name in enumerate(("Anna Berg", "Ben Okafor", "Chiara Rossi")):
        write_export(folder / f"chat{n}.jsonl", name, 100 + n, start=1000 * n)
    store = Store.open(home, config)
    try:
        reports = store.import_sources(find_sources(folder))
        assert [r.as_dict()["messages"]["new"] for r in reports] == [100, 101, 102]
        assert count(file_alone(home, tmp_path)) == 303
        assert store.index.doc_count() == 303
    finally:
        store.close()
