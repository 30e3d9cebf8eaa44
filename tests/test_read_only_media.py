"""A store on read-only media (issue 19): every read works, every write stops with one line
naming the read-only path, and nothing of the store changes.

Read-only for real, two ways: a filesystem remounted read-only (needs mount rights), and a
store folder owned by another user. Root is not stopped by file modes, so as root the CLI
runs in a user namespace of its own (`unshare -U`), where it keeps no privilege over files
it does not own; as any other user the folder's modes are enough. Each way skips only where
the machine allows neither (no mount rights, no user namespaces)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CONFIG = FIXTURES / "config.yaml"
JSONL = FIXTURES / "jsonl" / "notes-from-telegram.jsonl"
ANNA = FIXTURES / "whatsapp" / "WhatsApp Chat with Anna Berg.txt"
SIGNAL = FIXTURES / "signal" / "signal-desktop.sqlite"
OTHER_USER = 65534  # nobody


@dataclass
class ReadOnlyStore:
    home: Path
    prefix: list[str]  # what runs the CLI: [] or ["unshare", "-U"]

    def run(self, *args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess:
        return subprocess.run([*self.prefix, sys.executable, "-m", "chatmem", "--home", str(self.home),
                               "--config", str(CONFIG), *map(str, args)],
                              capture_output=True, text=True, timeout=120, cwd=str(cwd))


def _cli(home: Path, *args: str | Path) -> subprocess.CompletedProcess:
    return ReadOnlyStore(home, []).run(*args)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("built") / "store"
    for export in (JSONL, ANNA, SIGNAL):
        r = _cli(home, "import", export)
        assert r.returncode == 0, r.stderr
    return home


def _snapshot(home: Path) -> dict[str, str]:
    """Every file of the store and a digest of its bytes."""
    return {str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(home.rglob("*")) if p.is_file()}


def _walk(top: Path):
    yield top
    yield from top.rglob("*")


def _mount_read_only(copy_from: Path, mnt: Path) -> Path | None:
    """`copy_from` copied onto a small filesystem of our own, then remounted read-only."""
    mnt.mkdir(parents=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mnt)],
                      capture_output=True).returncode != 0:
        return None
    shutil.copytree(copy_from, mnt / "store")
    if subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)
        return None
    return mnt / "store"


def _not_mine(copy_from: Path, folder: Path) -> list[str] | None:
    """`copy_from` copied into a folder the CLI may read but not write; the prefix to run
    the CLI with, or None where this machine cannot arrange it."""
    home = folder / "store"
    shutil.copytree(copy_from, home)
    if os.geteuid() != 0:
        for p in _walk(home):
            p.chmod(0o555 if p.is_dir() else 0o444)
        return []
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-U", "true"],
                                                         capture_output=True).returncode != 0:
        return None
    for p in _walk(home):
        os.chown(p, OTHER_USER, OTHER_USER)
        p.chmod(0o755 if p.is_dir() else 0o644)
    return ["unshare", "-U"]


@pytest.fixture(params=["read-only filesystem", "another user's folder", "a read-only database file"])
def read_only(request, built, tmp_path):
    yield from _read_only(request.param, built, tmp_path)


def _read_only(way: str, source: Path, tmp_path: Path):
    if way == "a read-only database file":
        # the user's own store in a folder they can write, its database made read-only on
        # purpose (chmod 0400): chatmem keeps it so, even as root (whom modes do not stop)
        home = tmp_path / "mine" / "store"
        shutil.copytree(source, home)
        (home / "chatmem.db").chmod(0o400)
        yield ReadOnlyStore(home, [])
        assert (home / "chatmem.db").stat().st_mode & 0o777 == 0o400
        return
    if way == "read-only filesystem":
        mnt = tmp_path / "media"
        home = _mount_read_only(source, mnt)
        if home is None:
            pytest.skip("cannot mount a read-only filesystem here (needs CAP_SYS_ADMIN)")
        try:
            yield ReadOnlyStore(home, [])
        finally:
            subprocess.run(["umount", "-l", str(mnt)], capture_output=True)
    else:
        prefix = _not_mine(source, tmp_path / "theirs")
        if prefix is None:
            pytest.skip("running as root without user namespaces: nothing stops root writing")
        try:
            yield ReadOnlyStore(tmp_path / "theirs" / "store", prefix)
        finally:
            for p in _walk(tmp_path / "theirs"):  # let pytest clean up
                if not p.is_symlink():
                    p.chmod(0o700 if p.is_dir() else 0o600)


def _ok(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and "error:" not in r.stderr, r.stderr
    return r.stdout


def test_every_read_works_and_nothing_changes(read_only, tmp_path):
    before = _snapshot(read_only.home)
    found = json.loads(_ok(read_only.run("search", "Zugspitze", "--json")))
    assert found["total"] >= 1
    hit = found["results"][0]
    assert "Zugspitze" in _ok(read_only.run("search", "Zugspitze"))
    assert hit["id"] in _ok(read_only.run("context", hit["id"]))
    assert "Zugspitze" in _ok(read_only.run("raw", hit["id"]))
    chats = _ok(read_only.run("chats"))
    assert "Anna Berg" in chats and hit["source"] in chats
    assert _ok(read_only.run("conversation", hit["source"])).strip()
    assert _ok(read_only.run("history", hit["source"])).strip()
    assert "Anna Berg" in _ok(read_only.run("people"))
    assert "messages" in _ok(read_only.run("stats"))
    doctor = json.loads(_ok(read_only.run("doctor", "--json")))
    assert doctor["read_only"] is True and doctor["counts"]["messages"] > 0
    assert any("read-only" in w for w in doctor["warnings"])
    out = tmp_path / "export.jsonl"  # somewhere writable: export only reads the store
    _ok(read_only.run("export", "--out", out))
    assert "Zugspitze" in out.read_text(encoding="utf-8")
    assert _snapshot(read_only.home) == before


@pytest.mark.parametrize("command", [
    ["import", "--force", str(JSONL)],
    ["import", str(FIXTURES / "whatsapp" / "WhatsApp Chat with Ben Ortiz.txt")],
    ["sync"],
    ["reindex"],
    ["forget", "--yes", str(JSONL)],
    ["people", "rename", "Anna Berg", "Anna B."],
    ["people", "merge", "Anna Berg", "Ben Ortiz"],
    ["memory", "save", "s_0000000000000000", "Hike on Saturday.", "--cite", "m_0000000000000000"],
], ids=["import --force", "import new", "sync", "reindex", "forget", "people rename", "people merge",
        "memory save"])
def test_a_write_says_which_path_is_read_only(read_only, command):
    before = _snapshot(read_only.home)
    r = read_only.run(*command)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("chatmem: error:")]
    assert len(errors) == 1, r.stderr
    assert str(read_only.home) in errors[0] and "read-only" in errors[0], errors[0]
    assert _snapshot(read_only.home) == before


def _leave_the_write_ahead_log(home: Path) -> None:
    """A change committed to the write-ahead log and never merged into the database file, as
    a store copied while chatmem ran (or after a crash) has it."""
    subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
        import os, sqlite3
        db = sqlite3.connect({str(home / "chatmem.db")!r}, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA wal_autocheckpoint=0")
        db.execute("UPDATE people SET name = 'Anna Bergström' WHERE name = 'Anna Berg'")
        os._exit(0)  # no checkpoint, no clean close
    """)], check=True)
    assert (home / "chatmem.db-wal").stat().st_size > 0


