"""Signal Desktop's database: the shared corpus, our fixture in two schema versions, errors."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from signal_builders import ANNA, BEN, SCENARIO, build_database

from chatmem.errors import FormatError
from chatmem.importers import detect, get_importer
from chatmem.importers.signal import SignalImporter
from chatmem.records import (
    OWNER,
    RESUME_STATE,
    Call,
    Chat,
    Estimate,
    ImportOptions,
    Message,
    Problem,
    SourceState,
    message_id_from_guid,
)

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_DB = ROOT / "fixtures" / "signal" / "signal-desktop.sqlite"
EXPECTED = ROOT / "fixtures" / "signal" / "expected.json"
CORPUS_SQL = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "corpus"
    / "signal"
    / "desktop_plaintext_sql"
    / "plaintext.sql"
)


def read(path: Path, **options) -> list:
    records = SignalImporter().read(path, ImportOptions(**options))
    return [r for r in records if not isinstance(r, Estimate)]  # progress hints only


def plain(records: list) -> list[dict]:
    """Records as JSON-able dicts without `raw` (which shows each schema's own row)."""
    out = []
    for r in records:
        d = dataclasses.asdict(r)
        d.pop("raw", None)
        for key in ("created_at", "memory_paused"):  # chat fields only agent sessions set
            if isinstance(r, Chat) and d.get(key) is None:
                d.pop(key)
        for a in d.get("attachments") or []:  # where the file is, without this machine's folders
            if a.get("path") and "attachments.noindex" in a["path"]:
                a["path"] = a["path"][a["path"].index("attachments.noindex"):]
        if isinstance(r, SourceState):
            d["notes"] = [n for n in d["notes"] if "schema version" not in n]
            d["state"].pop(RESUME_STATE, None)  # digests of the rows read (test_signal_resume.py)
        out.append({"record": type(r).__name__, **d})
    return json.loads(json.dumps(out, default=lambda o: o.isoformat(), ensure_ascii=False))


def of(records: list, kind: type) -> list:
    return [r for r in records if isinstance(r, kind)]


# ------------------------------------------------------------------------------ the corpus


@pytest.fixture
def corpus_db(tmp_path) -> Path:
    if not CORPUS_SQL.is_file():
        pytest.skip("../shared/corpus is not present")
    path = tmp_path / "plaintext.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(CORPUS_SQL.read_text(encoding="utf-8"))
    conn.commit()
    conn.close()
    return path


def ms(value: int) -> datetime:
    return datetime.fromtimestamp(value // 1000, timezone.utc).replace(
        microsecond=value % 1000 * 1000
    )


def test_corpus_plaintext_database_imports_the_expected_facts(corpus_db):
    assert isinstance(detect(corpus_db), SignalImporter)
    records = read(corpus_db)
    chats, messages, calls = of(records, Chat), of(records, Message), of(records, Call)
    assert [(c.key, c.name, c.group) for c in chats] == [
        ("eeeeeeee-eeee-eeee-eeee-eeeeeeeeeeee", "Eeeee Eeeeeeeeee", False)
    ]
    assert "67766776-6776-6776-6776-677667766776" in chats[0].handles
    # 5 rows in the chat: 4 messages and the call, which is a record of its own.
    assert len(messages) == 4 and len(calls) == 1
    assert not of(records, Problem)

    photo, voice, videos, edited = messages
    assert photo.guid == "05fee241-7b89-461b-87be-14b62c5ed0e8"
    assert photo.id == message_id_from_guid("signal", photo.guid)
    assert (photo.sender, photo.text, photo.sent_at) == (OWNER, "Photo caption", ms(1685967643288))
    assert [(a.name, a.mime_type, a.size, a.path) for a in photo.attachments] == [
        ("my-photo.jpg", "image/jpeg", 178803, "ph/photo-698")
    ]

    (call,) = calls
    assert (call.direction, call.media, call.answered, call.duration) == (
        "outgoing",
        "voice",
        True,
        None,
    )
    assert call.started_at == ms(1695224029560) and call.peer == "Eeeee Eeeeeeeeee"

    assert (voice.sender, voice.sender_handle, voice.text) == (
        "Eeeee Eeeeeeeeee",
        "+7 999 333 44 55",
        "",
    )
    assert voice.sent_at == ms(1695792334090) and voice.line == 6486
    assert [(a.mime_type, a.name) for a in voice.attachments] == [("audio/aac", None)]
    assert voice.extra["voice_note"] is True

    assert videos.sent_at == ms(1696176322229) and videos.sender == "Eeeee Eeeeeeeeee"
    assert [a.mime_type for a in videos.attachments] == ["video/mp4", "video/mp4"]

    assert (edited.sender, edited.text, edited.edited) == (
        OWNER,
        "Edited message, final version",
        True,
    )
    assert [(v.text, v.timestamp) for v in edited.versions] == [
        ("Edited message, initial version", ms(1696178282339))
    ]
    assert edited.extra["edited_at"] == ms(1696178321462).isoformat()
    assert not any(m.reactions or m.reply_to or m.deleted for m in messages)


def test_corpus_raw_record_is_the_row_with_its_json_readable(corpus_db):
    photo = of(read(corpus_db), Message)[0]
    raw = json.loads(photo.raw)
    assert raw["rowid"] == 698 and raw["type"] == "outgoing"
    assert raw["json"]["attachments"][0]["fileName"] == "my-photo.jpg"


def test_corpus_reread_gives_identical_records(corpus_db):
    assert plain(read(corpus_db)) == plain(read(corpus_db))


# ------------------------------------------------------------------- our fixture, 2 schemas


@pytest.fixture(params=["committed", "new", "old"])
def fixture_db(request, tmp_path) -> Path:
    if request.param == "committed":
        return FIXTURE_DB
    return build_database(tmp_path / f"{request.param}.sqlite", request.param)


def test_every_schema_version_imports_to_the_expected_records(fixture_db):
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    assert plain(read(fixture_db)) == expected


def test_fixture_covers_quotes_reactions_edits_deletions_groups_calls(fixture_db):
    records = read(fixture_db)
    messages = {m.guid: m for m in of(records, Message)}
    by_id = {m.id: m for m in messages.values()}
    chats = {c.name: c for c in of(records, Chat)}
    assert set(chats) == {"Anna Berg", "Ben Ortiz", "Hiking Club"}
    assert chats["Hiking Club"].group and chats["Hiking Club"].participants == [
        "Anna Berg",
        "Ben Ortiz",
    ]

    replies = [m for m in messages.values() if m.reply_to]
    assert [(by_id[m.reply_to].text, m.text) for m in replies] == [
        ("Yes! Trailhead at 9.", "Perfect, I'll bring coffee ☕"),
        ("Hi all 👋", "Hello!"),
    ]
    unresolved = [m.extra["quote"] for m in messages.values() if "quote" in m.extra]
    assert unresolved == [
        {"text": "an older message", "author": "Anna Berg", "sent_at": "2024-03-01T23:00:00+00:00"}
    ]

    reactions = [(m.text, r.sender, r.emoji) for m in messages.values() for r in m.reactions]
    assert reactions == [
        ("Yes! Trailhead at 9.", "Anna Berg", "👍"),
        ("Sorry, missed your call. Yes, I can drive.", OWNER, "❤️"),
        ("Hi all 👋", "Ben Ortiz", "😂"),
        ("Hi all 👋", OWNER, "👍"),
    ]
    (edited,) = [m for m in messages.values() if m.edited]
    assert edited.text == "See you at 9:30 then"
    assert [v.text for v in edited.versions] == ["See you at 9 then"]
    assert sum(m.deleted for m in messages.values()) == 2  # deletedForEveryone and isErased

    calls = of(records, Call)
    assert [(c.direction, c.media, c.duration, c.peer) for c in calls] == [
        ("incoming", "voice", 95, "Anna Berg"),
        ("missed", "video", None, "Ben Ortiz"),
    ]
    system = [(m.sender, m.text) for m in messages.values() if m.kind == "system"]
    assert ("me", "You added Anna Berg; You added Ben Ortiz") in system
    assert ("Signal", "Your safety number with Ben Ortiz has changed") in system
    assert all(m.extra.get("event") for m in messages.values() if m.kind == "system")
    # the story row is not chat history, and says so in the report
    assert "a story, not chat history" not in {m.text for m in messages.values()}
    assert (
        "1 story row(s) skipped: stories are not chat history" in of(records, SourceState)[0].notes
    )


def test_reimport_gives_identical_ids(fixture_db):
    first, second = read(fixture_db), read(fixture_db)
    assert [getattr(r, "id", None) for r in first] == [getattr(r, "id", None) for r in second]
    assert len({m.id for m in of(first, Message)}) == len(of(first, Message))


def test_sender_read_from_the_e164_column_of_the_oldest_schemas(tmp_path):
    path = build_database(tmp_path / "oldest.sqlite", "old")
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE messages DROP COLUMN sourceUuid")  # only `source` (e164) is left
    conn.commit()
    conn.close()
    messages = of(read(path), Message)
    hello = next(m for m in messages if m.text == "Hello!")
    assert (hello.sender, hello.sender_handle) == ("Ben Ortiz", BEN.e164)
    assert hello.reply_to is not None  # the quote still finds its target by sender number


def test_a_message_whose_conversation_row_is_gone_is_kept(tmp_path):
    path = build_database(tmp_path / "db.sqlite", "new", SCENARIO[:1])
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM conversations WHERE id = ?", (ANNA.conv,))
    conn.commit()
    conn.close()
    records = read(path)
    assert of(records, Chat)[0].name.startswith("Unknown chat")
    assert of(records, Message)[0].text == "Are we still on for Saturday?"


def test_an_unreadable_row_is_reported_and_the_rest_imported(tmp_path):
    # the old schema: the new one's generated columns refuse malformed JSON on write
    path = build_database(tmp_path / "db.sqlite", "old")
    conn = sqlite3.connect(path)
    conn.execute("""UPDATE messages SET json = '{"quote": {broken' WHERE rowid = 3""")
    conn.commit()
    conn.close()
    records = read(path)
    (problem,) = of(records, Problem)
    assert problem.line == 3 and "json" in problem.reason and "{broken" in problem.text
    messages = of(records, Message)
    assert len(messages) == len(of(read(FIXTURE_DB), Message)) - 1
    hello = next(m for m in messages if m.text == "Hello!")
    assert hello.reply_to is not None  # other quotes still link


# ------------------------------------------------------------------------------ detection


def test_detect_is_cheap_and_never_raises(tmp_path):
    importer = SignalImporter()
    assert importer.detect(FIXTURE_DB)
    assert not importer.detect(tmp_path / "missing.sqlite")
    (tmp_path / "notes.txt").write_text("hello")
    assert not importer.detect(tmp_path / "notes.txt")
    assert not importer.detect(tmp_path)
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE messages (id)").connection.close()
    assert not importer.detect(other)
    assert get_importer("signal").platform == "signal"


def signal_folder(tmp_path: Path, config: dict, db_bytes: bytes = b"\x8f" * 4096) -> Path:
    folder = tmp_path / "Signal"
    (folder / "sql").mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "sql" / "db.sqlite").write_bytes(db_bytes)
    return folder


