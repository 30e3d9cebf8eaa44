"""Seeded mutations of export files, for the importer fuzz test (tests/test_fuzz_importers.py).

Every mutator takes the file's bytes and a `random.Random` and returns new bytes; the same seed
gives the same mutant, so a failure names a seed that reproduces it:

    >>> import random
    >>> truncate(b"abcdef", random.Random(1)) == truncate(b"abcdef", random.Random(1))
    True
"""

from __future__ import annotations

import io
import random
import zipfile
from collections.abc import Callable

Mutator = Callable[[bytes, random.Random], bytes]

SQLITE_HEADER = b"SQLite format 3\x00"
SQLITE_HEADER_SIZE = 100


# ---------------------------------------------------------------------- any bytes

def flip_bytes(data: bytes, rng: random.Random) -> bytes:
    """1-16 random bytes replaced by random values."""
    if not data:
        return bytes([rng.randrange(256)])
    out = bytearray(data)
    for _ in range(rng.randint(1, 16)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def flip_bits(data: bytes, rng: random.Random) -> bytes:
    """1-8 single bits flipped."""
    if not data:
        return data
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def truncate(data: bytes, rng: random.Random) -> bytes:
    """Cut off at a random length (possibly empty)."""
    return data[: rng.randrange(len(data) + 1)]


def insert_garbage(data: bytes, rng: random.Random) -> bytes:
    """1-64 random bytes (NULs, controls, bits of UTF-8) inserted somewhere."""
    at = rng.randrange(len(data) + 1)
    junk = rng.choice([
        bytes(rng.randrange(256) for _ in range(rng.randint(1, 64))),
        b"\x00" * rng.randint(1, 8),
        "\u200e\ufeff\u202e".encode(),
        b"\xff\xfe",
        b"\r",
    ])
    return data[:at] + junk + data[at:]


# ---------------------------------------------------------------------- lines

def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def duplicate_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return b"\n".join(lines)


def remove_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    if len(lines) > 1:
        del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def swap_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def cut_line(data: bytes, rng: random.Random) -> bytes:
    """One line cut short somewhere in its middle (a JSON object, a vCard property...)."""
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
    return b"\n".join(lines)


def splice_token(data: bytes, rng: random.Random) -> bytes:
    """A structural character or hostile value put somewhere: braces, quotes, huge numbers."""
    at = rng.randrange(len(data) + 1)
    token = rng.choice([b"{", b"}", b"[", b"]", b'"', b",", b":", b"null", b"-1", b"1e309",
                        b"99999999999999999999999", b"NaN", b"\\u0000", b"\\ud800", b"BEGIN:VCARD",
                        b"END:VCARD", b"12/31/99, 25:61 - ", b"\n\n", b"=\r\n"])
    return data[:at] + token + data[at:]


LINE_MUTATORS: list[Mutator] = [duplicate_line, remove_line, swap_lines, cut_line, splice_token]
BYTE_MUTATORS: list[Mutator] = [flip_bytes, flip_bits, truncate, insert_garbage]
TEXT_MUTATORS: list[Mutator] = LINE_MUTATORS + BYTE_MUTATORS


# ---------------------------------------------------------------------- SQLite files

def page_size(data: bytes) -> int:
    """The page size in a SQLite header (bytes 16-17; 1 means 65536)."""
    if len(data) < SQLITE_HEADER_SIZE or not data.startswith(SQLITE_HEADER):
        return 4096
    size = int.from_bytes(data[16:18], "big")
    return 65536 if size == 1 else max(size, 512)


def corrupt_page(data: bytes, rng: random.Random) -> bytes:
    """One whole page overwritten: random bytes, zeros, or a copy of another page."""
    size = page_size(data)
    pages = max(1, len(data) // size)
    n = rng.randrange(pages)
    start = n * size + (SQLITE_HEADER_SIZE if n == 0 else 0)  # keep it a SQLite file
    end = min((n + 1) * size, len(data))
    if start >= end:
        return flip_bytes(data, rng)
    how = rng.randrange(3)
    if how == 0:
        fill = bytes(rng.randrange(256) for _ in range(end - start))
    elif how == 1:
        fill = bytes(end - start)
    else:
        m = rng.randrange(pages)
        other = data[m * size : (m + 1) * size]
        fill = (other + bytes(size))[start - n * size : end - n * size]
    return data[:start] + fill + data[end:]


def scribble_in_page(data: bytes, rng: random.Random) -> bytes:
    """A few bytes changed inside one page past the header (cell pointers, record headers)."""
    size = page_size(data)
    pages = max(1, len(data) // size)
    out = bytearray(data)
    n = rng.randrange(pages)
    base = n * size + (SQLITE_HEADER_SIZE if n == 0 else 0)
    for _ in range(rng.randint(1, 12)):
        at = base + rng.randrange(min(size, 64) if rng.random() < 0.5 else size)
        if at < len(out):
            out[at] = rng.randrange(256)
    return bytes(out)


def corrupt_header_field(data: bytes, rng: random.Random) -> bytes:
    """A field of the 100-byte database header set to a random value (page size, page count,
    freelist, schema cookie, text encoding...)."""
    if len(data) < SQLITE_HEADER_SIZE:
        return flip_bytes(data, rng)
    out = bytearray(data)
    at = rng.choice([16, 18, 19, 20, 21, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64, 92, 96])
    for k in range(rng.choice([1, 2, 4])):
        if at + k < SQLITE_HEADER_SIZE:
            out[at + k] = rng.randrange(256)
    return bytes(out)


def truncate_pages(data: bytes, rng: random.Random) -> bytes:
    """The file cut at a page boundary (a copy that stopped early)."""
    size = page_size(data)
    pages = max(1, len(data) // size)
    return data[: size * rng.randint(1, max(1, pages - 1))]


SQLITE_MUTATORS: list[Mutator] = [corrupt_page, corrupt_page, scribble_in_page, scribble_in_page,
                                  corrupt_header_field, truncate_pages, flip_bytes, truncate]


# ---------------------------------------------------------------------- zips

def mutate_zip_member(data: bytes, rng: random.Random) -> bytes:
    """The archive rewritten with one member's content mutated (so its CRC still matches and
    the damage reaches the parser), or a member dropped or duplicated under another name."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            members = [(info.filename, z.read(info)) for info in z.infolist()]
    except Exception:  # noqa: BLE001 - an earlier mutation broke the archive: damage it more
        return flip_bytes(data, rng)
    if not members:
        return data
    i = rng.randrange(len(members))
    name, content = members[i]
    how = rng.randrange(4)
    if how == 0 and len(members) > 1:
        del members[i]
    elif how == 1:
        members.append((name.rsplit(".", 1)[0] + " (2).txt", content))
    else:
        members[i] = (name, rng.choice(TEXT_MUTATORS)(content, rng))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for member_name, member_data in members:
            z.writestr(member_name, member_data)
    return buf.getvalue()


ZIP_MUTATORS: list[Mutator] = [mutate_zip_member, mutate_zip_member, mutate_zip_member,
                               flip_bytes, truncate, insert_garbage]


def mutate(data: bytes, mutators: list[Mutator], rng: random.Random) -> tuple[bytes, str]:
    """1-3 mutations in a row; returns the mutant and what was done, for the failure message."""
    done = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        mutator = rng.choice(mutators)
        data = mutator(data, rng)
        done.append(mutator.__name__)
    return data, "+".join(done)
