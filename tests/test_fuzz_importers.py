"""Mutational fuzzing of every importer (issue 18, point 3).

Each of our fixtures (WhatsApp .txt and .zip, JSON Lines, vCard, chat.db, CallHistory, an iOS
backup folder, a Signal Desktop database, a signal-export folder, Signal's phone export, a
Telegram result.json, Telegram HTML pages (a chat export and an account export's lists), SMS Backup & Restore files, a Meta thread and an encrypted Meta download
file) is mutated with seeded byte
flips, truncation, SQLite page corruption, and duplicated, removed or cut lines. Every mutant
must either import or fail with one FormatError line naming the file: never another exception,
never a hang. A damaged chat.db used to end in `sqlite3.DatabaseError: database disk image is
malformed` from the ROWID watermark read.

Bounded: CHATMEM_FUZZ_SECONDS per importer (default 3), split over its fixture kinds, and at
most CHATMEM_FUZZ_MUTANTS per kind (default 300); CHATMEM_FUZZ_SEED changes the mutants
(default 18). A longer run:

    CHATMEM_FUZZ_SECONDS=120 CHATMEM_FUZZ_MUTANTS=100000 python -m pytest -q tests/test_fuzz_importers.py

A failure names the seed and mutant number; the same pair rebuilds the same mutant.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from figures import report
from mutation import SQLITE_MUTATORS, TEXT_MUTATORS, ZIP_MUTATORS, Mutator, mutate

from chatmem import records as rec
from chatmem.errors import FormatError
from chatmem.importers import get_importer

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
SECONDS_PER_IMPORTER = float(os.environ.get("CHATMEM_FUZZ_SECONDS", "3"))
SEED = int(os.environ.get("CHATMEM_FUZZ_SEED", "18"))
MIN_MUTANTS = 10  # even on a slow machine, every kind gets at least this many
# ...and at most this many, so that a fast machine runs the same mutants as the last green run
# (a longer hunt: CHATMEM_FUZZ_MUTANTS=100000 with CHATMEM_FUZZ_SECONDS)
MAX_MUTANTS = int(os.environ.get("CHATMEM_FUZZ_MUTANTS", "300"))
HANG_SECONDS = 20  # a mutant taking longer than this is a hang
RECORD_TYPES = (rec.Chat, rec.Message, rec.Call, rec.Reaction, rec.Contact, rec.Problem,
                rec.SourceState, rec.Estimate)


@dataclass(frozen=True)
class Kind:
    """One kind of fixture: how to lay out a good copy, which file in it to mutate, what path
    to import, with which importer and mutators."""

    name: str
    platform: str
    mutators: list[Mutator]
    layout: str  # "file": the fixture file itself; otherwise a builder below
    family: str = ""  # kinds of one family share one importer's time (default: the platform)

    def kinds_of_platform(self) -> int:
        return sum(1 for k in KINDS if (k.family or k.platform) == (self.family or self.platform))


KINDS = [
    Kind("whatsapp-txt", "whatsapp", TEXT_MUTATORS, "whatsapp-txt"),
    Kind("whatsapp-zip", "whatsapp", ZIP_MUTATORS, "whatsapp-zip"),
    Kind("jsonl", "jsonl", TEXT_MUTATORS, "jsonl"),
    Kind("vcard", "contacts", TEXT_MUTATORS, "vcard"),
    Kind("chat.db", "imessage", SQLITE_MUTATORS, "chat.db"),
    Kind("CallHistory", "imessage", SQLITE_MUTATORS, "CallHistory"),
    Kind("ios-backup", "imessage", SQLITE_MUTATORS, "ios-backup"),
    Kind("signal-desktop", "signal", SQLITE_MUTATORS, "signal-desktop"),
    Kind("signal-export", "signal", TEXT_MUTATORS, "signal-export"),
    Kind("signal-phone-export", "signal", TEXT_MUTATORS, "signal-phone-export"),
    Kind("telegram", "telegram", TEXT_MUTATORS, "telegram"),
    Kind("telegram-html", "telegram", TEXT_MUTATORS, "telegram-html", "telegram-html"),
    Kind("telegram-html-account", "telegram", TEXT_MUTATORS, "telegram-html-account", "telegram-html"),
    Kind("sms-backup", "sms", TEXT_MUTATORS, "sms-backup"),
    Kind("meta-thread", "messenger", TEXT_MUTATORS, "meta-thread"),
    Kind("meta-e2ee", "messenger", TEXT_MUTATORS, "meta-e2ee"),
]


def lay_out(kind: Kind, folder: Path, rng: random.Random) -> tuple[Path, Path]:
    """A good copy of a fixture of `kind` in `folder`: (the file to mutate, the path to import)."""
    folder.mkdir(parents=True)
    if kind.layout in ("whatsapp-txt", "whatsapp-zip"):
        suffix = ".txt" if kind.layout == "whatsapp-txt" else ".zip"
        choices = sorted(p for p in (FIXTURES / "whatsapp").iterdir() if p.suffix == suffix)
        src = rng.choice(choices)
        target = shutil.copy(src, folder / src.name)
        return Path(target), Path(target)
    if kind.layout == "jsonl":
        target = Path(shutil.copy(FIXTURES / "jsonl" / "notes-from-telegram.jsonl", folder))
        return target, target
    if kind.layout == "vcard":
        target = Path(shutil.copy(FIXTURES / "contacts" / "friends.vcf", folder))
        return target, target
    if kind.layout == "chat.db":
        target = Path(shutil.copy(FIXTURES / "imessage" / "chat.db", folder))
        return target, target
    if kind.layout == "CallHistory":
        # a damaged CallHistory beside a good chat.db: read from either side
        chat_db = Path(shutil.copy(FIXTURES / "imessage" / "chat.db", folder))
        target = Path(shutil.copy(FIXTURES / "imessage" / "CallHistory.storedata", folder))
        return target, rng.choice([chat_db, target])
    if kind.layout == "ios-backup":
        shutil.copytree(_backup_template(), folder, dirs_exist_ok=True)
        dbs = sorted(p for p in folder.rglob("*") if p.is_file() and _is_sqlite(p))
        return rng.choice(dbs), folder
    if kind.layout == "signal-desktop":
        target = Path(shutil.copy(FIXTURES / "signal" / "signal-desktop.sqlite", folder))
        return target, target
    if kind.layout == "signal-export":
        export = folder / "signal-export"
        shutil.copytree(FIXTURES / "signal" / "sigexport", export)
        files = sorted(p for p in export.rglob("*") if p.suffix in (".json", ".md"))
        return rng.choice(files), export
    if kind.layout == "signal-phone-export":
        export = folder / "signal-phone-export"
        shutil.copytree(FIXTURES / "signal" / "phone-export", export)
        return rng.choice([export / "main.jsonl", export / "metadata.json"]), export
    if kind.layout == "telegram":
        export = folder / "DataExport"
        shutil.copytree(FIXTURES / "telegram" / "DataExport_2024-03-02", export)
        return export / "result.json", export / "result.json"
    if kind.layout == "telegram-html":
        export = folder / "ChatExport"
        shutil.copytree(FIXTURES / "telegram-html" / "ChatExport_2024-07-02", export)
        return rng.choice([export / "messages.html", export / "messages2.html"]), export
    if kind.layout == "telegram-html-account":
        export = folder / "DataExport"
        shutil.copytree(FIXTURES / "telegram-html" / "DataExport_2024-07-02", export)
        return rng.choice([export / "lists" / "chats.html", export / "lists" / "contacts.html",
                           export / "export_results.html", export / "chats" / "chat_001" / "messages.html",
                           export / "chats" / "chat_003" / "messages2.html"]), export
    if kind.layout == "sms-backup":
        name = rng.choice(["sms-20240302120000.xml", "calls-20240302120000.xml"])
        target = Path(shutil.copy(FIXTURES / "android" / name, folder))
        return target, target
    if kind.layout == "meta-thread":
        thread = folder / "liamoreau_20771"
        shutil.copytree(FIXTURES / "meta" / "facebook-samrivera-2024-03-02" / "your_activity_across_facebook"
                        / "messages" / "inbox" / "liamoreau_20771", thread)
        return rng.choice([thread / "message_1.json", thread / "message_2.json"]), thread
    if kind.layout == "meta-e2ee":
        src = FIXTURES / "meta" / "messenger-e2ee-2025-01-30" / "your_facebook_activity" / "messages"
        shutil.copytree(src, folder / "messages")
        target = folder / "messages" / "annaberg_1.json"
        return target, target
    raise AssertionError(kind.layout)


_BACKUP: list[Path] = []


def _backup_template() -> Path:
    """An iOS backup folder built once per run (tests/imessage_builders.py)."""
    if not _BACKUP:
        import tempfile

        from imessage_builders import build_backup

        folder = Path(tempfile.mkdtemp(prefix="chatmem-fuzz-backup-")) / "backup"
        folder.mkdir()
        build_backup(folder)
        _BACKUP.append(folder)
    return _BACKUP[0]


def _is_sqlite(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(16) == b"SQLite format 3\x00"


class Hang(Exception):
    pass


def _on_alarm(signum, frame):
    raise Hang()


def read_mutant(platform: str, path: Path) -> tuple[str, str | None]:
    """('ok', None) when every record came out, ('error', message) for a FormatError. Any
    other exception propagates (the test fails with it)."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(HANG_SECONDS)
    try:
        for record in get_importer(platform).read(path, rec.ImportOptions()):
            assert isinstance(record, RECORD_TYPES), record
        return "ok", None
    except FormatError as e:
        return "error", str(e)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def build_mutant(kind: Kind, folder: Path, seed: int) -> tuple[Path, Path, str]:
    rng = random.Random(seed)
    target, path = lay_out(kind, folder, rng)
    data, how = mutate(target.read_bytes(), kind.mutators, rng)
    target.write_bytes(data)
    return target, path, how


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_mutant_imports_or_fails_with_one_line(kind, tmp_path):
    budget = SECONDS_PER_IMPORTER / kind.kinds_of_platform()
    deadline = time.monotonic() + budget
    outcomes = {"ok": 0, "error": 0}
    n = 0
    while n < MIN_MUTANTS or (n < MAX_MUTANTS and time.monotonic() < deadline):
        seed = SEED * 1_000_003 + KINDS.index(kind) * 100_000 + n
        folder = tmp_path / f"m{n}"
        target, path, how = build_mutant(kind, folder, seed)
        where = f"{kind.name} mutant {n} (seed {seed}, {how}, {target.name})"
        try:
            outcome, message = read_mutant(kind.platform, path)
        except Hang:
            pytest.fail(f"{where}: still reading after {HANG_SECONDS} s")
        except Exception as e:  # noqa: BLE001 - any other exception is the bug this test hunts
            raise AssertionError(f"{where}: {e.__class__.__name__}: {e}") from e
        if outcome == "error":
            assert message and "\n" not in message, f"{where}: not one line: {message!r}"
            assert path.name in message or target.name in message, \
                f"{where}: the error does not name the file: {message}"
        outcomes[outcome] += 1
        shutil.rmtree(folder)
        n += 1
    report(f"fuzz {kind.name}: {n} mutants in {budget:.1f} s, {outcomes['ok']} imported, "
           f"{outcomes['error']} refused with one line (seed {SEED})")


