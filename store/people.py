"""People: one human behind the phone numbers, e-mails, service ids and names that chats show.

Every sender becomes a person. A handle (kind + normalized value) belongs to exactly one
person, on every platform: the phone number an iMessage comes from and the one a Signal
profile carries reach the same person; a WhatsApp export names people as the phone showed
them, so names are handles too. Contacts (vCard, AddressBook) give people their names and join
their handles. `merge` and `split` fix what matching got wrong; they are marked manual and
automatic matching never undoes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import and_, func, or_, select, true
from sqlalchemy.engine import Connection

from chatmem import records as rec
from chatmem.errors import ArgumentError, NotFound

from . import models as m

OWNER_ID = "me"
# what importers write as the sender of the app's own notices ("Signal": safety number
# changed): written by no one, so they make no person
APP_SENDERS = frozenset({"signal", "whatsapp", "imessage", "messages", "telegram", "system", ""})
AGENT = "agent"  # the platform of logged agent sessions
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_PHONEISH = re.compile(r"^[~\s]*\+?[\d\s()\-./]{6,}$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)


def normalize_handle(value: str, region: str | None = None) -> tuple[str, str] | None:
    """(kind, normalized value) for a phone number, e-mail, service id or name; None if empty.

    >>> normalize_handle("+1 (555) 010-0001")
    ('phone', '+15550100001')
    >>> normalize_handle("Ben@Example.com")
    ('email', 'ben@example.com')
    >>> normalize_handle("0151 2345678", "DE")
    ('phone', '+491512345678')
    >>> normalize_handle("~ Anna  Berg")
    ('name', 'anna berg')
    """
    v = (value or "").strip().lstrip("~").strip()
    v = v.replace("\u202a", "").replace("\u202c", "").replace("\u200e", "").replace("\u00a0", " ")
    if not v:
        return None
    if v.lower().startswith(("mailto:", "tel:")):
        v = v.split(":", 1)[1]
    if _EMAIL.match(v):
        return "email", v.lower()
    if _UUID.match(v):
        return "service", v.lower()
    if _PHONEISH.match(v):
        digits = re.sub(r"[^\d+]", "", v)
        import phonenumbers  # here: an import that meets no phone number never loads it (~0.02 s)

        try:
            num = phonenumbers.parse(digits, None if digits.startswith("+") else (region or "US"))
            if phonenumbers.is_possible_number(num):
                return "phone", phonenumbers.format_number(num, phonenumbers.PhoneNumberFormat.E164)
        except phonenumbers.NumberParseException:
            pass
        return "phone", digits
    return "name", " ".join(v.split()).casefold()


class People:
    """Resolves senders to people inside one open transaction, with an in-memory cache."""

    def __init__(self, conn: Connection, seq: int, region: str | None = None,
                 owner_names: Iterable[str] = (), owner_handles: Iterable[str] = (),
                 known: People | None = None):
        """`known`: the People of a transaction committed just before this one, with nothing
        written since (the handles and people as this one would load them)."""
        self.conn = conn
        self.seq = seq  # the ingest sequence number rows changed here are stamped with
        self.region = region
        self.merged: dict[str, str] = {}  # person id -> the person it was merged into
        ht, pt = m.Handle.__table__, m.Person.__table__
        self.handles: dict[tuple[str, str], str]  # (kind, value) -> person id
        self.people: dict[str, tuple[str, bool]]  # person id -> (name, set by hand)
        if known is not None:
            self.handles, self.people = known.handles, known.people
        else:
            self.handles = {(r.kind, r.value): r.person_id
                            for r in conn.execute(select(ht.c.kind, ht.c.value, ht.c.person_id))}
            self.people = {r.id: (r.name, r.manual) for r in conn.execute(select(pt.c.id, pt.c.name, pt.c.manual))}
        if OWNER_ID not in self.people:
            conn.execute(pt.insert().values(id=OWNER_ID, name="me", manual=True, from_contact=False))
            self.people[OWNER_ID] = ("me", True)
        for h in [*owner_names, *owner_handles]:
            key = normalize_handle(h, region)
            if key and key not in self.handles:
                self._add_handle(key, h, OWNER_ID, "contact")

    # ------------------------------------------------------------------ basics
    def _add_handle(self, key: tuple[str, str], display: str, person_id: str, source: str) -> None:
        self.conn.execute(m.Handle.__table__.insert().values(
            kind=key[0], value=key[1], display=display, person_id=person_id, source=source))
        self.handles[key] = person_id

    def _new_person(self, person_id: str, name: str, from_contact: bool = False, manual: bool = False) -> str:
        if person_id not in self.people:
            self.conn.execute(m.Person.__table__.insert().values(
                id=person_id, name=name, manual=manual, from_contact=from_contact))
            self.people[person_id] = (name, manual)
        return person_id

    def candidates(self, sender: str | None, handle: str | None) -> list[tuple[tuple[str, str], str]]:
        out: list[tuple[tuple[str, str], str]] = []
        for raw in (handle, sender):
            if raw:
                key = normalize_handle(raw, self.region)
                if key and all(key != k for k, _ in out):
                    out.append((key, raw))
        return out

    # ------------------------------------------------------------------ resolution
    def resolve(self, sender: str | None, handle: str | None, create: bool = True) -> str | None:
        """The person behind a sender (and its handle), creating one if nobody matches."""
        if sender == rec.OWNER:
            return OWNER_ID
        cands = self.candidates(sender, handle)
        if not cands:
            return None
        found = list(dict.fromkeys(self.handles[k] for k, _ in cands if k in self.handles))
        person = found[0] if found else None
        if len(found) > 1:
            # a number known only as a number (say from iMessage) that now arrives with a
            # name (a Signal profile) joins the person of that name
            unnamed = [p for p in found if p != OWNER_ID and not self.people.get(p, ("", True))[1]
                       and (normalize_handle(self.people[p][0], self.region) or ("name",))[0] != "name"]
            named = [p for p in found if p not in unnamed]
            if unnamed and named:
                for p in unnamed:
                    self.merge_into(named[0], p)
                person = named[0]
        if person is None:
            if not create:
                return None
            (kind, value), _ = cands[0]
            person = self._new_person(rec.stable_id("p", kind, value), sender or handle or value)
        for key, raw in cands:
            if key not in self.handles:
                self._add_handle(key, raw, person, "seen")
        return person

    def add_contact(self, contact: rec.Contact) -> str:
        """A contact names a person and joins their handles (merging automatic people)."""
        keys: list[tuple[tuple[str, str], str]] = []  # (normalized handle, as written)
        for raw in [*contact.phones, *contact.emails, contact.name]:
            found_key = normalize_handle(raw, self.region)
            if found_key and found_key not in [k for k, _ in keys]:
                keys.append((found_key, raw))
        found = [self.handles[k] for k, _ in keys if k in self.handles]
        found = list(dict.fromkeys(p for p in found if p != OWNER_ID))
        if any(self.handles.get(k) == OWNER_ID for k, _ in keys if k[0] != "name"):
            return OWNER_ID  # the owner's own card
        manual = [p for p in found if self.people.get(p, ("", False))[1]]
        target = manual[0] if manual else (found[0] if found else None)
        if target is None:
            (kind, value), _ = keys[0]
            target = self._new_person(rec.stable_id("p", "contact", kind, value), contact.name, from_contact=True)
        for other in found:
            if other != target and not self.people.get(other, ("", False))[1]:
                self.merge_into(target, other)
        if not self.people[target][1]:
            self.conn.execute(m.Person.__table__.update().where(m.Person.__table__.c.id == target)
                              .values(name=contact.name, from_contact=True))
            if self.people[target][0] != contact.name:
                self.people[target] = (contact.name, False)
                self.touch_person(target)
        for key, raw in keys:
            if key not in self.handles:
                self._add_handle(key, raw, target, "contact")
        return target

    def restore(self, person: rec.Person) -> str:
        """A person from an export: the same id, name and handles (manual fixes included).
        Handles the store already gives to someone else follow the export only when the
        export's person was fixed by hand."""
        pt, ht = m.Person.__table__, m.Handle.__table__
        if person.id in self.people:
            self.conn.execute(pt.update().where(pt.c.id == person.id).values(
                name=person.name, manual=person.manual, from_contact=person.from_contact))
        else:
            self.conn.execute(pt.insert().values(id=person.id, name=person.name, manual=person.manual,
                                                 from_contact=person.from_contact))
        self.people[person.id] = (person.name, person.manual)
        for kind, value, source in person.handles:
            key = (kind, value)
            current = self.handles.get(key)
            if current is None:
                self._add_handle(key, value, person.id, source)
            elif current != person.id and person.manual:
                self.conn.execute(ht.update().where(ht.c.kind == kind, ht.c.value == value)
                                  .values(person_id=person.id, source=source))
                self.handles[key] = person.id
        return person.id

    def merge_into(self, target: str, other: str, manual: bool = False) -> None:
        """Move every handle, message and chat of `other` to `target`, and drop `other`."""
        ht, pt, mt, ct = m.Handle.__table__, m.Person.__table__, m.Message.__table__, m.Chat.__table__
        self.conn.execute(ht.update().where(ht.c.person_id == other)
                          .values(person_id=target, **({"source": "manual"} if manual else {})))
        chats = select(ct.c.id).where(ct.c.person_id == other)
        self.conn.execute(mt.update().where(or_(mt.c.person_id == other, mt.c.chat_id.in_(chats)))
                          .values(seq=self.seq))
        self.conn.execute(mt.update().where(mt.c.person_id == other).values(person_id=target))
        self.conn.execute(ct.update().where(ct.c.person_id == other).values(person_id=target))
        self.conn.execute(pt.delete().where(pt.c.id == other))
        for key, pid in list(self.handles.items()):
            if pid == other:
                self.handles[key] = target
        self.people.pop(other, None)
        self.merged[other] = target

    def current(self, person_id: str | None) -> str | None:
        """Follow merges made since `person_id` was handed out."""
        while person_id in self.merged:
            person_id = self.merged[person_id]
        return person_id

    # ------------------------------------------------------------------ linking rows
    def link(self, only_unlinked: bool = True) -> int:
        """Set person_id on messages (and 1:1 chats) and bump `seq` where it changed, so the
        index shows the person's name. Returns how many messages changed."""
        mt, ct = m.Message.__table__, m.Chat.__table__
        # agent sessions' turns are written by roles (user, assistant), not by people
        by_app = and_(mt.c.kind == "system", mt.c.sender_handle.is_(None),
                      func.lower(mt.c.sender).in_(sorted(APP_SENDERS)))
        q = (select(mt.c.sender, mt.c.sender_handle, mt.c.person_id).distinct()
             .where(mt.c.platform != AGENT).where(~by_app))
        if only_unlinked:
            q = q.where(mt.c.person_id.is_(None))
        changed = 0
        for sender, handle, current in self.conn.execute(q).all():
            person = self.resolve(sender, handle)
            if person is None or person == current:
                continue
            cond = and_(mt.c.sender == sender,
                        mt.c.sender_handle == handle if handle is not None else mt.c.sender_handle.is_(None))
            if current is None:
                cond = and_(cond, mt.c.person_id.is_(None))
            else:
                cond = and_(cond, mt.c.person_id == current)
            changed += self.conn.execute(mt.update().where(cond).values(person_id=person, seq=self.seq)).rowcount
        cq = select(ct.c.id, ct.c.name, ct.c.handles, ct.c.person_id).where(ct.c.is_group.is_(False))
        if only_unlinked:
            cq = cq.where(ct.c.person_id.is_(None))
        for chat_id, name, handles, current in self.conn.execute(cq).all():
            if (handles or [None])[0] is None and normalize_handle(name or "", self.region) is None:
                continue
            person = self.resolve(name, (handles or [None])[0], create=False)
            if person is not None and person != current and person != OWNER_ID:
                self.conn.execute(ct.update().where(ct.c.id == chat_id).values(person_id=person, seq=self.seq))
                self.conn.execute(mt.update().where(mt.c.chat_id == chat_id).values(seq=self.seq))
        return changed

    def touch_person(self, person_id: str) -> None:
        """Reindex everything that shows this person's name."""
        mt, ct = m.Message.__table__, m.Chat.__table__
        chats = select(ct.c.id).where(ct.c.person_id == person_id)
        self.conn.execute(mt.update().where(or_(mt.c.person_id == person_id, mt.c.chat_id.in_(chats)))
                          .values(seq=self.seq))