def test_signal_folder_is_detected(tmp_path):
    folder = signal_folder(tmp_path, {"key": "ab" * 32})
    assert SignalImporter().detect(folder)
    assert SignalImporter().detect(folder / "sql" / "db.sqlite")


# --------------------------------------------------------------------------------- errors


def test_encrypted_database_without_sqlcipher_says_how_to_proceed(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "sqlcipher3", None)  # import fails as if not installed
    folder = signal_folder(tmp_path, {"key": "ab" * 32})
    with pytest.raises(FormatError) as e:
        read(folder)
    message = str(e.value)
    assert str(folder / "sql" / "db.sqlite") in message
    assert "pip install 'chatmem[sqlcipher]'" in message and "sigtop export-database" in message


def test_key_sealed_by_the_keychain_says_how_to_make_a_plain_copy(tmp_path):
    folder = signal_folder(tmp_path, {"encryptedKey": "763130" + "ab" * 40})
    with pytest.raises(FormatError, match="keychain.*sigtop export-database"):
        read(folder)


def test_a_database_without_signal_tables_is_refused_by_name(tmp_path):
    path = tmp_path / "chat.db"
    sqlite3.connect(path).execute("CREATE TABLE messages (id)").connection.close()
    with pytest.raises(FormatError, match=r"chat\.db.*missing table conversations"):
        read(path)


