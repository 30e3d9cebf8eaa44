"""Signal: one importer, several readers, one per export format.

`READERS` is asked in order; the first that recognises the path reads it: Signal Desktop's
database, Signal's own export from the phone (main.jsonl), signal-export output. A new format is
one more module with a reader class and one more entry here; the other readers and the store do
not change (the store folds the same conversation read by several readers into one chat).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from chatmem.errors import FormatError
from chatmem.records import ImportOptions, Record

from .backup import BackupReader
from .common import PLATFORM, Reader
from .desktop import DesktopReader
from .sigexport import SigexportReader

READERS: list[type[Reader]] = [DesktopReader, BackupReader, SigexportReader]


class SignalImporter:
    platform = PLATFORM
    # Signal Desktop's database read as it is on disk is read whole (sqlite_pages), its content
    # digest on the way
    reads_whole = True

    def __init__(self) -> None:
        self.readers: list[Reader] = [cls() for cls in READERS]

    def reader_for(self, path: Path) -> Reader | None:
        """The first reader that recognises `path`, or None."""
        return next((r for r in self.readers if r.detect(path)), None)

    def detect(self, path: Path) -> bool:
        return self.reader_for(Path(path)) is not None

    def unrecognised(self, path: Path) -> str | None:
        """Why a path named like a Signal export is not one (one line naming the file), or None."""
        return next((why for r in self.readers if (why := getattr(r, "unrecognised", lambda _p: None)(path))),
                    None)

    def read(self, path: Path, options: ImportOptions) -> Iterator[Record]:
        path = Path(path)
        reader = self.reader_for(path)
        if reader is None:
            why = self.unrecognised(path)
            if why:
                raise FormatError(why)
            # Asked for explicitly (--platform signal) but not recognised: let the reader whose
            # shape it is closest to say what is wrong, so the message is specific.
            if path.is_dir():
                raise FormatError(
                    f"{path}: not a Signal export (expected the Signal Desktop folder with "
                    "config.json and sql/db.sqlite, a Signal Desktop database, Signal's own export "
                    "with main.jsonl, or signal-export output with data.json and chat.md per chat)"
                )
            reader = self.readers[0]
        return reader.read(path, options)


__all__ = ["READERS", "SignalImporter"]
