"""Every WhatsApp sample under ../shared/corpus/whatsapp/ parses as its EXPECTED.yaml says.

The corpus belongs to other projects and is not copied here; the tests skip when ../shared
(or $CHATMEM_SHARED) is absent. Counts follow the YAML's own terms:

- records: header lines (messages of every kind, plus calls);
- system_events: messages of kind "system";
- user_messages: the other records, except a body WhatsApp left empty ("Name:.");
- multiline: records whose exported text spans more than one line (trailing blank lines aside);
- ts_first / ts_last: the first and last record in file order, as local wall-clock time.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

import pytest
import yaml
from whatsapp_helpers import SHARED, local, messages, read

from chatmem.importers.whatsapp import WhatsAppImporter
from chatmem.records import Message

CORPUS = SHARED / "corpus" / "whatsapp"
EXPECTED = CORPUS / "EXPECTED.yaml"


def _entries() -> list[dict]:
    if not EXPECTED.is_file():
        return []
    return yaml.safe_load(EXPECTED.read_text(encoding="utf-8"))["files"]


ENTRIES = _entries()
pytestmark = pytest.mark.skipif(not ENTRIES, reason="../shared/corpus/whatsapp is not present")


def _is_system(r) -> bool:
    return isinstance(r, Message) and r.kind == "system"


def _is_user(r) -> bool:
    return not _is_system(r) and not (isinstance(r, Message) and r.extra.get("placeholder") == "empty")


def counts(records: list) -> dict[str, int]:
    recs = messages(records)
    return {
        "records": len(recs),
        "user_messages": sum(map(_is_user, recs)),
        "system_events": sum(map(_is_system, recs)),
        "multiline": sum(1 for r in recs if "\n" in r.raw.rstrip("\r\n")),
        "media_placeholders": sum(1 for r in recs if isinstance(r, Message) and r.kind == "media"),
        "attachments": sum(1 for r in recs if isinstance(r, Message) and any(a.path for a in r.attachments)),
    }


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES] or None)
def test_corpus_file(entry: dict) -> None:
    path = CORPUS / entry["file"]
    assert WhatsAppImporter().detect(path)
    records = read(path, owner_names=[])  # names as written: the YAML lists them so
    got = counts(records)
    expected = dict(entry.get("counted_by_hand") or {})
    if "lines" in expected and "records" not in expected:
        expected["records"] = expected["lines"]  # a file with one record per line
    checked = {k: v for k, v in expected.items() if k in got}
    assert {k: got[k] for k in checked} == checked
    recs = messages(records)
    for key, record in (("ts_first", recs[0]), ("ts_last", recs[-1])):
        if key in entry:
            assert datetime.fromisoformat(local(record)) == datetime.fromisoformat(entry[key][1])
    senders = expected.get("senders")
    users = [r.sender for r in recs if isinstance(r, Message) and _is_user(r)]
    if isinstance(senders, dict):
        assert Counter(users) == senders
    elif isinstance(senders, list):
        assert set(users) == set(senders)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES] or None)
def test_corpus_reimport_gives_the_same_ids(entry: dict) -> None:
    path = CORPUS / entry["file"]
    first = [r.id for r in messages(read(path))]
    again = [r.id for r in messages(read(path))]
    assert first == again
    assert len(set(first)) == len(first)
