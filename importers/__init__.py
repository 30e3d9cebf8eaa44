"""Importers: one module per source format, each yielding normalized records.

`REGISTRY` maps a platform name to its importer; `detect(path)` picks one for a path.
Importers are loaded lazily so a missing optional dependency of one never breaks another.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from chatmem.errors import FormatError
from chatmem.records import Importer

# folders never descended into when importing a folder
SKIP_DIRS = {"__MACOSX", ".git", "node_modules"}

# platform name -> "module:Class". Order matters for detection: the most specific first.
REGISTRY: dict[str, str] = {
    "imessage": "chatmem.importers.imessage:IMessageImporter",
    "signal": "chatmem.importers.signal:SignalImporter",
    "whatsapp": "chatmem.importers.whatsapp:WhatsAppImporter",
    "telegram": "chatmem.importers.telegram:TelegramImporter",
    "sms": "chatmem.importers.android_sms:AndroidSmsImporter",
    "messenger": "chatmem.importers.meta:MetaImporter",
    "contacts": "chatmem.importers.contacts:ContactsImporter",
    "jsonl": "chatmem.importers.jsonl:JsonlImporter",
}


def get_importer(platform: str) -> Importer:
    """The importer registered for `platform`; FormatError naming the choices otherwise."""
    target = REGISTRY.get(platform)
    if target is None:
        raise FormatError(f"unknown platform {platform!r}; choose one of: {', '.join(REGISTRY)}")
    module_name, _, cls_name = target.partition(":")
    importer: Importer = getattr(importlib.import_module(module_name), cls_name)()
    return importer


def detect(path: Path) -> Importer | None:
    """The importer that recognises `path`, or None. Detection never raises: a file an
    importer cannot even look at is simply not recognised by it."""
    for platform in REGISTRY:
        try:
            importer = get_importer(platform)
            if importer.detect(path):
                return importer
        except (FormatError, OSError, ValueError, ImportError):
            continue
    return None


def find_sources(path: Path, platform: str | None = None) -> list[tuple[Path, Importer]]:
    """The exports at `path` with the importer for each: the path itself when an importer
    recognises it (or `platform` names one), else every recognised export in the folder.
    FormatError when the path is missing or holds nothing recognised."""
    path = Path(path).expanduser()
    if not path.exists():
        raise FormatError(f"{path}: no such file or folder")
    sources = _find(path, platform)
    if not sources:
        raise FormatError(f"{path}: no recognised chat export here "
                          "(use --platform to say what it is)")
    return sources


def _find(path: Path, platform: str | None) -> list[tuple[Path, Importer]]:
    if platform:
        importer = get_importer(platform)
        if path.is_dir() and not importer.detect(path):
            return [(p, importer) for p in sorted(path.rglob("*"))
                    if p.is_file() and importer.detect(p)]
        return [(path, importer)]
    found = detect(path)
    if found is not None:
        return [(path, found)]
    if not path.is_dir():
        return []
    out: list[tuple[Path, Importer]] = []
    for child in sorted(path.iterdir()):
        if child.name in SKIP_DIRS or child.name.startswith("."):
            continue
        if child.is_dir():
            out.extend(_find(child, None))
        else:
            importer = detect(child)
            if importer is not None:
                out.append((child, importer))
    return out
