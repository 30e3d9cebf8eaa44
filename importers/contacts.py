"""Contacts: vCard files (.vcf from iPhone, Android, Google Contacts; vCard 2.1, 3.0, 4.0)
and the macOS AddressBook database (`AddressBook-v22.abcddb`).

A contact gives a person's name and the handles that reach them; the store uses them to show
names instead of numbers and to join one person's chats across platforms.

    >>> cards = list(parse_vcards("BEGIN:VCARD\\nVERSION:3.0\\nFN:Anna Berg\\n"
    ...     "TEL;TYPE=CELL:+1 555 010 0001\\nEMAIL:anna@example.com\\nEND:VCARD\\n"))
    >>> cards[0].name, cards[0].phones, cards[0].emails
    ('Anna Berg', ['+1 555 010 0001'], ['anna@example.com'])
"""

from __future__ import annotations

import quopri
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from chatmem.errors import FormatError
from chatmem.records import Contact, ImportOptions, Problem, Record

VCARD_SUFFIXES = (".vcf", ".vcard")
ADDRESSBOOK_SUFFIX = ".abcddb"
_PARAM_SPLIT = re.compile(r";(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)")


def _unfold(text: str) -> list[tuple[int, str]]:
    """Logical lines with their first physical line number. Folded lines (RFC 6350: CRLF +
    space/tab) are joined; so are vCard 2.1 quoted-printable soft breaks (a trailing '=')."""
    out: list[tuple[int, str]] = []
    qp_open = False
    for n, line in enumerate(text.splitlines(), 1):
        if out and line[:1] in (" ", "\t") and not qp_open:
            out[-1] = (out[-1][0], out[-1][1] + line[1:])
            continue
        if out and qp_open:
            out[-1] = (out[-1][0], out[-1][1][:-1] + line)
        else:
            out.append((n, line))
        last = out[-1][1]
        qp_open = "QUOTED-PRINTABLE" in last.split(":", 1)[0].upper() and last.endswith("=")
    return out


def _decode_value(params: list[str], value: str) -> str:
    upper = [p.upper() for p in params]
    charset = "utf-8"
    for p in upper:
        if p.startswith("CHARSET="):
            charset = p.split("=", 1)[1].strip('"').lower()
    if "ENCODING=QUOTED-PRINTABLE" in upper or "QUOTED-PRINTABLE" in upper:
        raw = quopri.decodestring(value.encode("latin-1", "replace"))
        try:
            return raw.decode(charset, "replace")
        except (LookupError, ValueError):  # an unknown or mangled CHARSET= ("UTF-\x00 8")
            return raw.decode("utf-8", "replace")
    # vCard 3.0/4.0 escapes
    return value.replace("\\n", "\n").replace("\\N", "\n").replace("\\,", ",").replace("\\;", ";").replace("\\\\", "\\")


def _structured_name(value: str) -> str:
    """N:Family;Given;Additional;Prefix;Suffix -> 'Given Additional Family'."""
    parts = [p.strip() for p in re.split(r"(?<!\\);", value)] + [""] * 5
    family, given, additional = parts[0], parts[1], parts[2]
    return " ".join(p for p in (given, additional, family) if p)


def parse_vcards(text: str, where: str = "contacts.vcf") -> Iterator[Contact | Problem]:
    card: dict | None = None
    start = 0
    for lineno, line in _unfold(text):
        if not line.strip():
            continue
        key, sep, value = line.partition(":")
        if not sep:
            if card is not None:
                yield Problem(where, lineno, "a vCard line without ':'", line)
            continue
        name_params = _PARAM_SPLIT.split(key)
        prop = name_params[0].split(".")[-1].upper()  # item1.TEL -> TEL
        params = name_params[1:]
        if prop == "BEGIN" and value.strip().upper() == "VCARD":
            card, start = {"fn": "", "n": "", "org": "", "tel": [], "email": [], "lines": []}, lineno
        elif card is None:
            yield Problem(where, lineno, "text outside BEGIN:VCARD ... END:VCARD", line)
            continue
        if card is None:
            continue
        card["lines"].append(line)
        decoded = _decode_value(params, value)
        if prop == "FN":
            card["fn"] = decoded.strip()
        elif prop == "N":
            card["n"] = _structured_name(decoded)
        elif prop == "ORG":
            card["org"] = decoded.split(";")[0].strip()
        elif prop == "TEL":
            tel = decoded.strip()
            if tel.lower().startswith("tel:"):
                tel = tel[4:]
            if tel:
                card["tel"].append(tel)
        elif prop == "EMAIL":
            if decoded.strip():
                card["email"].append(decoded.strip())
        elif prop == "END" and value.strip().upper() == "VCARD":
            name = card["fn"] or card["n"] or card["org"]
            if name and (card["tel"] or card["email"]):
                yield Contact(name=name, phones=card["tel"], emails=card["email"],
                              raw="\n".join(card["lines"]))
            elif not name:
                yield Problem(where, start, "a contact without a name", "\n".join(card["lines"]))
            card = None
    if card is not None:
        yield Problem(where, start, "a vCard without END:VCARD (truncated file?)", "\n".join(card["lines"]))


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def read_addressbook(path: Path) -> Iterator[Contact]:
    """macOS Contacts database: ZABCDRECORD + ZABCDPHONENUMBER + ZABCDEMAILADDRESS."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        people = conn.execute(
            "SELECT Z_PK, ZFIRSTNAME, ZLASTNAME, ZORGANIZATION FROM ZABCDRECORD").fetchall()
        phones = conn.execute("SELECT ZOWNER, ZFULLNUMBER FROM ZABCDPHONENUMBER").fetchall()
        emails = conn.execute("SELECT ZOWNER, ZADDRESS FROM ZABCDEMAILADDRESS").fetchall()
    except sqlite3.Error as e:
        raise FormatError(f"{path}: not a readable macOS AddressBook database ({e})") from e
    by_owner: dict[int, tuple[list[str], list[str]]] = {}
    for owner, number in phones:
        if number:
            by_owner.setdefault(owner, ([], []))[0].append(number)
    for owner, address in emails:
        if address:
            by_owner.setdefault(owner, ([], []))[1].append(address)
    for pk, first, last, org in people:
        name = " ".join(p for p in (first, last) if p) or (org or "")
        tels, mails = by_owner.get(pk, ([], []))
        if name and (tels or mails):
            yield Contact(name=name, phones=tels, emails=mails,
                          raw=f"ZABCDRECORD {pk}: {name}; phones {tels}; e-mails {mails}")
    conn.close()


class ContactsImporter:
    platform = "contacts"

    def detect(self, path: Path) -> bool:
        if not path.is_file():
            return False
        if path.suffix.lower() in VCARD_SUFFIXES:
            try:
                with path.open("rb") as f:
                    return b"BEGIN:VCARD" in f.read(4096).upper()
            except OSError:
                return False
        return path.suffix.lower() == ADDRESSBOOK_SUFFIX

    def read(self, path: Path, options: ImportOptions) -> Iterator[Record]:
        if path.suffix.lower() == ADDRESSBOOK_SUFFIX:
            yield from read_addressbook(path)
            return
        try:
            text = _read_text(path)
        except OSError as e:
            raise FormatError(f"{path}: cannot read it: {e.strerror}") from e
        if "BEGIN:VCARD" not in text.upper():
            raise FormatError(f"{path} line 1: not a vCard file (no BEGIN:VCARD)")
        yield from parse_vcards(text, str(path))
