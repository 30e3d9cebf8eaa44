"""The store is private on a shared machine (issue 18, point 2).

Before: with umask 022 the database was 0644 and the store and index folders 0755, so every
local user could read every message. Now folders are 0700 and files 0600 whatever the umask
(database, -wal/-shm, index segments and state, lock files, exports written to a file), and
opening a store that others can read warns, naming the fix.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from chatmem.store import Store
from chatmem.store.permissions import exposed, permission_warnings

ROOT = Path(__file__).resolve().parents[1]
ANNA = ROOT / "fixtures" / "whatsapp" / "WhatsApp Chat with Anna Berg.txt"


@pytest.fixture
def umask_022():
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def modes(home: Path) -> dict[str, int]:
    out = {}
    for root, dirs, files in os.walk(home):
        for name in [*dirs, *files]:
            path = Path(root) / name
            out[str(path.relative_to(home))] = stat.S_IMODE(os.lstat(path).st_mode)
    out["."] = stat.S_IMODE(os.stat(home).st_mode)
    return out


def test_a_new_store_is_private_under_umask_022(cli, home, tmp_path, umask_022):
    cli("import", str(ANNA))
    out = tmp_path / "all.jsonl"
    cli("export", "--out", str(out))
    found = modes(home)
    assert "chatmem.db" in found and any(k.startswith("index/") for k in found)
    assert any(k.endswith(".lock") for k in found)
    for name, mode in found.items():
        is_dir = (home / name).is_dir()
        assert mode == (0o700 if is_dir else 0o600), f"{name}: {oct(mode)}"
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert exposed(home) == []


def test_wal_and_shm_are_private_while_open(home, config, umask_022):
    store = Store.open(home, config)
    try:
        with store.write() as conn:  # a write leaves -wal and -shm beside the database
            conn.exec_driver_sql("UPDATE meta SET value = value WHERE key = 'seq'")
        side = [p for p in home.iterdir() if p.name.startswith("chatmem.db-")]
        assert side, "expected -wal/-shm files while the store is open"
        for p in side:
            assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
    finally:
        store.close()


def test_an_exposed_store_warns_on_open(cli, home, umask_022):
    cli("import", str(ANNA))
    os.chmod(home, 0o755)
    os.chmod(home / "chatmem.db", 0o644)
    warnings = permission_warnings(home)
    assert len(warnings) == 1 and str(home) in warnings[0] and "chmod -R go-rwx" in warnings[0]
    result = cli("stats", "--json")
    assert "chatmem: warning: other users on this machine can read the store" in result.stderr
    assert json.loads(result.stdout)["messages"] > 0  # a warning, not a failure
    os.chmod(home, 0o700)
    os.chmod(home / "chatmem.db", 0o600)
    assert "warning" not in cli("stats", "--json").stderr


def test_an_export_over_an_existing_readable_file_is_private(cli, tmp_path, umask_022):
    cli("import", str(ANNA))
    out = tmp_path / "all.jsonl"
    out.write_text("old")
    os.chmod(out, 0o644)
    cli("export", "--out", str(out))
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
