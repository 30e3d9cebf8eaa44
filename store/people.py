"""People and their handles: phone numbers, e-mails and names that reach one person."""

from __future__ import annotations

import re

import phonenumbers
from sqlalchemy import select
from sqlalchemy.engine import Connection

from chatmem.importers import base as rec

from . import models as m

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def normalize_handle(value: str, region: str | None = None) -> tuple[str, str]:
    """(kind, normalized value) for a phone number, e-mail or name.

    >>> normalize_handle("+1 (555) 010-0001")
    ('phone', '+15550100001')
    >>> normalize_handle("Ben@Example.com")
    ('email', 'ben@example.com')
    >>> normalize_handle("0151 2345678", "DE")
    ('phone', '+491512345678')
    """
    v = value.strip()
    if _EMAIL.match(v):
        return "email", v.lower()
    digits = re.sub(r"[^\d+]", "", v)
    if len(re.sub(r"\D", "", digits)) >= 6 and re.fullmatch(r"[\d\s()+\-./]+", v.lstrip("~ ")):
        try:
            num = phonenumbers.parse(digits, region if not digits.startswith("+") else None)
            if phonenumbers.is_possible_number(num):
                return "phone", phonenumbers.format_number(num, phonenumbers.PhoneNumberFormat.E164)
        except phonenumbers.NumberParseException:
            pass
        return "phone", digits
    return "name", " ".join(v.split()).casefold()


def add_contact(conn: Connection, contact: rec.Contact, region: str | None = None) -> str:
    """Store a contact as a person with its handles; returns the person id."""
    people, handles = m.Person.__table__, m.Handle.__table__
    values = [normalize_handle(p, region) for p in contact.phones] + \
             [normalize_handle(e, region) for e in contact.emails]
    person_id = None
    for _kind, value in values:
        row = conn.execute(select(handles.c.person_id).where(
            handles.c.platform == "contact", handles.c.value == value)).first()
        if row and row.person_id:
            person_id = row.person_id
            break
    if person_id is None:
        person_id = rec.stable_id("p", "contact", contact.name, *sorted(v for _, v in values))
        if conn.execute(select(people.c.id).where(people.c.id == person_id)).first() is None:
            conn.execute(people.insert().values(id=person_id, name=contact.name, manual=False))
    for _kind, value in values:
        exists = conn.execute(select(handles.c.id).where(
            handles.c.platform == "contact", handles.c.value == value)).first()
        if exists is None:
            conn.execute(handles.insert().values(platform="contact", value=value,
                                                 display=contact.name, person_id=person_id))
    return person_id
