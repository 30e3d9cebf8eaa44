"""One import of several sources (a Meta download is one source a thread, a folder of exports):
what each source learns from those before it, what a failure part way leaves, and the merge of
another export's messages whichever way the store is asked for them."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from meta_builders import m, thread, write
from resume_helpers import later, store_rows
from test_reconcile import view

from chatmem.config import load_config
from chatmem.errors import FormatError
from chatmem.importers import find_sources
from chatmem.store import Store, reconcile

INBOX = ("messages", "inbox")


def write_thread(root: Path, name: str, who: str, n: int, start: float = 0) -> Path:
    folder = root.joinpath(*INBOX, name)
    msgs = [m(start + i, who if i % 2 else "Sam Rivera", f"{name} message {i}") for i in range(n)]
    write(folder / "message_1.json", thread(who, [who, "Sam Rivera"], msgs, f"inbox/{name}"))
    return folder


def download(root: Path, grown: int = 0) -> Path:
    """Three threads; `grown` more messages in the first and the last (newer than the rest)."""
    write_thread(root, "anna_1", "Anna Berg", 40 + grown)
    write_thread(root, "ben_2", "Ben Ortiz", 30)
    write_thread(root, "cleo_3", "Cleo Park", 20 + grown)
    return root


def import_all(home: Path, path: Path) -> list[dict[str, Any]]:
    with Store.open(home, load_config()) as store:
        return [r.as_dict() for r in store.import_sources(find_sources(path))]


def sources(home: Path) -> dict[str, tuple[str | None, str | None]]:
    """path -> (fingerprint, the last run's status) of every source the store knows."""
    db = sqlite3.connect(home / "chatmem.db")
    try:
        return {Path(p).name: (fp, status) for p, fp, status in db.execute(
            "SELECT s.path, s.fingerprint, r.status FROM sources s LEFT JOIN import_runs r"
            " ON r.id = s.last_run_id")}
    finally:
        db.close()


def test_a_failure_between_threads_keeps_each_thread_before_it_whole(tmp_path):
    """A newer download whose second thread is broken: the first thread's new messages land
    with its state, the broken one and the one after it are left as they were; the threads
    only re-exported keep their new file times. Mended, the next import reads only what the
    failure left, and the store is the one a clean import gives."""
    root = download(tmp_path / "dl")
    home = tmp_path / "home"
    assert sum(r["messages"]["new"] for r in import_all(home, root)) == 90
    before = sources(home)

    download(root, grown=5)
    broken = root.joinpath(*INBOX, "ben_2", "message_1.json")
    later(broken)
    good = broken.read_bytes()
    broken.write_bytes(good[: len(good) // 2])  # cut off mid-file
    with pytest.raises(FormatError, match="ben_2"):
        import_all(home, root)
    after = sources(home)
    assert after["anna_1"] != before["anna_1"]  # its new messages and state are saved
    assert after["ben_2"] == before["ben_2"] and after["cleo_3"] == before["cleo_3"]
    with Store.open(home, load_config()) as store, store.read() as conn:
        counts = dict(conn.exec_driver_sql("SELECT name, message_count FROM chats").all())
    assert counts == {"Anna Berg": 45, "Ben Ortiz": 30, "Cleo Park": 20}

    broken.write_bytes(good)
    reports = {Path(r["path"]).name: r for r in import_all(home, root)}
    assert reports["anna_1"]["status"] == "unchanged"
    assert reports["cleo_3"]["messages"]["new"] == 5
    whole = tmp_path / "whole"
    import_all(whole, download(tmp_path / "dl2"))
    import_all(whole, download(tmp_path / "dl2", grown=5))
    assert store_rows(home) == store_rows(whole)


DYING_IMPORT = """
import os, sys
from pathlib import Path
from chatmem.config import load_config
from chatmem.importers import find_sources
from chatmem.store import Store
import chatmem.store.store as store_module

home, path, where = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
landed = []
import_source, catch_up = store_module.Store.import_source, store_module.Store._catch_up_after

def dies_after_two(self, *args, **kwargs):
    landed.append(import_source(self, *args, **kwargs))
    if where == "between threads" and len(landed) == 2:
        os._exit(9)  # as a kill: nothing more runs, nothing is committed on the way out
    return landed[-1]

def dies_before_the_index(self, *args, **kwargs):
    if where == "before the index":
        os._exit(9)
    return catch_up(self, *args, **kwargs)

store_module.Store.import_source = dies_after_two
store_module.Store._catch_up_after = dies_before_the_index
with Store.open(home, load_config()) as store:
    store.import_sources(find_sources(path))
"""


@pytest.mark.parametrize("where", ["between threads", "before the index"])
def test_an_import_killed_part_way_is_completed_by_the_next(tmp_path, where):
    """The process is killed while a newer download is imported (after two of its three
    threads, or once they are saved and before the search index caught up): the next import
    brings the store to what a clean import gives, and the new messages are found by search."""
    import subprocess
    import sys

    from chatmem.tools.search import search_memory

    root = download(tmp_path / "dl")
    home = tmp_path / "home"
    import_all(home, root)
    download(root, grown=5)
    later(*root.rglob("message_1.json"))
    child = subprocess.run([sys.executable, "-c", DYING_IMPORT, str(home), str(root), where],
                           capture_output=True, text=True)
    assert child.returncode == 9, child.stderr
    new = sum(r["messages"]["new"] for r in import_all(home, root))
    if where == "before the index":  # every thread was saved: only the index had to catch up
        assert new == 0
    whole = tmp_path / "whole"
    import_all(whole, download(tmp_path / "dl2"))
    import_all(whole, download(tmp_path / "dl2", grown=5))
    assert store_rows(home) == store_rows(whole)
    with Store.open(home, load_config()) as store:
        found = search_memory(store, store.config.seat(None), "\"anna_1 message 44\"")
    assert [hit["content"] for hit in found["results"]] == ["me: anna_1 message 44"]


def test_re_exported_threads_remember_their_new_times_once_for_the_download(tmp_path):
    """Every file of a new download has new times: the threads whose bytes did not change are
    reported unchanged and their new times remembered (the next import answers from them),
    also when a thread after them fails."""
    root = download(tmp_path / "dl")
    home = tmp_path / "home"
    import_all(home, root)
    files = sorted(root.rglob("message_1.json"))
    later(*files)
    reports = import_all(home, root)
    assert [r["status"] for r in reports] == ["unchanged"] * 3
    assert all("only its time changed" in " ".join(r["notes"]) for r in reports)
    remembered = sources(home)
    assert import_all(home, root) and sources(home) == remembered  # answered from the times

    later(*files)
    cleo = root.joinpath(*INBOX, "cleo_3", "message_1.json")
    cleo.write_bytes(cleo.read_bytes()[: cleo.stat().st_size // 2])
    with pytest.raises(FormatError):
        import_all(home, root)
    now = sources(home)
    assert now["anna_1"][0] != remembered["anna_1"][0] and now["ben_2"][0] != remembered["ben_2"][0]
    assert now["cleo_3"] == remembered["cleo_3"]


def test_a_renamed_group_in_one_folder_of_exports_is_one_chat(cli, tmp_path):
    """The export that shows the rename and the one named after the new name, imported together
    (one import of their folder): the second knows the first's names, one chat."""
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "WhatsApp Chat with Book Club.txt").write_text(
        '12/01/2024, 10:00 - Anna Berg created group "Book Club"\n'
        "12/01/2024, 10:01 - Anna Berg: Welcome everyone\n"
        '15/01/2024, 09:00 - Anna Berg changed the subject from "Book Club" to "Readers Circle"\n'
        "15/01/2024, 09:05 - Ben Ortiz: Nice new name\n", encoding="utf-8")
    (folder / "WhatsApp Chat with Readers Circle.txt").write_text(
        "20/02/2024, 18:00 - Ben Ortiz: Next book: Dune\n"
        "20/02/2024, 18:02 - Sam Rivera: Great choice\n", encoding="utf-8")
    reports = cli.json("import", folder)
    assert len(reports) == 2
    chats = cli.json("chats")["chats"]
    assert len(chats) == 1 and chats[0]["messages"] == 6


def test_another_readers_messages_merge_however_their_time_range_is_read(tmp_path, fixtures_dir,
                                                                        monkeypatch):
    """Two readers of one Signal conversation: the second's messages are the first's, found
    by time, sender and text, whether the stored messages in a batch's time range are read
    straight away (few) or only after asking whether the chat holds another source's: the
    same store either way."""
    from conftest import Cli

    config = ("--config", str(fixtures_dir / "config.yaml"))
    seen = []
    for probe in (reconcile.MATCH_PROBE, 0, 1):
        monkeypatch.setattr(reconcile, "MATCH_PROBE", probe)
        cli = Cli(tmp_path / f"home-{probe}")
        cli(*config, "import", fixtures_dir / "signal" / "sigexport")
        again = cli.json(*config, "import", fixtures_dir / "signal" / "signal-desktop.sqlite")
        assert any("already in the store from another export" in n for r in again for n in r["notes"])
        seen.append(view(cli.home, "signal"))
    texts = [(r[0], r[1], r[3]) for r in seen[0] if len(r) > 5]
    assert texts.count(("Anna Berg", "Anna Berg", "The view from the top")) == 1
    assert texts.count(("Hiking Club", "Anna Berg", "Hi all 👋")) == 1
    assert seen[1] == seen[0] and seen[2] == seen[0]


def people_view(home: Path) -> tuple[list[tuple], list[tuple], list[tuple]]:
    db = sqlite3.connect(home / "chatmem.db")
    try:
        return (db.execute("SELECT id, name, manual FROM people ORDER BY id").fetchall(),
                db.execute("SELECT kind, value, person_id FROM handles ORDER BY kind, value").fetchall(),
                db.execute("SELECT id, person_id FROM messages ORDER BY id").fetchall())
    finally:
        db.close()


def test_the_threads_of_one_download_find_the_same_people_as_imported_one_by_one(tmp_path):
    """A person who writes in several threads of a download is one person, whether the threads
    are imported together (each thread's import takes over the people the one before saved)
    or one at a time."""
    root = tmp_path / "dl"
    for name, who in (("anna_1", "Anna Berg"), ("group_2", "Ben Ortiz"), ("ben_3", "Ben Ortiz"),
                      ("dana_4", "Dana Cruz")):
        write_thread(root, name, who, 12)
    write(root.joinpath(*INBOX, "group_2", "message_1.json"), thread("Walk", [
        "Anna Berg", "Ben Ortiz", "Dana Cruz", "Sam Rivera"],
        [m(i, ("Anna Berg", "Ben Ortiz", "Dana Cruz", "Sam Rivera")[i % 4], f"walk {i}") for i in range(12)],
        "inbox/group_2"))
    together, apart = tmp_path / "together", tmp_path / "apart"
    import_all(together, root)
    for folder in sorted(root.joinpath(*INBOX).iterdir()):
        import_all(apart, folder)
    assert people_view(together) == people_view(apart)
    people, _, messages = people_view(together)
    assert sorted(name for _, name, _ in people) == ["Anna Berg", "Ben Ortiz", "Dana Cruz", "me"]
    assert all(person for _, person in messages)


def test_a_download_imported_while_another_process_writes_says_so(tmp_path, monkeypatch):
    """Another process holds the store's write lock past the wait: the import of a download
    stops with the database's own message (no traceback), and writes nothing."""
    import chatmem.store.db as db_module
    from chatmem.errors import StoreError

    monkeypatch.setattr(db_module, "BUSY_TIMEOUT_MS", 200)
    root = download(tmp_path / "dl")
    home = tmp_path / "home"
    with Store.open(home, load_config()) as store:
        other = sqlite3.connect(home / "chatmem.db", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(StoreError, match="locked by another process"):
                store.import_sources(find_sources(root))
        finally:
            other.execute("ROLLBACK")
            other.close()
    assert sources(home) == {}
    assert sum(r["messages"]["new"] for r in import_all(home, root)) == 90
