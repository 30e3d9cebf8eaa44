"""Edits and unsends (macOS 13+ / iOS 16+) from `message.message_summary_info`.

The column is a binary plist. The keys that matter here:

- `otr`: the message's parts, {"0": {"lo": start, "le": length}, ...}
- `ec`: edit history per part index, {"0": [{"d": seconds since 2001, "t": typedstream}, ...]},
  oldest first; the last entry is the part's current text
- `rp`: indexes of the parts that were unsent (retracted)

    >>> info = parse_summary_info(plistlib.dumps({"otr": {"0": {}}, "rp": [0]}, fmt=plistlib.FMT_BINARY))
    >>> info.fully_unsent, info.unsent_parts
    (True, [0])
"""

from __future__ import annotations

import plistlib
from dataclasses import dataclass, field
from datetime import datetime

from .body import OBJECT_REPLACEMENT, decode_attributed_body
from .dates import apple_time
from .typedstream import TypedStreamError

KEY_PARTS = "otr"
KEY_EDITS = "ec"
KEY_UNSENT = "rp"


@dataclass
class PartVersion:
    part: int
    text: str
    timestamp: datetime | None


@dataclass
class SummaryInfo:
    """What message_summary_info says about edits and unsends."""

    versions: list[PartVersion] = field(default_factory=list)  # every version, oldest first
    edited_parts: list[int] = field(default_factory=list)
    unsent_parts: list[int] = field(default_factory=list)
    part_count: int = 0
    fully_unsent: bool = False
    problems: list[str] = field(default_factory=list)  # versions that could not be decoded

    @property
    def edited(self) -> bool:
        return bool(self.edited_parts)

    def earlier_versions(self) -> list[PartVersion]:
        """All versions except each edited part's current (last) one, oldest first."""
        last = {}
        for v in self.versions:
            last[v.part] = v
        current = {id(v) for v in last.values()}
        earlier = [v for v in self.versions if id(v) not in current]
        return sorted(earlier, key=lambda v: (v.timestamp is None, v.timestamp or 0, v.part))


def _int_keys(mapping: object) -> list[int]:
    if not isinstance(mapping, dict):
        return []
    out = []
    for k in mapping:
        try:
            out.append(int(k))
        except (TypeError, ValueError):
            continue
    return sorted(out)


def version_text(blob: object) -> str:
    """One edit-history entry's `t` (a typedstream, or plain text in some writers) → text."""
    if isinstance(blob, str):
        return blob
    if not isinstance(blob, (bytes, bytearray)):
        return ""
    return decode_attributed_body(bytes(blob)).text.replace(OBJECT_REPLACEMENT, "")


def parse_summary_info(blob: bytes | None) -> SummaryInfo:
    """message_summary_info bytes → SummaryInfo; an unreadable plist gives an empty one with
    a problem noted (the message itself stays importable)."""
    info = SummaryInfo()
    if not blob:
        return info
    try:
        plist = plistlib.loads(bytes(blob))
    except Exception as e:  # plistlib raises several types for bad input
        info.problems.append(f"message_summary_info is not a readable plist ({e})")
        return info
    if not isinstance(plist, dict):
        return info
    parts = _int_keys(plist.get(KEY_PARTS))
    info.part_count = len(parts)
    edits = plist.get(KEY_EDITS)
    if not isinstance(edits, dict):
        edits = {}
    for part in _int_keys(edits):
        entries = edits.get(str(part)) or []
        if not isinstance(entries, list) or not entries:
            continue
        info.edited_parts.append(part)
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            try:
                text = version_text(entry.get("t"))
            except TypedStreamError as e:
                info.problems.append(f"edit history of part {part}: {e}")
                text = ""
            when = entry.get("d")
            info.versions.append(
                PartVersion(
                    part, text, apple_time(when) if isinstance(when, (int, float)) else None
                )
            )
    unsent = plist.get(KEY_UNSENT)
    if isinstance(unsent, list):
        info.unsent_parts = sorted({int(p) for p in unsent if isinstance(p, int)})
    if info.unsent_parts:
        info.fully_unsent = not parts or set(parts) <= set(info.unsent_parts)
    return info
