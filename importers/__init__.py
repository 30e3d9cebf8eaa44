"""Importers: one module per source format, each yielding normalized records.

`REGISTRY` maps a platform name to its importer; `detect(path)` picks one for a path.
Importers are loaded lazily so a missing optional dependency of one never breaks another.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

from chatmem.errors import FormatError

from .base import Importer

# platform name -> "module:Class". Order matters for detection: the most specific first.
REGISTRY: dict[str, str] = {
    "imessage": "chatmem.importers.imessage:IMessageImporter",
    "signal": "chatmem.importers.signal:SignalImporter",
    "whatsapp": "chatmem.importers.whatsapp:WhatsAppImporter",
    "contacts": "chatmem.importers.contacts:ContactsImporter",
    "jsonl": "chatmem.importers.jsonl:JsonlImporter",
}


def get_importer(platform: str) -> Importer:
    """The importer registered for `platform`; FormatError naming the choices otherwise."""
    target = REGISTRY.get(platform)
    if target is None:
        raise FormatError(f"unknown platform {platform!r}; choose one of: {', '.join(REGISTRY)}")
    module_name, _, cls_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name == module_name:
            raise FormatError(f"the {platform} importer is not available in this version") from e
        raise
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise FormatError(f"the {platform} importer is not available in this version")
    return cls()


def available() -> list[str]:
    """Platforms whose importer module exists in this installation."""
    names = []
    for platform, target in REGISTRY.items():
        if importlib.util.find_spec(target.partition(":")[0]) is not None:
            names.append(platform)
    return names


def detect(path: Path) -> Importer | None:
    """The importer that recognises `path`, or None. Detection never raises: a file an
    importer cannot even look at is simply not recognised by it."""
    for platform in available():
        try:
            importer = get_importer(platform)
            if importer.detect(path):
                return importer
        except (FormatError, OSError, ValueError, ImportError):
            continue
    return None