@pytest.mark.parametrize("way", ["read-only filesystem", "another user's folder"])
def test_a_store_with_its_write_ahead_log_left_behind_reads_from_read_only_media(built, tmp_path, way):
    source = tmp_path / "left" / "store"
    shutil.copytree(built, source)
    _leave_the_write_ahead_log(source)
    gen = _read_only(way, source, tmp_path / way.replace(" ", "-").replace("'", ""))
    store = next(gen)
    try:
        people = _ok(store.run("people"))
        assert "Anna Bergström" in people  # the log's change is read, not lost
    finally:
        gen.close()


@pytest.mark.parametrize("way", ["read-only filesystem", "another user's folder"])
def test_a_write_ahead_log_without_its_index_file_reads_what_the_database_holds(built, tmp_path, way):
    source = tmp_path / "left" / "store"
    shutil.copytree(built, source)
    _leave_the_write_ahead_log(source)
    (source / "chatmem.db-shm").unlink()  # e.g. a copy that left it out
    gen = _read_only(way, source, tmp_path / way.replace(" ", "-").replace("'", ""))
    store = next(gen)
    try:
        r = store.run("people")
        people = _ok(r)
        assert "Anna Berg" in people and "Bergström" not in people
        wal = store.home / "chatmem.db-wal"
        assert f"chatmem: warning: {wal}" in r.stderr and "not shown" in r.stderr, r.stderr
    finally:
        gen.close()



def test_the_mcp_server_serves_reads_and_its_write_tools_say_read_only(read_only):
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    command = [*read_only.prefix, sys.executable, "-m", "chatmem", "--home", str(read_only.home),
               "--config", str(CONFIG), "serve"]
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT),
                                   env={k: v for k, v in os.environ.items() if not k.startswith("CHATMEM_")})
    before = _snapshot(read_only.home)

    async def main():
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    found = await session.call_tool("search_memory", {"query": "Zugspitze"})
                    assert not found.is_error, found.content
                    source = found.structured_content["results"][0]["source"]
                    saved = await session.call_tool("save_memory", {
                        "conversation_id": source, "text": "Hike on Saturday.",
                        "cites": [found.structured_content["results"][0]["id"]]})
                    return found.structured_content, saved

    found, saved = anyio.run(main)
    assert found["total"] >= 1
    said = " ".join(getattr(c, "text", "") for c in saved.content)
    assert saved.is_error and "read-only" in said and str(read_only.home) in said, said
    assert _snapshot(read_only.home) == before


def test_an_index_behind_the_database_on_read_only_media_says_so(tmp_path):
    home = tmp_path / "made" / "store"
    assert _cli(home, "import", JSONL).returncode == 0
    shutil.copytree(home / "index", tmp_path / "index-before")
    assert _cli(home, "import", ANNA).returncode == 0
    shutil.rmtree(home / "index")
    shutil.copytree(tmp_path / "index-before", home / "index")  # as if copied mid-way
    gen = _read_only("another user's folder", home, tmp_path / "ro")
    store = next(gen)
    try:
        r = store.run("search", "Zugspitze")
        assert "Zugspitze" in _ok(r)  # what the index holds is found
        assert "search index" in r.stderr and "behind" in r.stderr and "read-only" in r.stderr, r.stderr
    finally:
        gen.close()
