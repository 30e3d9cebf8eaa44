"""What the Signal readers share: the platform name, time conversion, the reader interface."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Protocol

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


def splice_mentions(text: str, mentions: list[tuple[int, int, str]], extra: dict) -> str:
    """Put '@Name' where Signal left U+FFFC; (start, length) count UTF-16 code units, as in JS.
    The names go to `extra["mentions"]` in text order.

    >>> splice_mentions("hi \ufffc!", [(3, 1, "Ben")], {})
    'hi @Ben!'
    """
    units = text.encode("utf-16-le")
    names = []
    for start, length, name in sorted(mentions, reverse=True):
        if not isinstance(start, int) or not isinstance(length, int) or start < 0 or length < 0:
            continue
        names.append(name)
        units = units[: 2 * start] + f"@{name}".encode("utf-16-le") + units[2 * (start + length):]
    if names:
        extra["mentions"] = names[::-1]
    return units.decode("utf-16-le", errors="replace")


def json_lines(lines: Iterable[str]) -> Iterator[tuple[int, str, Any, str | None]]:
    """(line number, text, parsed object, or None and why not) per non-empty JSON Lines line.

    >>> list(json_lines(['{"a": 1}\\n', "\\n", "{oops"]))[0], list(json_lines(["{oops"]))[0][3][:8]
    ((1, '{"a": 1}', {'a': 1}, None), 'not JSON')
    """
    for number, line in enumerate(lines, 1):
        text = line.rstrip("\r\n")
        if not text.strip():
            continue
        try:
            yield number, text, json.loads(text), None
        except ValueError as e:
            yield number, text, None, f"not JSON ({e})"


class Reader(Protocol):
    """One Signal export format. `SignalImporter` asks each reader in turn."""

    name: str  # shown in reports, e.g. "signal-desktop"

    def detect(self, path: Path) -> bool:
        """Cheap; never raises."""
        ...

    def read(self, path: Path, options: ImportOptions) -> Iterator[Record]: ...
