"""What re-import tests compare: the store's rows a user sees, and imports of one path."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from chatmem.config import load_config
from chatmem.importers import find_sources
from chatmem.store import Store

# every table a re-import can change, without the columns that number rows or runs
TABLES = {
    "messages": "id, chat_id, sent_at, sender, sender_handle, text, kind, deleted, edited, "
                "reply_to, raw, digest, extra",
    "attachments": "id, message_id, position, name, mime_type, size, path, present, text",
    "reactions": "message_id, sender, emoji, timestamp, removed",
    "message_versions": "message_id, position, text, timestamp, origin",
    "calls": "id, chat_id, started_at, direction, duration, answered, raw",
    "chats": "id, name, message_count",
}


def store_rows(home: Path) -> dict[str, set[tuple[Any, ...]]]:
    with Store.open(home, load_config()) as store, store.read() as conn:
        return {t: {tuple(r) for r in conn.exec_driver_sql(f"SELECT {cols} FROM {t}")}
                for t, cols in TABLES.items()}


def import_path(home: Path, path: Path, **kw: Any) -> dict[str, Any]:
    with Store.open(home, load_config()) as store:
        (report,) = store.import_sources(find_sources(path), **kw)
        return report.as_dict()


def forget_chat(home: Path, name: str) -> str:
    """Forget the chat called `name`, as a user does; its id."""
    with Store.open(home, load_config()) as store, store.read() as conn:
        chat_id = conn.exec_driver_sql("SELECT id FROM chats WHERE name = ?", (name,)).scalar()
    with Store.open(home, load_config()) as store:
        store.forget(chat_id=chat_id)
    return chat_id


def later(*paths: Path) -> None:
    """A newer copy: the modification times move on."""
    for path in paths:
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


def fresh(tmp_path: Path, path: Path) -> dict[str, set[tuple[Any, ...]]]:
    """The store a first import of `path` gives."""
    home = tmp_path / "fresh-home"
    import_path(home, path)
    return store_rows(home)


def note(report: dict[str, Any], start: str) -> str:
    return next(n for n in report["notes"] if n.startswith(start))


def read_whole(tmp_path: Path, first: Path, second: Path) -> dict[str, set[tuple[Any, ...]]]:
    """The store that importing `first`, then `second` reading everything (no resume), gives:
    what a re-import that resumes must equal."""
    home = tmp_path / "whole-home"
    import_path(home, first)
    import_path(home, second, force=True)
    return store_rows(home)


def rewrite_resume_state(home: Path, change: Any) -> None:
    """Replace every source's resume state by `change(state)`: what an earlier version of an
    importer would have written (its digests, its fields), to test that an upgraded store
    resumes from it."""
    import json

    from chatmem.records import RESUME_STATE

    with Store.open(home, load_config()) as store, store.write() as conn:
        for source_id, raw in conn.exec_driver_sql("SELECT id, state FROM sources").fetchall():
            state = json.loads(raw)
            state[RESUME_STATE] = change(state[RESUME_STATE])
            conn.exec_driver_sql("UPDATE sources SET state = ? WHERE id = ?", (json.dumps(state), source_id))