# ---------------------------------------------------------------------- display


def sender_name(row: Any, names: Mapping[str, str] | None) -> str:
    """The sender as people know them: the person's name once known (the owner stays `me`)."""
    pid = getattr(row, "person_id", None)
    if names is not None and pid and pid != "me" and pid in names:
        return names[pid]
    return row.sender


def chat_name(chat: Any, names: Mapping[str, str] | None) -> str:
    """A one-to-one chat is called after its person once known; a group keeps its name."""
    if chat is None:
        return ""
    pid = getattr(chat, "person_id", None)
    if names is not None and pid and not chat.is_group and pid in names:
        return names[pid]
    return chat.name


# ---------------------------------------------------------------------- user operations


def find_person(conn: Connection, text: str, region: str | None = None) -> list[str]:
    """Person ids for a person id, a name (exact, case-insensitive) or any handle."""
    pt, ht = m.Person.__table__, m.Handle.__table__
    if not text or not text.strip():
        raise ArgumentError("person must be a name, a phone number, an e-mail or a person id")
    if conn.execute(select(pt.c.id).where(pt.c.id == text)).first():
        return [text]
    ids = list(conn.execute(select(pt.c.id).where(func.lower(pt.c.name) == text.strip().lower())).scalars())
    key = normalize_handle(text, region)
    if key:
        ids += list(conn.execute(select(ht.c.person_id).where(ht.c.kind == key[0], ht.c.value == key[1])).scalars())
    return list(dict.fromkeys(ids))