def test_a_file_that_is_not_sqlite_is_refused_by_name(tmp_path):
    path = tmp_path / "export.sqlite"
    path.write_bytes(b"not a database at all")
    with pytest.raises(FormatError, match=r"export\.sqlite"):
        read(path)


KEY = "0f" * 32


def encrypted_signal_folder(tmp_path: Path, sqlcipher3) -> Path:
    """A Signal folder whose sql/db.sqlite is our fixture encrypted with KEY, as the app does."""
    plain_db = build_database(tmp_path / "plain.sqlite", "new")
    folder = tmp_path / "Signal"
    (folder / "sql").mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"key": KEY}))
    conn = sqlcipher3.connect(str(plain_db))
    conn.execute(f"ATTACH DATABASE '{folder / 'sql' / 'db.sqlite'}' AS enc KEY \"x'{KEY}'\"")
    conn.execute("SELECT sqlcipher_export('enc')")
    conn.execute("DETACH DATABASE enc")
    conn.close()
    return folder


def test_encrypted_database_with_sqlcipher_is_read_without_touching_the_folder(tmp_path):
    sqlcipher3 = pytest.importorskip("sqlcipher3")
    folder = encrypted_signal_folder(tmp_path, sqlcipher3)
    before = sorted(p.name for p in (folder / "sql").iterdir())
    assert plain(read(folder)) == json.loads(EXPECTED.read_text(encoding="utf-8"))
    assert sorted(p.name for p in (folder / "sql").iterdir()) == before

    (folder / "config.json").write_text(json.dumps({"key": "1e" * 32}))
    with pytest.raises(FormatError, match="cannot decrypt"):
        read(folder)


