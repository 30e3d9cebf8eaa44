"""People: vCard contacts, one person across platforms, merge and split (issue 10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chatmem.importers.contacts import parse_vcards
from chatmem.records import Contact, Problem
from chatmem.store.people import normalize_handle

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ANNA = "+15550100001"
BEN = "+15550100002"


@pytest.mark.parametrize("card, name, phones, emails", [
    ("BEGIN:VCARD\nVERSION:3.0\nN:Berg;Anna;;;\nFN:Anna Berg\nTEL;TYPE=CELL:+1 555 010 0001\nEND:VCARD\n",
     "Anna Berg", ["+1 555 010 0001"], []),
    # vCard 2.1 from an old Android phone: quoted-printable UTF-8 with a soft line break
    ("BEGIN:VCARD\r\nVERSION:2.1\r\nN;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:M=C3=BCller;J=C3=BCrgen;;;\r\n"
     "FN;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:J=C3=BCrgen M=C3=BC=\r\nller\r\n"
     "TEL;CELL:+49 151 2345678\r\nTEL;HOME:030 1234567\r\nEND:VCARD\r\n",
     "Jürgen Müller", ["+49 151 2345678", "030 1234567"], []),
    # vCard 4.0 (Google Contacts): folded FN, tel: URI, grouped item1.EMAIL
    ("BEGIN:VCARD\nVERSION:4.0\nFN:Ben\n  Ortiz\nTEL;VALUE=uri;TYPE=\"voice,cell\":tel:+1-555-010-0002\n"
     "EMAIL;TYPE=work:ben@example.com\nitem1.EMAIL;type=INTERNET:ben.o@example.org\nEND:VCARD\n",
     "Ben Ortiz", ["+1-555-010-0002"], ["ben@example.com", "ben.o@example.org"]),
    # iPhone: no FN, name only in N, escaped comma in ORG
    ("BEGIN:VCARD\nVERSION:3.0\nN:Tanaka;Yuki;;;\nORG:Acme\\, Inc.;\nitem1.TEL;type=pref:+81 90 1234 5678\nEND:VCARD\n",
     "Yuki Tanaka", ["+81 90 1234 5678"], []),
])
def test_vcard_versions(card, name, phones, emails):
    [contact] = list(parse_vcards(card))
    assert (contact.name, contact.phones, contact.emails) == (name, phones, emails)


def test_a_truncated_vcard_is_reported_with_its_line():
    records = list(parse_vcards("BEGIN:VCARD\nVERSION:3.0\nFN:A\nTEL:1\nEND:VCARD\nBEGIN:VCARD\nFN:Cut off\n"))
    assert isinstance(records[0], Contact)
    assert isinstance(records[1], Problem) and records[1].line == 6


@pytest.mark.parametrize("raw, region, expected", [
    ("+1 (555) 010-0001", None, ("phone", ANNA)),
    ("(555) 010-0001", "US", ("phone", ANNA)),
    ("\u202a+1 555-010-0001\u202c", None, ("phone", ANNA)),  # WhatsApp wraps numbers in marks
    ("0151 2345678", "DE", ("phone", "+491512345678")),
    ("Ben@Example.COM", None, ("email", "ben@example.com")),
    ("mailto:ben@example.com", None, ("email", "ben@example.com")),
    ("~ Anna Berg", None, ("name", "anna berg")),
    ("67766776-6776-6776-6776-677667766776", None, ("service", "67766776-6776-6776-6776-677667766776")),
])
def test_handles_are_normalized(raw, region, expected):
    assert normalize_handle(raw, region) == expected


@pytest.fixture
def everything(cli):
    """All bundled fixtures (WhatsApp, iMessage, Signal, JSONL) and the vCard, contacts last."""
    for folder in ("whatsapp", "imessage", "signal", "jsonl", "contacts"):
        cli("import", FIXTURES / folder)
    return cli


def people_by_name(cli) -> dict[str, dict]:
    return {p["name"]: p for p in cli.json("people")["people"]}


def test_two_friends_on_every_platform_are_two_people(everything):
    people = people_by_name(everything)
    anna, ben = people["Anna Berg"], people["Ben Ortiz"]
    assert {"imessage", "signal", "whatsapp"} <= set(anna["platforms"])
    assert {"imessage", "signal", "whatsapp"} <= set(ben["platforms"])
    assert ANNA in [h["value"] for h in anna["handles"]]
    assert "ben@example.com" in [h["value"] for h in ben["handles"]]
    # nobody else carries their numbers: one friend is one person
    others = [p for name, p in people.items() if name not in ("Anna Berg", "Ben Ortiz")]
    assert not any(h["value"] in (ANNA, BEN, "ben@example.com") for p in others for h in p["handles"])
    # the owner's own name in the exports is "me"
    assert "Sam Rivera" not in people
    assert people["me"]["messages"] > 0


def test_contacts_imported_after_messages_name_the_old_messages(everything):
    people = people_by_name(everything)
    assert people["Anna Berg"]["from_contact"] is True


def test_merge_and_split_survive_a_reimport(everything):
    people = people_by_name(everything)
    priya, nora = people["Priya Shah"], people["Nora Quinn"]
    everything("people", "merge", "Priya Shah", "Nora Quinn")
    for folder in ("whatsapp", "imessage", "signal"):
        everything("import", "--force", FIXTURES / folder)
    everything("reindex")  # the index is rebuilt from the database: the merge is there too
    people = people_by_name(everything)
    assert "Nora Quinn" not in people
    found = everything.json("search", "--person", "Priya Shah", "--limit", "50")
    assert {r["sender"] for r in found["results"]} == {"Priya Shah"}
    assert found["total"] == priya["messages"] + nora["messages"]
    merged = people["Priya Shah"]
    assert merged["messages"] == priya["messages"] + nora["messages"]
    assert merged["manual"] is True

    everything("people", "split", "Priya Shah", "Nora Quinn")
    everything("import", "--force", FIXTURES / "whatsapp")
    people = people_by_name(everything)
    assert people["Nora Quinn"]["messages"] == nora["messages"]
    assert people["Priya Shah"]["messages"] == priya["messages"]


def test_people_errors_are_one_line(everything):
    result = everything("people", "merge", "Nobody Here", "Anna Berg", expect=1)
    assert "no person matches 'Nobody Here'" in result.output
    result = everything("people", "split", "Anna Berg", "+19999999999", expect=1)
    assert "is not one of the handles" in result.output


def test_people_json_lists_handles_and_counts(everything):
    data = everything.json("people")
    assert data["people"][0]["person"] == "me"
    json.dumps(data)  # plain JSON
    assert all({"person", "name", "messages", "platforms", "handles"} <= set(p) for p in data["people"])


def test_a_person_filter_finds_their_messages_on_every_platform(everything):
    found = everything.json("search", "--person", "Anna Berg", "--limit", "50")
    platforms = {r["platform"] for r in found["results"]}
    assert {"imessage", "signal", "whatsapp"} <= platforms
    assert found["total"] == people_by_name(everything)["Anna Berg"]["messages"]
    # messages imported before the contacts show the contact's name, not the number
    assert {r["sender"] for r in found["results"]} == {"Anna Berg"}
    by_number = everything.json("search", "--person", "+1 555 010 0001", "--limit", "50")
    assert by_number["total"] == found["total"]
    # nobody by that name is an error naming the closest people, never a silent empty result
    refused = everything("search", "--person", "Nobody Known", "hello", expect=2)
    assert "nobody called 'Nobody Known'" in refused.output


def test_one_to_one_chats_are_named_after_the_person(everything):
    chats = everything.json("chats", "-q", "Anna Berg")["chats"]
    imessage = [c for c in chats if c["platform"] == "imessage" and not c["group"]]
    assert [c["chat"] for c in imessage] == ["Anna Berg"]
    assert {"imessage", "signal", "whatsapp"} <= {c["platform"] for c in chats}


def test_without_contacts_a_number_joins_the_name_it_arrives_with(cli):
    """iMessage knows +1 555 010 0001 only as a number; the Signal profile carries the same
    number with the name Anna Berg; WhatsApp shows the name. One person, no vCard needed."""
    for folder in ("whatsapp", "imessage", "signal"):
        cli("import", FIXTURES / folder)
    anna = people_by_name(cli)["Anna Berg"]
    assert {"imessage", "signal", "whatsapp"} <= set(anna["platforms"])
    assert "+15550100001" not in people_by_name(cli)


def test_macos_addressbook_database(cli, tmp_path):
    """The macOS Contacts store (AddressBook-v22.abcddb) names people like a vCard does."""
    import sqlite3

    db = tmp_path / "AddressBook-v22.abcddb"
    conn = sqlite3.connect(db)
    conn.executescript("""
        CREATE TABLE ZABCDRECORD (Z_PK INTEGER PRIMARY KEY, ZFIRSTNAME TEXT, ZLASTNAME TEXT, ZORGANIZATION TEXT);
        CREATE TABLE ZABCDPHONENUMBER (Z_PK INTEGER PRIMARY KEY, ZOWNER INTEGER, ZFULLNUMBER TEXT);
        CREATE TABLE ZABCDEMAILADDRESS (Z_PK INTEGER PRIMARY KEY, ZOWNER INTEGER, ZADDRESS TEXT);
        INSERT INTO ZABCDRECORD VALUES (1, 'Anna', 'Berg', NULL), (2, NULL, NULL, 'Praxis Weiss');
        INSERT INTO ZABCDPHONENUMBER VALUES (1, 1, '+1 (555) 010-0001'), (2, 2, '+49 30 1234567');
        INSERT INTO ZABCDEMAILADDRESS VALUES (1, 1, 'anna.berg@example.com');
    """)
    conn.commit()
    conn.close()
    cli("import", FIXTURES / "imessage")
    report = cli.json("import", db)[0]
    assert report["contacts"] == 2
    anna = people_by_name(cli)["Anna Berg"]
    assert ANNA in [h["value"] for h in anna["handles"]] and anna["messages"] > 0