def one_person(conn: Connection, text: str, region: str | None = None) -> str:
    ids = find_person(conn, text, region)
    if not ids:
        raise NotFound(f"no person matches {text!r} (see `chatmem people`)")
    if len(ids) > 1:
        raise ArgumentError(f"{text!r} matches {len(ids)} people ({', '.join(ids)}); use a person id")
    return ids[0]


def merge(conn: Connection, people: People, a: str, b: str) -> str:
    """`b` becomes part of `a` (by hand: automatic matching never separates them)."""
    pa, pb = one_person(conn, a, people.region), one_person(conn, b, people.region)
    if pa == pb:
        return pa
    if OWNER_ID in (pb,):
        pa, pb = pb, pa
    people.merge_into(pa, pb, manual=True)
    conn.execute(m.Person.__table__.update().where(m.Person.__table__.c.id == pa).values(manual=True))
    people.people[pa] = (people.people[pa][0], True)
    people.touch_person(pa)
    return pa


def split(conn: Connection, people: People, person: str, handle: str, name: str | None = None) -> str:
    """Move one handle (and the messages and chats it identifies) to a person of its own."""
    pid = one_person(conn, person, people.region)
    key = normalize_handle(handle, people.region)
    ht, pt, mt, ct = m.Handle.__table__, m.Person.__table__, m.Message.__table__, m.Chat.__table__
    row = conn.execute(select(ht).where(ht.c.kind == key[0], ht.c.value == key[1])).first() if key else None
    if key is None or row is None or row.person_id != pid:
        raise NotFound(f"{handle!r} is not one of the handles of {person!r} (see `chatmem people`)")
    new_id = rec.stable_id("p", "split", key[0], key[1])
    people._new_person(new_id, name or row.display or key[1], manual=True)
    conn.execute(pt.update().where(pt.c.id == pid).values(manual=True))
    conn.execute(ht.update().where(ht.c.id == row.id).values(person_id=new_id, source="manual"))
    people.handles[key] = new_id
    # re-resolve this person's messages: those identified by the moved handle follow it
    for sender, shandle in conn.execute(select(mt.c.sender, mt.c.sender_handle)
                                        .where(mt.c.person_id == pid).distinct()).all():
        cands = people.candidates(sender, shandle)
        if cands and cands[0][0] == key:
            conn.execute(mt.update().where(and_(mt.c.person_id == pid, mt.c.sender == sender))
                         .values(person_id=new_id, seq=people.seq))
    for chat_id, cname, chandles in conn.execute(select(ct.c.id, ct.c.name, ct.c.handles)
                                                 .where(ct.c.person_id == pid)).all():
        cands = people.candidates(cname, (chandles or [None])[0])
        if cands and cands[0][0] == key:
            conn.execute(ct.update().where(ct.c.id == chat_id).values(person_id=new_id))
            conn.execute(mt.update().where(mt.c.chat_id == chat_id).values(seq=people.seq))
    people.touch_person(pid)
    people.touch_person(new_id)
    return new_id


