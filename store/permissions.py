"""Keeping the store private on a shared machine.

The store holds every message a person ever wrote, so its folders are 0700 and its files 0600
whatever the umask (bits are only taken away, never added: a database made read-only on
purpose stays so): the database (SQLite gives its -wal and -shm files the database file's
mode), the index segments and state file, lock files, and exports written to a file.
`exposed(home)` lists what other users could read or change in an existing store; `Store.open`
warns with it, and `chatmem doctor` can report the same.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
OTHERS = stat.S_IRWXG | stat.S_IRWXO  # any access for the group or everyone else


def create_private_file(path: Path) -> None:
    """Create `path` empty with mode 0600 if it does not exist (before SQLite opens it, so
    the database and its -wal/-shm files are private from their first byte)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    except FileExistsError:
        return
    os.close(fd)


def open_private(path: Path, mode: str = "w", encoding: str | None = "utf-8"):  # noqa: ANN201
    """`open(path, mode)` for a new file that only the owner may read (mode 0600)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    os.fchmod(fd, PRIVATE_FILE)  # an existing file keeps its mode through O_CREAT
    return os.fdopen(fd, mode, encoding=encoding if "b" not in mode else None)


def make_private(folder: Path) -> None:
    """Folder 0700, and every folder below it 0700 and every file 0600 (links untouched)."""
    _chmod(folder, PRIVATE_DIR)
    for root, dirs, files in os.walk(folder):
        for name in dirs:
            _chmod(Path(root) / name, PRIVATE_DIR)
        for name in files:
            _chmod(Path(root) / name, PRIVATE_FILE)


def _chmod(path: Path, mode: int) -> None:
    """`path` without the bits `mode` does not give; none is added (a database the user made
    read-only stays read-only)."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            return
        now = stat.S_IMODE(st.st_mode)
        want = now & mode
        if want != now:
            os.chmod(path, want)
    except OSError:  # gone meanwhile (a merged index segment), or not ours: exposed() says so
        pass


def read_only_file(path: Path) -> bool:
    """Is `path` a file that may not be written: its owner's write bit cleared on purpose (which
    root, whom modes do not stop, is held to as well), or not writable by this user?"""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return not st.st_mode & stat.S_IWUSR or not os.access(path, os.W_OK)


def exposed(home: Path) -> list[Path]:
    """The store's folders and files that the group or other users can read or change."""
    out: list[Path] = []
    if not home.is_dir():
        return out
    for root, dirs, files in os.walk(home):
        for path in [Path(root)] + [Path(root) / f for f in files]:
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if not stat.S_ISLNK(st.st_mode) and st.st_mode & OTHERS:
                out.append(path)
        dirs[:] = [d for d in dirs if not (Path(root) / d).is_symlink()]
    return out


def permission_warnings(home: Path) -> list[str]:
    """One warning line when other users can read or change the store, else nothing."""
    found = exposed(home)
    if not found:
        return []
    shown = ", ".join(str(p) for p in found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
    return [f"other users on this machine can read the store {home} ({shown}); "
            f"make it private with: chmod -R go-rwx '{home}'"]
