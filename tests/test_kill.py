"""Killing `chatmem import` midway leaves the store and index consistent, and a re-run
completes it with exactly the records of an uninterrupted import (issue 2, issue 9)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from chatmem.config import load_config
from chatmem.store import Store
from chatmem.store.models import Call, Message

N_MESSAGES = 12_000
WORDS = ("coffee train station dinner pizza hike rain office birthday party gift book "
         "game tired happy late tomorrow weekend beach museum concert").split()


@pytest.fixture(scope="module")
def big_export(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for i in range(N_MESSAGES):
            chat = f"Friend {i % 40}"
            words = " ".join(WORDS[(i * k) % len(WORDS)] for k in range(1, 8))
            f.write(json.dumps({
                "platform": "whatsapp", "chat": chat, "sender": "me" if i % 3 == 0 else chat,
                "timestamp": f"2023-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00+00:00",
                "text": f"{words} number{i}"}) + "\n")
    return path


def start_import(home: Path, path: Path) -> subprocess.Popen:
    env = {**os.environ, "CHATMEM_HOME": str(home)}
    return subprocess.Popen([sys.executable, "-m", "chatmem", "import", "--json", str(path)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def ids_and_counts(home: Path) -> tuple[set[str], int]:
    with Store.open(home, load_config()) as store:  # opening catches the index up
        with store.read() as conn:
            ids = set(conn.execute(select(Message.id)).scalars())
            calls = conn.execute(select(func.count()).select_from(Call)).scalar_one()
        assert store.index.doc_count() == len(ids) + calls, "index and database disagree"
    return ids, len(ids)


@pytest.fixture(scope="module")
def reference_ids(big_export, tmp_path_factory) -> set[str]:
    home = tmp_path_factory.mktemp("reference")
    proc = start_import(home, big_export)
    assert proc.wait(timeout=300) == 0, proc.stderr.read()
    ids, n = ids_and_counts(home)
    assert n == N_MESSAGES
    return ids


def wait_for(predicate, proc: subprocess.Popen, timeout: float = 120) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        if predicate():
            return True
        time.sleep(0.005)
    return False


def wal_size(home: Path) -> int:
    try:
        return (home / "chatmem.db-wal").stat().st_size
    except OSError:
        return 0


def index_writing(home: Path) -> bool:
    return any(p.name.endswith("WRITELOCK") for p in (home / "index").glob("*")) or \
        any(p.suffix == ".seg" for p in (home / "index").glob("*"))


def committed(home: Path) -> bool:
    """The source's transaction is visible to another connection: the database commit is done."""
    import sqlite3

    try:
        conn = sqlite3.connect(f"file:{home / 'chatmem.db'}?mode=ro", uri=True, timeout=0.1)
        try:
            return conn.execute("SELECT count(*) FROM sources").fetchone()[0] > 0
        finally:
            conn.close()
    except sqlite3.Error:
        return False


KILL_POINTS = {
    "before the first write": lambda home: (home / "import.lock").exists(),
    "during the database write": lambda home: wal_size(home) > 2_000_000,
    "right after the database commit": committed,
    "during the index write": index_writing,
}


@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_sigkill_leaves_a_consistent_store_and_a_rerun_completes(point, big_export, reference_ids, tmp_path):
    home = tmp_path / "home"
    proc = start_import(home, big_export)
    reached = wait_for(lambda: KILL_POINTS[point](home), proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    if not reached:
        pytest.skip(f"the import finished before reaching {point!r} on this machine")

    ids, n = ids_and_counts(home)
    assert n in (0, N_MESSAGES), f"half-written store: {n} messages"
    assert ids <= reference_ids

    rerun = start_import(home, big_export)
    out, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err.decode()
    final_ids, _ = ids_and_counts(home)
    assert final_ids == reference_ids
    # and search works on the completed store
    with Store.open(home, load_config()) as store:
        from chatmem.tools.search import search_memory

        found = search_memory(store, load_config().seat(None), "number11999")
    assert found["total"] == 1
