"""Faults and concurrent use (issue 9): a full disk, a read-only home, reads during an
import, and two imports at once. Nothing lost, nothing half-written, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from chatmem.config import load_config
from chatmem.store import Store
from chatmem.store.models import Message
from chatmem.tools.chats import list_chats
from chatmem.tools.search import search_memory

JSONL = Path(__file__).resolve().parents[1] / "fixtures" / "jsonl" / "notes-from-telegram.jsonl"
N_BIG = 8_000


@pytest.fixture(scope="module")
def big_export(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for i in range(N_BIG):
            f.write(json.dumps({
                "platform": "signal", "chat": f"Team {i % 8}", "sender": f"Person {i % 13}",
                "timestamp": f"2022-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00+00:00",
                "text": f"status update {i} about the quarterly garden plans " * 3}) + "\n")
    return path


@pytest.fixture
def tmpfs(tmp_path):
    """A small filesystem of our own, to fill up or make read-only (needs mount rights)."""
    mnt = tmp_path / "small-disk"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mnt)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root / CAP_SYS_ADMIN)")
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def count_messages(home: Path) -> int:
    with Store.open(home, load_config()) as store, store.read() as conn:
        return conn.execute(select(func.count()).select_from(Message)).scalar_one()


def test_disk_full_is_a_clear_error_and_the_store_stays_intact(tmpfs, cli, big_export):
    cli.home = tmpfs / "home"
    cli("import", JSONL)
    result = cli("import", big_export, expect=None)
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert "disk is full" in result.output or "No space left" in result.output
    assert count_messages(cli.home) == 6
    assert cli.json("search", "Garmisch")["total"] == 1


def test_read_only_home_is_a_clear_error_and_the_store_stays_intact(tmpfs, cli):
    cli.home = tmpfs / "home"
    cli("import", JSONL)
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    try:
        result = cli("import", "--force", JSONL, expect=None)
        assert result.exit_code != 0
        assert "Traceback" not in result.output
        assert "chatmem: error:" in result.output
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(tmpfs)], check=True)
    assert count_messages(cli.home) == 6


def _start_import(home: Path, path: Path) -> subprocess.Popen:
    env = {**os.environ, "CHATMEM_HOME": str(home)}
    return subprocess.Popen([sys.executable, "-m", "chatmem", "import", "--json", str(path)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_reads_during_an_import_are_consistent(home, config, big_export):
    with Store.open(home, config) as store:
        proc = _start_import(home, big_export)
        seen_counts = set()
        reads = 0
        while proc.poll() is None or reads == 0:
            chats = list_chats(store, config.seat(None))["chats"]
            total = sum(c["messages"] for c in chats)
            seen_counts.add(total)
            found = search_memory(store, config.seat(None), "quarterly garden", limit=5)
            # the index commits a source at once: all of it is found or none, never a ghost
            assert found["total"] in (0, N_BIG)
            assert len(found["results"]) == min(5, found["total"])
            reads += 1
            time.sleep(0.05)
        assert proc.wait() == 0, proc.stderr.read().decode()
        # never a half-imported source: the chats show all of it or none of it
        assert seen_counts <= {0, N_BIG}
        store.catch_up_index()
        assert search_memory(store, config.seat(None), "quarterly garden")["total"] == N_BIG


def test_two_imports_at_once_serialize_without_corruption(home, big_export):
    first = _start_import(home, big_export)
    second = _start_import(home, big_export)
    out1, err1 = first.communicate(timeout=300)
    out2, err2 = second.communicate(timeout=300)
    assert first.returncode == 0, err1.decode()
    assert second.returncode == 0, err2.decode()
    reports = json.loads(out1)[0], json.loads(out2)[0]
    new = sorted(r["messages"]["new"] if r["status"] == "ok" else 0 for r in reports)
    assert new == [0, N_BIG]
    assert count_messages(home) == N_BIG


def test_the_index_lock_is_never_left_stale_after_a_kill(home, big_export):
    import signal

    proc = _start_import(home, big_export)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if any(p.suffix == ".seg" or p.name.endswith("WRITELOCK") for p in (home / "index").glob("*")):
            break
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # the next process can take the index lock at once and finish the work
    rerun = _start_import(home, big_export)
    assert rerun.wait(timeout=300) == 0
    with Store.open(home, load_config()) as store:
        assert store.index.doc_count() == count_messages(home)