# ---------------------------------------------------------------------- through the CLI

CLI_SAMPLE = 3  # mutants per kind taken through `chatmem import`


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_mutants_through_the_cli_exit_cleanly(kind, tmp_path):
    from click.testing import CliRunner

    from chatmem.tools.cli import cli

    for n in range(CLI_SAMPLE):
        seed = SEED * 7_919 + KINDS.index(kind) * 1_000 + n
        target, path, how = build_mutant(kind, tmp_path / f"m{n}", seed)
        where = f"{kind.name} CLI mutant {n} (seed {seed}, {how})"
        home = tmp_path / f"home{n}"
        result = CliRunner().invoke(cli, ["--home", str(home), "import", "--json",
                                          "--platform", kind.platform, str(path)])
        assert result.exception is None or isinstance(result.exception, SystemExit), \
            f"{where}: {result.exception!r}"
        if result.exit_code != 0:
            lines = result.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("chatmem: error:"), f"{where}: {result.stderr}"
            assert path.name in lines[0] or target.name in lines[0], f"{where}: {lines[0]}"
            stats = CliRunner().invoke(cli, ["--home", str(home), "stats", "--json"])
            assert '"messages": 0' in stats.stdout, f"{where}: something was written: {stats.stdout}"


# ---------------------------------------------------------------------- named regressions

