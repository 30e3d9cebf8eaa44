"""Hostile and broken input, for every importer (issue 9).

Each case ends with a clear one-line error (non-zero exit, nothing written) or with a report
of the lines it skipped — never a traceback, never a hang, never a partial store.

| case                                   | platform   | expected                         |
|----------------------------------------|------------|----------------------------------|
| random bytes named like each format    | all        | error, or unparsed lines counted |
| empty file                             | all        | error                            |
| truncated zip                          | whatsapp   | error                            |
| zip member with ../ or an absolute path| whatsapp   | error naming the member          |
| zip bomb                               | whatsapp   | error (size/ratio limit)         |
| UTF-16 and Latin-1 exports             | whatsapp   | imported                         |
| a 5 MB line                            | whatsapp   | imported, kept whole             |
| SQLite that is not a chat.db           | imessage   | error naming what is missing     |
| chat.db missing a table / a column     | imessage   | error naming it                  |
| SQLite that is not a Signal database   | signal     | error                            |
| JSONL with wrong types                 | jsonl      | lines reported, rest imported    |
| a vCard cut off in the middle          | contacts   | problem reported                 |
"""

from __future__ import annotations

import io
import json
import random
import sqlite3
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatmem import records as rec
from chatmem.errors import FormatError
from chatmem.importers import get_importer

GOOD_WHATSAPP = ("12/03/2024, 09:15 - Anna Berg: Morning! Coffee later?\n"
                 "12/03/2024, 09:16 - Sam Rivera: Sure, 10:30 at the usual place\n")


def run_import(cli, path: Path, platform: str | None = None):
    args = ["import", "--json"] + (["--platform", platform] if platform else []) + [str(path)]
    result = cli(*args, expect=None)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"traceback for {path.name}: {result.exception!r}"
    assert "Traceback" not in result.output
    return result


def stored_messages(cli) -> int:
    return cli.json("stats")["messages"]


def assert_clean_failure(cli, result, *needles: str):
    assert result.exit_code != 0, result.output
    assert result.output.startswith("chatmem: error:"), result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    for needle in needles:
        assert needle in result.output, result.output
    assert stored_messages(cli) == 0


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


@pytest.mark.parametrize("platform, name", [
    ("whatsapp", "WhatsApp Chat with Anna.txt"), ("jsonl", "x.jsonl"), ("imessage", "chat.db"),
    ("signal", "db.sqlite"), ("contacts", "c.vcf"), ("whatsapp", "export.zip"),
])
def test_random_bytes(cli, tmp_path, platform, name):
    path = tmp_path / name
    path.write_bytes(random.Random(name).randbytes(4096))  # the same bytes on every run
    result = run_import(cli, path, platform)
    if platform == "jsonl":
        # named as JSON Lines, every line is read: each is reported (file and line) and kept
        # as raw text, and no message is made up from noise
        report = json.loads(result.stdout)[0]
        assert result.exit_code == 0
        assert report["messages"]["new"] == 0 and stored_messages(cli) == 0
        lines = path.read_bytes().count(b"\n") + (not path.read_bytes().endswith(b"\n"))
        assert report["unparsed"] == lines > 0
        assert [p["line"] for p in report["problems"]] == list(range(1, len(report["problems"]) + 1))
        assert all(p["where"].endswith(name) for p in report["problems"])
    else:
        # noise is not an export: one clear line naming the file, and nothing stored
        assert_clean_failure(cli, result, name)


@pytest.mark.parametrize("platform, name", [
    ("whatsapp", "_chat.txt"), ("jsonl", "x.jsonl"), ("imessage", "chat.db"), ("signal", "db.sqlite"),
    ("contacts", "c.vcf"),
])
def test_empty_file(cli, tmp_path, platform, name):
    path = tmp_path / name
    path.write_bytes(b"")
    result = run_import(cli, path, platform)
    assert_clean_failure(cli, result, name)