def rename(conn: Connection, people: People, person: str, name: str) -> str:
    pid = one_person(conn, person, people.region)
    conn.execute(m.Person.__table__.update().where(m.Person.__table__.c.id == pid).values(name=name, manual=True))
    people.touch_person(pid)
    return pid


def list_people(conn: Connection, query: str | None = None, limit: int = 200,
                visible_chats: Any = None) -> list[dict]:
    """People with message counts, platforms and handles. With `visible_chats` (a select of
    the chat ids a seat may read) only the people in those chats, counted there, and without
    their handles (which other platforms gave)."""
    pt, ht, mt, ct = m.Person.__table__, m.Handle.__table__, m.Message.__table__, m.Chat.__table__
    in_scope = mt.c.chat_id.in_(visible_chats) if visible_chats is not None else true()
    counts: dict[str | None, int] = {
        pid: n for pid, n in conn.execute(select(mt.c.person_id, func.count()).where(in_scope)
                                          .group_by(mt.c.person_id))}
    handles: dict[str, list[dict]] = {}
    if visible_chats is None:
        for r in conn.execute(select(ht).order_by(ht.c.id)):
            handles.setdefault(r.person_id, []).append({"kind": r.kind, "value": r.value, "source": r.source})
    platforms: dict[str, set] = {}
    for pid, platform in conn.execute(select(mt.c.person_id, mt.c.platform).where(in_scope).distinct()):
        platforms.setdefault(pid, set()).add(platform)
    shown = None
    if visible_chats is not None:
        shown = set(counts) | set(conn.execute(select(ct.c.person_id).where(
            ct.c.id.in_(visible_chats), ct.c.person_id.is_not(None))).scalars())
    out = []
    for r in conn.execute(select(pt).order_by(pt.c.name)):
        if shown is not None and r.id not in shown:
            continue
        if query and query.lower() not in r.name.lower() and not any(
                query.lower() in h["value"] for h in handles.get(r.id, [])):
            continue
        out.append({"person": r.id, "name": r.name, "manual": bool(r.manual),
                    "from_contact": bool(r.from_contact), "messages": counts.get(r.id, 0),
                    "platforms": sorted(platforms.get(r.id, ())), "handles": handles.get(r.id, [])})
    out.sort(key=lambda p: (p["person"] != OWNER_ID, -p["messages"], p["name"]))
    return out[:limit]


