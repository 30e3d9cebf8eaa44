"""`chatmem sync`: re-import every known source that changed since its last import."""

from __future__ import annotations

from pathlib import Path

from chatmem.config import load_timezone
from chatmem.errors import ChatmemError
from chatmem.importers import get_importer
from chatmem.store import Store


def sync_sources(store: Store, force: bool = False) -> list[dict]:
    """One report per known source: imported, unchanged, or missing (the file is gone)."""
    with store.reader() as r:
        sources = r.sources()
    reports = []
    with store.import_lock():
        for src in sources:
            path = Path(src.path)
            if not path.exists():
                reports.append({"path": src.path, "platform": src.platform, "status": "missing",
                                "notes": ["the file or folder is no longer there; kept what was imported"]})
                continue
            options = store.default_options()
            saved = src.options or {}
            if saved.get("timezone"):
                try:
                    options.timezone = load_timezone(saved["timezone"])
                except ChatmemError:
                    pass
            options.date_format = saved.get("date_format")
            options.chat = saved.get("chat")
            try:
                report = store.import_source(path, get_importer(src.platform), options, force=force,
                                             keep_forgotten=True)
                reports.append(report.as_dict())
            except ChatmemError as e:
                reports.append({"path": src.path, "platform": src.platform, "status": "failed",
                                "notes": [str(e)]})
    return reports
