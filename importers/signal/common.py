"""What the Signal readers share: the platform name, time conversion, the reader interface."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Protocol

from chatmem.records import ImportOptions, Record

PLATFORM = "signal"

UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

# Sender of service messages that have no actor (safety-number changes, session refreshes).
SYSTEM_SENDER = "Signal"


def from_ms(ms: int | float) -> datetime:
    """Signal's milliseconds since 1970 (UTC) → an aware UTC datetime, milliseconds kept.

    >>> from_ms(1685967643288).isoformat()
    '2023-06-05T12:20:43.288000+00:00'
    """
    # timedelta arithmetic is exact; datetime.fromtimestamp(ms / 1000) can be off by 1 µs.
    return UNIX_EPOCH + timedelta(milliseconds=int(ms))


class Reader(Protocol):
    """One Signal export format. `SignalImporter` asks each reader in turn."""

    name: str  # shown in reports, e.g. "signal-desktop"

    def detect(self, path: Path) -> bool:
        """Cheap; never raises."""
        ...

    def read(self, path: Path, options: ImportOptions) -> Iterator[Record]: ...
