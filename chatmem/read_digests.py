"""Digests of whole files that a reader made on its own read of them, handed to the store.

An importer that reads a file whole anyway (sqlite_pages: chat.db's or Signal Desktop's pages)
keeps the xxh3_128 of its bytes here, under the file's identity (device, inode, size,
modification and change times, the same before and after that read); the store's content digest
of the same import (store/quick.py) takes it instead of reading the file again. A write to the
file since changes its times, and the digest is then made from the file again."""

from __future__ import annotations

import os
import threading

_DIGESTS: dict[tuple[int, ...], bytes] = {}
_LOCK = threading.Lock()


def identity(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def remember(before: os.stat_result, after: os.stat_result, digest: bytes) -> None:
    """Keep the xxh3_128 `digest` of a file's bytes, read whole between the stats `before` and
    `after` (nothing kept when the file changed while it was read)."""
    if identity(before) != identity(after):
        return
    with _LOCK:
        if len(_DIGESTS) >= 64:  # read by imports that made no content digest of them
            _DIGESTS.clear()
        _DIGESTS[identity(after)] = digest


def take(st: os.stat_result) -> bytes | None:
    """The digest kept for the file of stat `st` (once), or None."""
    with _LOCK:
        return _DIGESTS.pop(identity(st), None)