def test_encrypted_database_in_use_is_read_with_its_write_ahead_log(tmp_path):
    """Signal running: the latest writes are only in db.sqlite-wal, held open by the app."""
    sqlcipher3 = pytest.importorskip("sqlcipher3")
    folder = encrypted_signal_folder(tmp_path, sqlcipher3)
    app = sqlcipher3.connect(str(folder / "sql" / "db.sqlite"))
    try:
        app.execute(f"PRAGMA key = \"x'{KEY}'\"")
        app.execute("PRAGMA journal_mode = WAL")
        app.execute("PRAGMA wal_autocheckpoint = 0")
        app.execute("UPDATE messages SET body = 'Yes! Trailhead at 8.' WHERE rowid = 2")
        app.commit()
        assert (folder / "sql" / "db.sqlite-wal").stat().st_size > 0
        files = {p.name: p.stat().st_mtime_ns for p in (folder / "sql").iterdir()}
        texts = [m.text for m in of(read(folder), Message)]
        assert "Yes! Trailhead at 8." in texts
        assert {p.name: p.stat().st_mtime_ns for p in (folder / "sql").iterdir()} == files
    finally:
        app.close()


def test_plain_copy_in_wal_mode_is_read_without_creating_files_beside_it(tmp_path):
    # Regression: a read-only open of a WAL database used to leave -wal and -shm files behind.
    path = tmp_path / "copy.sqlite"
    shutil.copy(FIXTURE_DB, path)
    sqlite3.connect(path).execute("PRAGMA journal_mode = WAL").connection.close()
    assert SignalImporter().detect(path)
    assert of(read(path), Message)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.sqlite"]
