"""The command line as people use it: reads that never create a store or wait for an import,
`--no-wait` that never waits, interrupts that say what is true, the same file being the same
source however it is reached, and one rule for exit statuses."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from chatmem.tools.cli import cli as chatmem_cli

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CONFIG = FIXTURES / "config.yaml"
JSONL = FIXTURES / "jsonl" / "notes-from-telegram.jsonl"
ANNA = FIXTURES / "whatsapp" / "WhatsApp Chat with Anna Berg.txt"


def run(home: Path, *args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "chatmem", "--home", str(home), "--config", str(CONFIG),
                           *args], capture_output=True, text=True, timeout=timeout,
                          cwd=str(cwd or ROOT))


def invoke(home: Path, *args: str):
    return CliRunner().invoke(chatmem_cli, ["--home", str(home), "--config", str(CONFIG), *args])


@pytest.mark.parametrize("command", [["chats"], ["stats"], ["search", "coffee"], ["people"],
                                     ["raw", "m_0000000000000000"]])
def test_a_read_never_creates_a_store(tmp_path, command):
    home = tmp_path / "nowhere"
    r = invoke(home, *command)
    assert r.exit_code == 1
    assert f"no chatmem store at {home}" in r.output and "import" in r.output
    assert not home.exists()


def test_reads_answer_and_no_wait_stops_while_another_import_writes(tmp_path):
    home = tmp_path / "home"
    assert run(home, "import", str(JSONL)).returncode == 0
    release = tmp_path / "release"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sqlite3, time, fcntl, os, pathlib
        home = pathlib.Path({str(home)!r})
        locks = [os.open(home / name, os.O_RDWR | os.O_CREAT) for name in ("import.lock", "index.lock")]
        for fd in locks:
            fcntl.flock(fd, fcntl.LOCK_EX)
        db = sqlite3.connect(home / "chatmem.db", isolation_level=None)
        db.execute("BEGIN IMMEDIATE")       # an import's write transaction, mid-way
        db.execute("UPDATE meta SET value = value WHERE key = 'seq'")
        print("holding", flush=True)
        while not pathlib.Path({str(release)!r}).exists():
            time.sleep(0.05)
        db.execute("ROLLBACK")
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        # would sit until the holder lets go (the test's timeout) if a read waited for it
        search = run(home, "search", "Zugspitze", "--json", timeout=25)
        assert search.returncode == 0 and '"total"' in search.stdout
        chats = run(home, "chats", timeout=25)
        assert chats.returncode == 0 and "Hiking club" in chats.stdout
        busy = run(home, "import", "--no-wait", str(ANNA), timeout=25)
        assert busy.returncode == 3
        assert "another chatmem import is running" in busy.stderr
    finally:
        release.touch()
        holder.wait(timeout=20)


def test_an_interrupt_in_the_index_phase_says_the_messages_are_saved(tmp_path, monkeypatch):
    from chatmem.store.index import FullTextIndex

    home = tmp_path / "home"

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(FullTextIndex, "write", interrupted)
    r = invoke(home, "import", str(JSONL))
    assert r.exit_code == 130
    assert "every message is saved" in r.output and "nothing of" not in r.output
    monkeypatch.undo()
    # the next read catches the index up and finds what the interrupted import saved
    found = invoke(home, "search", "Zugspitze", "--json")
    assert found.exit_code == 0 and '"total": 0' not in found.output


def test_an_interrupt_while_reading_a_source_says_nothing_of_it_was_written(tmp_path, monkeypatch):
    from chatmem.store import ingest

    def interrupted(self, records):
        raise KeyboardInterrupt

    monkeypatch.setattr(ingest.Ingest, "feed", interrupted)
    r = invoke(tmp_path / "home", "import", str(JSONL))
    assert r.exit_code == 130 and "nothing of the source being imported was written" in r.output


def test_the_same_file_is_the_same_source_however_it_is_reached(tmp_path):
    home = tmp_path / "home"
    export = tmp_path / "exports" / ANNA.name
    export.parent.mkdir()
    export.write_bytes(ANNA.read_bytes())
    link = tmp_path / "elsewhere"
    link.symlink_to(export.parent)
    assert run(home, "import", str(export)).returncode == 0
    relative = run(home, "import", os.path.join("exports", ANNA.name), cwd=tmp_path)
    via_link = run(home, "import", str(link / ANNA.name))
    for r in (relative, via_link):
        assert r.returncode == 0 and "unchanged" in r.stdout, r.stdout + r.stderr
    sync = run(home, "sync")
    assert sync.returncode == 0 and "unchanged" in sync.stdout


@pytest.mark.parametrize("args", [["import", "--timezone", "Mars/Olympus", str(JSONL)],
                                  ["import", "--date-format", "XYZ", str(ANNA)],
                                  ["search", "coffee", "--limit", "many"]])
def test_a_wrong_option_value_is_a_usage_error(tmp_path, args):
    r = invoke(tmp_path / "home", *args)
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
