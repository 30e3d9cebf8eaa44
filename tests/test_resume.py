"""Re-importing a grown WhatsApp export reads only what is new, and gives exactly the records a
full import gives: the same ids (occurrence numbers of repeated messages included), texts, line
numbers; a changed beginning falls back to reading and comparing the whole file, and loses
nothing; a killed re-import leaves the last import's store and place to resume intact."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from chatmem.config import load_config
from chatmem.importers import find_sources
from chatmem.importers.whatsapp import WhatsAppImporter
from chatmem.importers.whatsapp_stream import CHECKPOINT_ENTRIES
from chatmem.records import RESUME_STATE, ImportOptions, Message
from chatmem.store import Store
from chatmem.store.models import Message as MessageRow
from chatmem.store.models import Source

NAME = "WhatsApp Chat with Hiking Club.txt"
START = datetime(2022, 5, 1, 7, 0)
PEOPLE = ("Anna Berg", "Sam Rivera", "Jo Lee", "Mia Chen")


def chat_lines(n: int) -> list[str]:
    """`n` messages of a group: repeats of the same text by the same sender in the same minute
    (so occurrence numbers matter, also across checkpoints), multi-line messages, media,
    deleted messages and group events."""
    out = [f"{START:%d/%m/%Y, %H:%M} - Anna Berg created group \"Hiking Club\""]
    for i in range(1, n):
        when = START + timedelta(minutes=i // 3)  # three messages a minute
        stamp = f"{when:%d/%m/%Y, %H:%M} - "
        who = PEOPLE[i % 4]
        if i % 97 == 0:
            out.append(stamp + f"Anna Berg added Guest {i}")
        elif i % 5 == 0:
            out.append(stamp + f"{who}: ok")  # repeated text: same key within a minute
        elif i % 11 == 0:
            out.append(stamp + f"{who}: a longer one {i}\nsecond line {i}\n\nafter a blank line")
        elif i % 13 == 0:
            out.append(stamp + f"{who}: <Media omitted>")
        elif i % 17 == 0:
            out.append(stamp + f"{who}: This message was deleted")
        else:
            out.append(stamp + f"{who}: message {i} about the trail")
    return out


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def rows(home: Path) -> dict[str, tuple]:
    with Store.open(home, load_config()) as store, store.read() as conn:
        mt = MessageRow.__table__
        return {r.id: tuple(r) for r in conn.execute(select(
            mt.c.id, mt.c.chat_id, mt.c.sent_at, mt.c.ordinal, mt.c.sender, mt.c.text, mt.c.kind,
            mt.c.deleted, mt.c.edited, mt.c.raw, mt.c.digest, mt.c.person_id))}


def import_file(home: Path, path: Path, **kw) -> dict:
    with Store.open(home, load_config()) as store:
        (report,) = store.import_sources(find_sources(path), **kw)
        return report.as_dict()


@pytest.fixture
def full_store(tmp_path) -> dict[str, tuple]:
    """The records of the whole 3,500-message export imported at once."""
    folder = tmp_path / "ref"
    folder.mkdir()
    import_file(tmp_path / "reference", write(folder / NAME, chat_lines(3500)))
    return rows(tmp_path / "reference")


@pytest.mark.parametrize("first", [1, 999, 1000, 1001, 2222])
def test_a_grown_export_reads_only_the_new_part_and_equals_a_full_import(first, tmp_path, full_store):
    home = tmp_path / "home"
    src = write(tmp_path / NAME, chat_lines(3500)[:first])
    import_file(home, src)
    src = write(src, chat_lines(3500))
    report = import_file(home, src)
    assert report["messages"]["new"] == 3500 - first
    # only the messages after the last checkpoint were read again
    assert report["messages"]["unchanged"] <= CHECKPOINT_ENTRIES
    assert not any("read whole" in n for n in report["notes"])
    assert rows(home) == full_store


def test_the_tail_records_equal_the_full_reads_records(tmp_path):
    src = write(tmp_path / NAME, chat_lines(2600)[:2100])
    importer = WhatsAppImporter()
    first = list(importer.read(src, ImportOptions(owner_names=["Sam Rivera"])))
    state = first[-1].state
    write(src, chat_lines(2600))
    full = [r for r in importer.read(src, ImportOptions(owner_names=["Sam Rivera"]))
            if isinstance(r, Message)]
    tail = [r for r in importer.read(src, ImportOptions(owner_names=["Sam Rivera"], state=state))
            if isinstance(r, Message)]
    assert 500 <= len(tail) < len(full)
    assert tail == full[-len(tail):]


def test_a_reexport_with_only_a_new_time_is_unchanged(tmp_path):
    home = tmp_path / "home"
    src = write(tmp_path / NAME, chat_lines(2500))
    import_file(home, src)
    before = rows(home)
    assert import_file(home, src)["status"] == "unchanged"  # same size and time: skipped
    os.utime(src, (time.time() + 60, time.time() + 60))  # a re-export: same bytes, new time
    report = import_file(home, src)
    assert report["status"] == "unchanged"  # the same bytes: nothing read
    assert report["messages"] == {"new": 0, "unchanged": 0, "updated": 0}
    assert rows(home) == before
    # --force reads everything
    report = import_file(home, src, force=True)
    assert report["messages"] == {"new": 0, "unchanged": 2500, "updated": 0}


def test_a_changed_beginning_is_read_whole_and_loses_nothing(tmp_path):
    home = tmp_path / "home"
    lines = chat_lines(3000)
    src = write(tmp_path / NAME, lines[:2500])
    import_file(home, src)
    before = rows(home)
    changed = list(lines)
    changed[41] = changed[41].replace("message 41 about the trail", "This message was deleted")
    report = import_file(home, write(src, changed))
    assert any("read whole" in n for n in report["notes"])
    assert report["messages"]["new"] == 500
    after = rows(home)
    assert set(before) <= set(after)
    deleted = [r for r in after.values() if r[5] == "message 41 about the trail"]
    assert len(deleted) == 1 and deleted[0][7] is True  # marked deleted, its text kept


def test_changed_options_read_whole(tmp_path):
    src = write(tmp_path / NAME, chat_lines(2100))
    importer = WhatsAppImporter()
    state = list(importer.read(src, ImportOptions(owner_names=["Sam Rivera"])))[-1].state
    assert state[RESUME_STATE]
    again = [r for r in importer.read(src, ImportOptions(owner_names=["Jo Lee"], state=state))
             if isinstance(r, Message)]
    assert len(again) == 2100


@pytest.mark.slow
def test_sigkill_during_a_resumed_import_keeps_the_last_import_and_a_rerun_completes(tmp_path):
    home = tmp_path / "home"
    lines = chat_lines(16_000)
    ref = tmp_path / "ref"
    ref.mkdir()
    import_file(tmp_path / "reference", write(ref / NAME, lines))
    reference = rows(tmp_path / "reference")

    src = write(tmp_path / NAME, lines[:3000])
    import_file(home, src)
    prefix = rows(home)
    with Store.open(home, load_config()) as store, store.read() as conn:
        state_before = conn.execute(select(Source.state)).scalar_one()
    write(src, lines)
    env = {**os.environ, "CHATMEM_HOME": str(home)}
    proc = subprocess.Popen([sys.executable, "-m", "chatmem", "import", "--json", str(src)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wal = home / "chatmem.db-wal"
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if wal.exists() and wal.stat().st_size > 1_000_000:
            break
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    got = rows(home)
    assert got in (prefix, reference)
    with Store.open(home, load_config()) as store, store.read() as conn:
        state_now = conn.execute(select(Source.state)).scalar_one()
    assert (got == prefix) == (state_now == state_before)

    rerun = subprocess.run([sys.executable, "-m", "chatmem", "import", "--json", str(src)], env=env,
                           capture_output=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr.decode()
    assert rows(home) == reference


def test_a_checkpoint_an_earlier_version_wrote_still_resumes(tmp_path, full_store):
    """Earlier versions wrote the digest of the bytes before the checkpoint as BLAKE2b-128,
    unmarked; after the upgrade a grown export still reads only its new part from there (the
    same records as a full import), and its new checkpoint is written the new way."""
    import hashlib
    import json
    import sqlite3

    home = tmp_path / "home"
    src = write(tmp_path / NAME, chat_lines(3500)[:2222])
    import_file(home, src)
    db = sqlite3.connect(home / "chatmem.db")
    (state,) = db.execute("SELECT state FROM sources").fetchone()
    state = json.loads(state)
    (resume,) = state[RESUME_STATE].values()  # one chat text, one checkpoint
    assert resume["digest"].startswith("xxh3:")
    resume["digest"] = hashlib.blake2b(src.read_bytes()[:resume["offset"]], digest_size=16).hexdigest()
    with db:
        db.execute("UPDATE sources SET state = ?", (json.dumps(state),))
    db.close()
    report = import_file(home, write(src, chat_lines(3500)))
    assert report["messages"]["new"] == 3500 - 2222
    assert report["messages"]["unchanged"] <= CHECKPOINT_ENTRIES
    assert not any("read whole" in n for n in report["notes"])
    assert rows(home) == full_store
    with Store.open(home, load_config()) as store, store.read() as conn:
        (after,) = conn.execute(select(Source.__table__.c.state)).scalars()
    assert [r["digest"][:5] for r in after[RESUME_STATE].values()] == ["xxh3:"]
    assert [r["offset"] for r in after[RESUME_STATE].values()] > [resume["offset"]]
