"""An import of exports that did not change: told before the store is loaded, with the same
report the store's own path gives, changing nothing; a re-export (the same bytes, a new file
time) is unchanged and remembered; a file whose size and time are what the last import saw is
trusted unchanged (as rsync and git trust them) until --force reads it; anything else (a new or
changed export in a folder, another database, an index behind) goes the usual way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import func, select

from chatmem.store import Store
from chatmem.store.models import ImportRun, Message, Source

START_LINES = [f"0{d}/03/2024, 09:{m:02d} - Anna Berg: message {d}-{m} about the ferry" for d in range(1, 8)
               for m in range(0, 60, 7)]


def export(folder: Path, name: str = "WhatsApp Chat with Anna Berg.txt", lines: list[str] = START_LINES) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def store_state(home: Path) -> tuple:
    """What an import could change: the runs, the sources' rows, the messages, the seq."""
    with Store.open(home, create=False, catch_up=False) as store, store.read() as conn:
        runs = conn.execute(select(func.count()).select_from(ImportRun.__table__)).scalar()
        sources = conn.execute(select(Source.__table__)).all()
        msgs = conn.execute(select(Message.__table__.c.id, Message.__table__.c.digest)
                            .order_by(Message.__table__.c.id)).all()
        return runs, [tuple(r) for r in sources], [tuple(r) for r in msgs], store.database_seq()


def reports(cli, *args: str) -> list[dict]:
    out = cli.json("import", *args)
    for r in out:
        r.pop("seconds")
    return out


def test_an_unchanged_import_reports_what_the_store_would_and_changes_nothing(cli, home, tmp_path, config):
    src = export(tmp_path / "exports")
    export(tmp_path / "exports", "WhatsApp Chat with Ben Okafor.txt",
           [line.replace("Anna Berg", "Ben Okafor") for line in START_LINES[:20]])
    first = reports(cli, str(src.parent))
    assert [r["status"] for r in first] == ["ok", "ok"]
    before = store_state(home)
    quick = reports(cli, str(src.parent))
    assert [r["status"] for r in quick] == ["unchanged", "unchanged"]
    assert [r["messages"] for r in quick] == [{"new": 0, "unchanged": 0, "updated": 0}] * 2
    assert store_state(home) == before
    with Store.open(home, config) as store:  # the store's own path says the same
        from chatmem.importers import find_sources

        long_way = [r.as_dict() for r in store.import_sources(find_sources(src.parent))]
    for r in long_way:
        r.pop("seconds")
    assert long_way == quick


def test_a_re_export_is_unchanged_and_its_new_time_remembered(cli, home, tmp_path):
    src = export(tmp_path / "exports")
    cli.json("import", str(src))
    before = store_state(home)
    later = src.stat().st_mtime + 120
    os.utime(src, (later, later))
    (again,) = reports(cli, str(src))
    assert again["status"] == "unchanged"
    assert "only its time changed" in again["notes"][0]
    (third,) = reports(cli, str(src))  # the new time was remembered: not read again
    assert third["status"] == "unchanged" and third["notes"][0].startswith("unchanged since")
    runs, sources, messages, seq = store_state(home)
    assert (runs, messages, seq) == (before[0], before[2], before[3])
    assert sources != before[1]  # only the fingerprint moved


def test_a_re_export_of_a_newer_export_is_unchanged(cli, tmp_path):
    """The digest of a changed export (made meanwhile, its size told it changed) is kept: the
    same bytes under a new time afterwards are recognised."""
    src = export(tmp_path / "exports")
    cli.json("import", str(src))
    export(tmp_path / "exports", lines=[*START_LINES, "08/03/2024, 10:00 - Anna Berg: one more"])
    (grown,) = reports(cli, str(src))
    assert grown["status"] == "ok" and grown["messages"]["new"] == 1
    later = src.stat().st_mtime + 120
    os.utime(src, (later, later))
    (again,) = reports(cli, str(src))
    assert again["status"] == "unchanged" and "only its time changed" in again["notes"][0]


def test_changed_bytes_under_the_same_size_and_time_are_trusted_unchanged_until_forced(cli, home, tmp_path):
    src = export(tmp_path / "exports")
    cli.json("import", str(src))
    st = src.stat()
    text = src.read_text(encoding="utf-8")
    src.write_text(text.replace("message 3-14 about the ferry", "message 3-14 about the train"), encoding="utf-8")
    assert src.stat().st_size == st.st_size
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
    (trusted,) = reports(cli, str(src))
    assert trusted["status"] == "unchanged"
    (forced,) = reports(cli, "--force", str(src))
    # (a WhatsApp message is keyed by what it says: the changed line is a message of its own)
    assert forced["status"] == "ok" and forced["messages"]["new"] == 1
    found = cli.json("search", "train")
    assert [r["content"] for r in found["results"]] == ["Anna Berg: message 3-14 about the train"]


