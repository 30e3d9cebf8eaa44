"""A set of the ids `chatmem.records.stable_id` makes, in 7 bytes an id (issue 17).

An importer that must know which messages it gave already (a quote of an earlier message
becomes a reply link only when that message is there) held them in a `set[str]`: about 100
bytes an id with the string, ~100 MB at a million messages, the one part of an import that grew
with the archive. An id's 16 hex digits are its 64 bits: the first 12 choose one of 4,096
buckets, the last 7 bytes are appended to it. The answers are exact, not a hash's: a bucket and
the 7 bytes in it give back all 64 bits, so two ids share an entry only when they are the same
id, and a match found across two entries of a bucket (not at an entry's start) is skipped.
"""

from __future__ import annotations

BUCKETS = 1 << 12  # a lookup scans one bucket: ~250 entries at a million ids
WIDTH = 7  # the id's bytes after the first, which its bucket already tells


class IdSet:
    """Stable ids of one kind (`m_` + 16 hex digits): `add` and `in`, nothing removed.

    >>> ids = IdSet(); ids.add("m_0123456789abcdef")
    >>> "m_0123456789abcdef" in ids, "m_0123456789abcdee" in ids
    (True, False)
    """

    def __init__(self) -> None:
        self.buckets = [bytearray() for _ in range(BUCKETS)]

    def add(self, key: str) -> None:
        raw = bytes.fromhex(key[-16:])
        self.buckets[raw[0] << 4 | raw[1] >> 4] += raw[1:]  # an id added twice costs 7 bytes

    def __contains__(self, key: str) -> bool:
        raw = bytes.fromhex(key[-16:])
        bucket, rest = self.buckets[raw[0] << 4 | raw[1] >> 4], raw[1:]
        at = bucket.find(rest)
        while at > 0 and at % WIDTH:  # the tail of one entry and the head of the next
            at = bucket.find(rest, at + 1)
        return at >= 0