def _smash_table(db: Path, table: str) -> None:
    """Overwrite the root page of `table` with 0xff bytes (a damaged disk sector)."""
    import sqlite3

    conn = sqlite3.connect(db)
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    data = bytearray(db.read_bytes())
    data[(root - 1) * size : root * size] = b"\xff" * size
    db.write_bytes(bytes(data))


def test_a_damaged_message_table_is_one_line_not_a_traceback(cli, tmp_path):
    """Issue 18: `sqlite3.DatabaseError: database disk image is malformed` escaped from the
    ROWID watermark read (`SELECT max(ROWID) FROM message`) as a traceback."""
    db = Path(shutil.copy(FIXTURES / "imessage" / "chat.db", tmp_path / "chat.db"))
    _smash_table(db, "message")
    result = cli("import", "--platform", "imessage", str(db), expect=None)
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert result.stderr.startswith("chatmem: error:") and len(result.stderr.strip().splitlines()) == 1
    assert "chat.db" in result.stderr and "malformed" in result.stderr
    assert cli.json("stats")["messages"] == 0


def test_a_mangled_vcard_charset_is_read(tmp_path):
    """Found by the fuzz test: CHARSET=UTF-\\x00 8 raised ValueError (embedded null character)."""
    path = tmp_path / "c.vcf"
    path.write_bytes(b"BEGIN:VCARD\r\nVERSION:2.1\r\nFN;CHARSET=UTF-\x008;ENCODING=QUOTED-PRINTABLE:Ben=20Ortiz\r\n"
                     b"TEL:+15550100002\r\nEND:VCARD\r\n")
    outcome, message = read_mutant("contacts", path)
    assert outcome == "ok", message


def test_a_lone_surrogate_in_json_lines_is_one_reported_line(tmp_path):
    """Found by the fuzz test: "\\ud800" parsed, then failed to encode in the id (a traceback)."""
    import json

    good = {"platform": "whatsapp", "chat": "A", "sender": "A", "timestamp": "2024-01-01T00:00:00+00:00"}
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps({**good, "text": "ok"}) + "\n"
                    + json.dumps({**good, "text": "half"}).replace("half", "half \\ud800") + "\n")
    records = list(get_importer("jsonl").read(path, rec.ImportOptions()))
    problems = [r for r in records if isinstance(r, rec.Problem)]
    assert len(problems) == 1 and problems[0].line == 2 and "surrogate" in problems[0].reason
    assert sum(isinstance(r, rec.Message) for r in records) == 1