# ---------------------------------------------------------------------- names as people say them


def fold(text: str) -> str:
    """Lower case without accents, for matching names as people type them.

    >>> fold("Chloé  DUBOIS")
    'chloe dubois'
    """
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())


MIN_PART = 2  # a name part shorter than this ("a") would match most people


def _name_score(query: list[str], name: list[str]) -> int:
    """3: the same words; 2: every query word starts a different word of the name; 0: no match."""
    if query == name:
        return 3
    left = list(name)
    for word in query:
        hit = next((w for w in left if w == word or (len(word) >= MIN_PART and w.startswith(word))), None)
        if hit is None:
            return 0
        left.remove(hit)
    return 2


def resolve_people(conn: Connection, text: str, region: str | None = None) -> list[tuple[str, str]]:
    """(person id, name) of the people `text` means, as people say it: a person id, `me` or the
    owner's configured name, a phone number (or its last digits), an e-mail, a handle, a full
    name, a first name or any parts of a name, any case and accents. The best kind of match
    wins: an exact name or handle over parts of names.

    "Anna" -> [("p_…", "Anna Berg")]; "lena" -> Lena Vogel and Lena Vogt.
    """
    pt, ht = m.Person.__table__, m.Handle.__table__
    names = dict(conn.execute(select(pt.c.id, pt.c.name)).all())
    text = (text or "").strip()
    if not text:
        return []
    if text in names:
        return [(text, names[text])]
    if fold(text) in ("me", "myself", "owner"):
        return [(OWNER_ID, names.get(OWNER_ID, "me"))]
    found: dict[str, int] = {}
    key = normalize_handle(text, region)
    if key is not None and key[0] != "name":
        for pid in conn.execute(select(ht.c.person_id).where(ht.c.kind == key[0], ht.c.value == key[1])).scalars():
            found[pid] = 3
        digits = re.sub(r"\D", "", text)
        if not found and key[0] == "phone" and len(digits) >= 6:
            for pid in conn.execute(select(ht.c.person_id).where(ht.c.kind == "phone",
                                                                 ht.c.value.like(f"%{digits}"))).scalars():
                found[pid] = 2
    query = fold(text).replace(",", " ").split()
    # every name a person goes by: the name shown, and names chats gave them (handles of kind name)
    candidates = [(pid, name) for pid, name in names.items()]
    candidates += [(r.person_id, r.value) for r in conn.execute(select(ht.c.person_id, ht.c.value)
                                                                  .where(ht.c.kind == "name"))]
    for pid, name in candidates:
        if pid not in names:
            continue
        score = _name_score(query, fold(name).split())
        if score > found.get(pid, 0):
            found[pid] = score
    if not found:
        return []
    best = max(found.values())
    return [(pid, names[pid]) for pid in sorted(found, key=lambda p: names[p]) if found[pid] == best]


def closest_people(conn: Connection, text: str, n: int = 3) -> list[str]:
    """The names most like `text`, for an error that helps the caller try again."""
    import difflib

    pt = m.Person.__table__
    names = [nm for nm in conn.execute(select(pt.c.name)).scalars() if nm and nm != "me"]
    by_fold = {fold(nm): nm for nm in names}
    word = fold(text)
    near = difflib.get_close_matches(word, list(by_fold), n=n, cutoff=0.4)
    if len(near) < n:  # a close first name or surname: "Lenna" -> Lena Vogel
        parts = {p: full for full in by_fold for p in full.split()}
        near += [f for p in difflib.get_close_matches(word, list(parts), n=n, cutoff=0.6)
                 for f in [parts[p]] if f not in near]
    return [by_fold[f] for f in near[:n]]
