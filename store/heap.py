"""The C heap under a bulk index build: large blocks mapped on their own, free pages handed back.

glibc's malloc serves a block of 128 KB or more with a mapping of its own, returned to the system
when freed, but raises that threshold to the size of each such block freed (up to 32 MB): after
the first few MB-sized arrays and buffers of an index build are freed, the next ones come from
the heap, between small objects that outlive them, and the heap keeps their pages when they are
freed. A million-message build rose ~6 MB a segment that way (benchmarks/NOTES.md, flatidx).
`map_large_blocks` fixes the threshold at its default, `release_memory` hands the heap's free
pages back (malloc_trim; a millisecond). Both do nothing where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
import sys
from functools import cache
from typing import Any

M_MMAP_THRESHOLD = -3  # mallopt's parameter (malloc.h)
MMAP_THRESHOLD = 128 * 1024  # glibc's default: setting it also stops it moving


@cache
def _glibc() -> Any:
    """The process's C library when it is glibc, else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)  # the symbols the process already has: its C library's
        if not hasattr(libc, "gnu_get_libc_version"):  # musl and others: not glibc
            return None
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
    except (OSError, AttributeError):
        return None
    return libc


@cache
def map_large_blocks() -> None:
    """Blocks of MMAP_THRESHOLD bytes or more mapped on their own from now on, in this process
    (once: the setting stays)."""
    libc = _glibc()
    if libc is not None:
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def release_memory() -> None:
    """The heap's free pages back to the system."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