def test_a_new_export_in_a_folder_or_a_changed_one_is_imported(cli, tmp_path):
    folder = tmp_path / "exports"
    anna = export(folder)
    cli.json("import", str(folder))
    ben = export(folder, "WhatsApp Chat with Ben Okafor.txt",
                 [line.replace("Anna Berg", "Ben Okafor") for line in START_LINES[:10]])
    got = {Path(r["path"]).name: (r["status"], r["messages"]["new"]) for r in reports(cli, str(folder))}
    assert got == {anna.name: ("unchanged", 0), ben.name: ("ok", 10)}
    export(folder, lines=[*START_LINES, "08/03/2024, 10:00 - Anna Berg: one more"])
    got = {Path(r["path"]).name: (r["status"], r["messages"]["new"]) for r in reports(cli, str(folder))}
    assert got == {anna.name: ("ok", 1), ben.name: ("unchanged", 0)}


def test_an_unchanged_import_does_not_load_the_database_layer(home, tmp_path):
    """What makes it quick: the report comes without SQLAlchemy, Whoosh or any importer."""
    src = export(tmp_path / "exports")
    env = {**os.environ, "CHATMEM_HOME": str(home)}
    code = ("import sys; from chatmem.tools.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "loaded = sorted(m for m in ('sqlalchemy', 'whoosh', 'chatmem.importers.whatsapp') if m in sys.modules)\n"
            "print('loaded:', ','.join(loaded), file=sys.stderr)")
    runs = [subprocess.run([sys.executable, "-c", code, "import", str(src)], env=env, capture_output=True,
                           text=True, timeout=120) for _ in range(2)]
    assert runs[0].returncode == 0 and "loaded: chatmem.importers.whatsapp,sqlalchemy,whoosh" in runs[0].stderr
    assert runs[1].returncode == 0 and "unchanged" in runs[1].stdout
    assert "loaded: \n" in runs[1].stderr, runs[1].stderr


def test_a_live_chat_db_whose_newest_messages_are_only_in_its_log_is_read_again(cli, tmp_path):
    """Messages running: new rows go to chat.db-wal and chat.db keeps its size and time; the
    import must not call that unchanged."""
    import sqlite3

    from imessage_builders import GEN_2023, apple_ns, build_chat_db
    from test_imessage import t

    (tmp_path / "Messages").mkdir()
    sc = build_chat_db(tmp_path / "Messages" / "chat.db", GEN_2023)
    app = sqlite3.connect(sc.path)
    try:
        app.execute("PRAGMA journal_mode = wal")
        app.execute("PRAGMA wal_autocheckpoint = 0")
        (first,) = reports(cli, str(sc.path))
        assert first["status"] == "ok"
        (same,) = reports(cli, str(sc.path))
        assert same["status"] == "unchanged"
        main_file = sc.path.stat()
        app.execute("INSERT INTO message (guid, text, handle_id, is_from_me, date) "
                    "VALUES ('LIVE-2', 'the quince jam is ready', 0, 1, ?)", (apple_ns(t(59)),))
        app.commit()
        assert (sc.path.stat().st_size, sc.path.stat().st_mtime_ns) == (main_file.st_size, main_file.st_mtime_ns)
        (live,) = reports(cli, str(sc.path))
        assert live["status"] == "ok" and live["messages"]["new"] == 1
        assert [r["content"] for r in cli.json("search", "quince")["results"]] == ["me: the quince jam is ready"]
        (after,) = reports(cli, str(sc.path))
        assert after["status"] == "unchanged"
    finally:
        app.close()


def test_a_signal_folder_read_again_by_its_app_is_still_unchanged(cli, tmp_path):
    """Signal Desktop open on the folder rewrites sql/db.sqlite-shm (an index every reader keeps,
    not content): that alone does not make the folder a changed source."""
    import json
    import shutil

    folder = tmp_path / "Signal"
    (folder / "sql").mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({}))
    shutil.copy(Path(__file__).parent.parent / "fixtures" / "signal" / "signal-desktop.sqlite",
                folder / "sql" / "db.sqlite")
    (first,) = reports(cli, str(folder))
    assert first["status"] == "ok" and first["messages"]["new"] > 0
    (folder / "sql" / "db.sqlite-shm").write_bytes(b"\0" * 32768)
    (again,) = reports(cli, str(folder))
    assert again["status"] == "unchanged"
    (folder / "sql" / "db.sqlite-wal").write_bytes(b"\0" * 32)  # a log is content: read again
    (third,) = reports(cli, str(folder))
    assert third["status"] == "ok"
    outside = tmp_path / "elsewhere"  # links inside a folder are not followed, nor looked at
    (outside / "deeper").mkdir(parents=True)
    (outside / "deeper" / "db.sqlite").write_bytes(b"x")
    (folder / "linked").symlink_to(outside, target_is_directory=True)
    (folder / "sql" / "linked.sqlite").symlink_to(outside / "deeper" / "db.sqlite")
    assert [r["status"] for r in reports(cli, str(folder))] == ["unchanged"]
    (outside / "deeper" / "db.sqlite").write_bytes(b"xy")
    assert [r["status"] for r in reports(cli, str(folder))] == ["unchanged"]