def test_truncated_zip(cli, tmp_path):
    full = make_zip(tmp_path / "full.zip", {"_chat.txt": GOOD_WHATSAPP.encode() * 200})
    cut = tmp_path / "WhatsApp Chat - Anna.zip"
    cut.write_bytes(full.read_bytes()[: full.stat().st_size // 2])
    assert_clean_failure(cli, run_import(cli, cut, "whatsapp"), "WhatsApp Chat - Anna.zip")


@pytest.mark.parametrize("member", ["../../evil.txt", "/etc/evil.txt", "media/../../evil.jpg"])
def test_zip_path_traversal_is_refused(cli, tmp_path, member):
    path = make_zip(tmp_path / "WhatsApp Chat - Anna.zip",
                    {"_chat.txt": GOOD_WHATSAPP.encode(), member: b"x"})
    result = run_import(cli, path, "whatsapp")
    assert_clean_failure(cli, result, "WhatsApp Chat - Anna.zip")
    assert not (tmp_path.parent / "evil.txt").exists()


def test_zip_bomb_is_refused(cli, tmp_path):
    bomb = tmp_path / "WhatsApp Chat - Bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("_chat.txt", GOOD_WHATSAPP.encode() + b" " * (300 * 1024 * 1024))
    assert bomb.stat().st_size < 2 * 1024 * 1024
    assert_clean_failure(cli, run_import(cli, bomb, "whatsapp"), "Bomb.zip")


@pytest.mark.parametrize("encoding", ["utf-16", "latin-1"])
def test_other_encodings_import(cli, tmp_path, encoding):
    path = tmp_path / "WhatsApp Chat with Anna Berg.txt"
    path.write_bytes(GOOD_WHATSAPP.replace("Coffee", "Café").encode(encoding))
    result = run_import(cli, path, "whatsapp")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["messages"]["new"] == 2
    assert cli.json("search", "Café")["total"] == 1


def test_a_gigantic_line_is_kept_whole(cli, tmp_path):
    path = tmp_path / "WhatsApp Chat with Anna Berg.txt"
    path.write_text(GOOD_WHATSAPP + "12/03/2024, 09:17 - Anna Berg: " + "lorem " * 900_000 + "\n",
                    encoding="utf-8")
    result = run_import(cli, path, "whatsapp")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["messages"]["new"] == 3


def _sqlite(path: Path, ddl: str) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(ddl)
    conn.commit()
    conn.close()
    return path


def test_sqlite_that_is_not_a_chat_db(cli, tmp_path):
    path = _sqlite(tmp_path / "notes.db", "CREATE TABLE notes(id INTEGER, body TEXT); INSERT INTO notes VALUES (1, 'x');")
    assert_clean_failure(cli, run_import(cli, path, "imessage"), "notes.db")
    # and without --platform nobody claims it
    result = run_import(cli, path)
    assert_clean_failure(cli, result, "no recognised chat export")


def test_chat_db_missing_a_table(cli, tmp_path):
    path = _sqlite(tmp_path / "chat.db", """
        CREATE TABLE message (ROWID INTEGER PRIMARY KEY, guid TEXT, text TEXT, handle_id INTEGER,
                              is_from_me INTEGER, date INTEGER);
        CREATE TABLE handle (ROWID INTEGER PRIMARY KEY, id TEXT, service TEXT);
        INSERT INTO message VALUES (1, 'G1', 'hello', 1, 0, 0);""")
    assert_clean_failure(cli, run_import(cli, path, "imessage"), "chat.db")


def test_sqlite_that_is_not_a_signal_database(cli, tmp_path):
    path = _sqlite(tmp_path / "db.sqlite", "CREATE TABLE t(x); INSERT INTO t VALUES (1);")
    assert_clean_failure(cli, run_import(cli, path, "signal"), "db.sqlite")


def test_jsonl_with_wrong_types_reports_lines(cli, tmp_path):
    path = tmp_path / "bad.jsonl"
    lines = [
        {"platform": "whatsapp", "chat": "A", "sender": "A", "timestamp": "2024-01-01T00:00:00+00:00", "text": "ok"},
        {"platform": "whatsapp", "chat": "A", "sender": 5, "timestamp": "2024-01-01T00:00:00+00:00"},
        {"platform": "whatsapp", "chat": "A", "sender": "A", "timestamp": 1700000000},
        {"platform": "whatsapp", "chat": "A", "sender": "A", "timestamp": "yesterday"},
        {"platform": "whatsapp", "chat": "A", "sender": "A", "timestamp": "2024-01-01T00:00:00+00:00", "reactions": "👍"},
        ["not", "an", "object"],
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    result = run_import(cli, path, "jsonl")
    report = json.loads(result.stdout)[0]
    assert report["messages"]["new"] == 1
    assert report["unparsed"] == 5


def test_truncated_vcard_is_reported(cli, tmp_path):
    path = tmp_path / "c.vcf"
    path.write_text("BEGIN:VCARD\nVERSION:3.0\nFN:Anna Berg\nTEL:+15550100001\nEND:VCARD\nBEGIN:VCARD\nFN:Cu", encoding="utf-8")
    report = json.loads(run_import(cli, path).stdout)[0]
    assert report["contacts"] == 1 and report["unparsed"] == 1


# ---------------------------------------------------------------------- property-based

IMPORTERS = [("whatsapp", "WhatsApp Chat with X.txt"), ("jsonl", "x.jsonl"), ("contacts", "c.vcf"),
             ("imessage", "chat.db"), ("signal", "db.sqlite")]
WHATSAPPISH = st.lists(st.sampled_from([
    "12/03/2024, 09:15 - Anna: hi", "[12/03/2024, 09:15:00] Anna: hi", "03/12/24, 9:15 PM - Ben: yo",
    "2024-03-12 09:15 - ", "‎", "\r", "\r\r\n", "\ufeff", "<Media omitted>", "POLL:", "OPTION: a (1 vote)",
    "12/13/2024, 25:99 - X: bad time", "99/99/99, 99:99 - ", "\x00", "é", "Anna: no header",
]), max_size=30).map(lambda parts: "\n".join(parts).encode("utf-8", "surrogatepass"))


def _read_all(platform: str, path: Path) -> list:
    try:
        return list(get_importer(platform).read(path, rec.ImportOptions()))
    except FormatError:
        return []


@pytest.mark.parametrize("platform, name", IMPORTERS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(st.binary(max_size=2048), WHATSAPPISH))
def test_any_bytes_give_records_or_one_format_error(tmp_path, platform, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    for r in _read_all(platform, path):
        assert isinstance(r, (rec.Chat, rec.Message, rec.Call, rec.Reaction, rec.Contact,
                              rec.Problem, rec.SourceState, rec.Estimate))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(min_size=1, max_size=4096), cut=st.integers(min_value=1, max_value=4096))
def test_truncated_zips_never_crash(tmp_path, data, cut):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("_chat.txt", GOOD_WHATSAPP.encode() + data)
    path = tmp_path / "WhatsApp Chat - X.zip"
    path.write_bytes(buf.getvalue()[:cut])
    _read_all("whatsapp", path)
