"""Importers: one module per source format, each yielding normalized records.

`REGISTRY` maps a platform name to its importer; `detect(path)` picks one for a path.
Importers are loaded lazily so a missing optional dependency of one never breaks another.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
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


class Sources(list[tuple[Path, Importer]]):
    """What `find_sources` found: (path, importer) pairs, plus `skipped_links`, the symbolic
    links met inside a folder and not followed (the import report lists them)."""

    def __init__(self, pairs: Iterable[tuple[Path, Importer]] = (), skipped_links: Iterable[Path] = (),
                 skipped_files: Iterable[Path] = ()):
        super().__init__(pairs)
        self.skipped_links: list[Path] = list(skipped_links)
        # files in a folder that no importer recognised (the report lists them)
        self.skipped_files: list[Path] = list(skipped_files)


def find_sources(path: Path, platform: str | None = None) -> Sources:
    """The exports at `path` with the importer for each: the path itself when an importer
    recognises it (or `platform` names one), else every recognised export in the folder.
    FormatError when the path is missing or holds nothing recognised.

    A folder is walked without following symbolic links (so never out of it, nor around in a
    circle); a link is imported only when it is the path named here. Links met are listed in
    `skipped_links`."""
    path = Path(path).expanduser()
    if not path.exists():
        raise FormatError(f"{path}: no such file or folder"
                          + (" (a symbolic link to something missing)" if path.is_symlink() else ""))
    skipped: list[Path] = []
    unknown: list[Path] = []
    sources = _find(path, platform, skipped, unknown)
    if not sources:
        named = _named_like_an_export(path, platform)
        if named:
            raise FormatError(named)
        links = (f"; {len(skipped)} symbolic link(s) inside were not followed (name one on the "
                 "command line to import it)") if skipped else ""
        raise FormatError(f"{path}: no recognised chat export here "
                          f"(use --platform to say what it is){links}")
    return Sources(sources, skipped, unknown)


def _named_like_an_export(path: Path, platform: str | None) -> str | None:
    """When `path` is named as one format's export (a Signal export's main.jsonl) but its
    content is not that: the importer's one line saying so, naming the file."""
    for name in ([platform] if platform else REGISTRY):
        try:
            why = getattr(get_importer(name), "unrecognised", None)
            found = why(path) if why is not None else None
        except (FormatError, OSError, ValueError, ImportError):
            continue
        if found:
            return str(found)
    return None


def folder_entries(folder: Path, skipped: list[Path]) -> list[Path]:
    """The entries of `folder` worth looking at, links set aside in `skipped`, in the order
    `find_sources` looks at them."""
    out = []
    for child in sorted(folder.iterdir()):
        if child.name in SKIP_DIRS or child.name.startswith("."):
            continue
        if child.is_symlink():
            skipped.append(child)
            continue
        out.append(child)
    return out


def _found_by(importer: Importer, folder: Path, skipped: list[Path]) -> list[tuple[Path, Importer]]:
    """What one importer recognises below `folder`, as a search without a platform finds it:
    a folder it recognises whole (a Telegram chat's pages, a Signal export) is one source, not
    its files one by one; links not followed (set aside in `skipped`)."""
    out: list[tuple[Path, Importer]] = []
    for child in folder_entries(folder, skipped):
        if importer.detect(child):
            out.append((child, importer))
        elif child.is_dir():
            out.extend(_found_by(importer, child, skipped))
    return out


def _find(path: Path, platform: str | None, skipped: list[Path],
          unknown: list[Path] | None = None) -> list[tuple[Path, Importer]]:
    if platform:
        importer = get_importer(platform)
        if path.is_dir() and not importer.detect(path):
            return _found_by(importer, path, skipped)
        return [(path, importer)]
    found = detect(path)
    if found is not None:
        return [(path, found)]
    if not path.is_dir():
        return []
    out: list[tuple[Path, Importer]] = []
    for child in folder_entries(path, skipped):
        if child.is_dir():
            out.extend(_find(child, None, skipped, unknown))
        else:
            recognised = detect(child)
            if recognised is not None:
                out.append((child, recognised))
            elif unknown is not None:
                unknown.append(child)
    return out
