"""Real attachment files for the fixtures, made here: photos with a GPS location in their
EXIF (made once by `photo_jpeg` and kept in tests/media/, so fixtures do not change with the
Pillow version), a PDF with text on each page, and Signal Desktop's on-disk encryption.

The fixture builders (tests/build_whatsapp_fixtures.py, fixtures/signal/build_fixture.py,
fixtures/imessage/build_fixture.py) write these into the bundled exports.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
from pathlib import Path

MEDIA = Path(__file__).resolve().parent / "media"

# a fixed key for the fixtures: 32 bytes for AES, 32 for the MAC (never a real user's key)
SIGNAL_FIXTURE_KEY = base64.b64encode(bytes(range(64))).decode("ascii")


def photo(name: str) -> bytes:
    """A photo kept in tests/media/ (boat, lago, trail, route-map)."""
    return (MEDIA / f"{name}.jpg").read_bytes()


def photo_jpeg(label: str, size: tuple[int, int] = (480, 320),
               gps: tuple[float, float] | None = (51.7995, 10.6158)) -> bytes:
    """A small JPEG photo (a gradient with a label), with the location in its EXIF."""
    from PIL import Image, ImageDraw

    w, h = size
    img = Image.new("RGB", size)
    px = img.load()
    assert px is not None
    for y in range(h):
        for x in range(w):
            px[x, y] = (60 + 120 * x // w, 110 + 100 * y // h, 170)
    ImageDraw.Draw(img).text((12, 12), label, fill=(255, 255, 255))
    exif = Image.Exif()
    exif[0x010F] = "FixtureCam"  # Make
    if gps is not None:
        lat, lon = gps

        def dms(v: float) -> tuple[float, float, float]:
            v = abs(v)
            d = int(v)
            m = int((v - d) * 60)
            return (float(d), float(m), round((v - d - m / 60) * 3600, 2))

        exif[0x8825] = {1: "N" if lat >= 0 else "S", 2: dms(lat),
                        3: "E" if lon >= 0 else "W", 4: dms(lon)}
    out = io.BytesIO()
    img.save(out, "JPEG", quality=80, exif=exif.tobytes())
    return out.getvalue()


def _pdf_string(text: str) -> str:
    return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def pdf_document(pages: list[str]) -> bytes:
    """A valid PDF with one line of text (Helvetica) on each page."""
    objects: list[bytes] = []
    n = len(pages)
    # 1: catalog, 2: page tree, 3: font, then per page: page object, content stream
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(n))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, text in enumerate(pages):
        stream = f"BT /F1 14 Tf 72 720 Td {_pdf_string(text)} Tj ET".encode("latin-1")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                       f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode())
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for off in offsets:
        out.write(f"{off:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def signal_encrypt(plain: bytes, key_b64: str = SIGNAL_FIXTURE_KEY, iv: bytes = b"\x07" * 16) -> bytes:
    """Signal Desktop's on-disk attachment form: IV + AES-256-CBC(PKCS7) + HMAC-SHA256."""
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    keys = base64.b64decode(key_b64)
    padder = padding.PKCS7(128).padder()
    padded = padder.update(plain) + padder.finalize()
    enc = Cipher(algorithms.AES(keys[:32]), modes.CBC(iv)).encryptor()
    body = iv + enc.update(padded) + enc.finalize()
    return body + hmac.new(keys[32:], body, hashlib.sha256).digest()
