"""The digest re-imports compare the bytes they read before by (issue 17).

XXH3-128 (the `xxhash` package): not cryptographic, and it need not be (it tells the bytes an
import read before from others; nobody forges exports against it), at a tenth of BLAKE2b's or
SHA-256's CPU. An import state writes it marked with its kind, "xxh3:<hex>", so that a digest an
earlier version wrote (unmarked BLAKE2b) is told apart and compared as such.
"""

from __future__ import annotations

from typing import Any

KIND = "xxh3"  # the mark before a digest's hex digits, and the state's "digest" kind


def hasher() -> Any:
    """A running XXH3-128 hash, to feed with `update`."""
    import xxhash

    return xxhash.xxh3_128()


def marked(h: Any) -> str:
    """A running hash as an import state writes it: "xxh3:<hex>"."""
    return f"{KIND}:{h.hexdigest()}"


def digest(data: bytes) -> str:
    """`data`'s marked digest."""
    h = hasher()
    h.update(data)
    return marked(h)