def _sources_state(home: Path) -> dict:
    import json
    import sqlite3

    conn = sqlite3.connect(home / "chatmem.db")
    try:
        (state,) = conn.execute("SELECT state FROM sources").fetchone()
    finally:
        conn.close()
    return json.loads(state)


def test_a_digest_an_earlier_version_recorded_still_tells_a_re_export(cli, home, tmp_path, config):
    """Stores imported before the digest became XXH3 hold SHA-256 digests ("sha256:..."): after
    the upgrade, a re-export of an unchanged source (the same bytes, a new time) is still
    unchanged, by the CLI's quick check and by the store's own path, not read again; the next
    export that changed is digested the new way, and its re-export is unchanged too."""
    import hashlib
    import json
    import sqlite3

    from chatmem.importers import find_sources

    src = export(tmp_path / "exports")
    cli.json("import", str(src))
    conn = sqlite3.connect(home / "chatmem.db")
    (options, state) = conn.execute("SELECT options, state FROM sources").fetchone()
    # what the earlier version wrote: SHA-256 of the options, then per file its name and the
    # SHA-256 of its bytes
    h = hashlib.sha256(json.dumps({"platform": "whatsapp", **json.loads(options)}, sort_keys=True,
                                  default=str).encode())
    h.update(b"\0" + hashlib.sha256(src.read_bytes()).digest())
    state = {**json.loads(state), "content": f"sha256:{h.hexdigest()}"}
    with conn:
        conn.execute("UPDATE sources SET state = ?", (json.dumps(state),))
    conn.close()
    before = store_state(home)

    def re_export() -> None:
        later = src.stat().st_mtime + 120
        os.utime(src, (later, later))

    re_export()
    (quick,) = reports(cli, str(src))
    assert quick["status"] == "unchanged" and "only its time changed" in quick["notes"][0]
    re_export()
    with Store.open(home, config) as store:
        (long_way,) = [r.as_dict() for r in store.import_sources(find_sources(src))]
    assert long_way["status"] == "unchanged" and "only its time changed" in long_way["notes"][0]
    runs, _, messages, seq = store_state(home)
    assert (runs, messages, seq) == (before[0], before[2], before[3])
    assert _sources_state(home)["content"] == state["content"]

    export(tmp_path / "exports", lines=[*START_LINES, "08/03/2024, 10:00 - Anna Berg: one more"])
    (grown,) = reports(cli, str(src))
    assert grown["status"] == "ok" and grown["messages"]["new"] == 1
    assert _sources_state(home)["content"].startswith("xxh3_128:")
    re_export()
    (again,) = reports(cli, str(src))
    assert again["status"] == "unchanged" and "only its time changed" in again["notes"][0]



def test_a_grown_chat_db_read_once_still_tells_a_re_export_and_a_changed_page(cli, tmp_path):
    """A chat.db that grew is read whole by its importer (its pages' hashes); the content digest
    kept for the next import is made on that read, not by reading the file again: the same bytes
    under a new time are then unchanged, and one changed page (the same size) is not."""
    import shutil
    import sqlite3

    from imessage_builders import GEN_2023, apple_ns, build_chat_db
    from test_imessage import t

    (tmp_path / "Messages").mkdir()
    sc = build_chat_db(tmp_path / "Messages" / "chat.db", GEN_2023)
    (first,) = reports(cli, str(sc.path))
    assert first["status"] == "ok"
    size = sc.path.stat().st_size
    app = sqlite3.connect(sc.path)
    app.execute("INSERT INTO message (guid, text, handle_id, is_from_me, date) VALUES "
                "('GREW-1', ?, 0, 1, ?)", ("the plum tart " + "crumbs " * 1500, apple_ns(t(59))))
    app.commit()
    app.close()
    assert sc.path.stat().st_size > size  # (a new size: the digest is made for next time)
    (grown,) = reports(cli, str(sc.path))
    assert grown["status"] == "ok" and grown["messages"]["new"] == 1

    re_export = tmp_path / "re-export.db"  # the same bytes, written anew under a new time
    shutil.copyfile(sc.path, re_export)
    re_export.replace(sc.path)
    later = sc.path.stat().st_mtime + 120
    os.utime(sc.path, (later, later))
    (again,) = reports(cli, str(sc.path))
    assert again["status"] == "unchanged" and "only its time changed" in again["notes"][0]

    size = sc.path.stat().st_size
    app = sqlite3.connect(sc.path)  # one page changed in place: the same size, a new time
    app.execute("UPDATE message SET text = replace(text, 'plum', 'pear') WHERE guid = 'GREW-1'")
    app.commit()
    app.close()
    assert sc.path.stat().st_size == size
    later += 120
    os.utime(sc.path, (later, later))
    (edited,) = reports(cli, str(sc.path))
    assert edited["status"] == "ok"  # read, not taken for the same content
