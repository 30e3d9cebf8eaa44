"""Property tests: whatever bytes arrive, the WhatsApp importer yields records or a FormatError."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatmem.errors import FormatError
from chatmem.importers.whatsapp import WhatsAppImporter
from chatmem.records import (
    Call,
    Chat,
    Estimate,
    ImportOptions,
    Message,
    Problem,
    SourceState,
)

RECORD_TYPES = (Chat, Message, Call, Problem, SourceState)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Pieces real exports are made of, so that random files often hold real headers.
HEADERS = st.sampled_from([
    "01/02/24, 10:00 - ", "13/02/2024, 23:59 - ", "2/13/24, 11:59\u202fPM - ", "[01.02.24, 10:00:00] ",
    "\u200e[3/2/24, 6:01:09\u202fPM] ", "2024-02-01 10:00 - ", "01/02/2024 10:00:00: ", "99/99/99, 99:99 - ",
    "12/03/2021 à 14:35 - ", "01/02/24, 00:10 a.\u00a0m. - ", "",
])
BODIES = st.sampled_from([
    "Anna: hi", "Ben Ortiz: <Media omitted>", "Anna: \u200eimage omitted", "Anna: null", "Anna:.",
    "Anna added Ben", 'Anna changed the subject from "A" to "B: C"', "Anna: POLL:", "OPTION: x (2 votes)",
    "Anna: location: https://maps.google.com/?q=1.5,2.5", "Anna: This message was deleted",
    "Anna: done <This message was edited>", "\u202a+49 170 1234567\u202c: hi", "Anna: \u200eMissed voice call",
    "Trip: \u200eAnna left", "5/6", "", ":", ": :", "Anna: a\u2028b",
])
ENDINGS = st.sampled_from(["\n", "\r\n", "\r\r\n", "\r"])
LINES = st.lists(st.tuples(HEADERS, BODIES, ENDINGS).map("".join), max_size=25).map("".join)


def _import(data: bytes, name: str, **options) -> list:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        try:
            records = WhatsAppImporter().read(path, ImportOptions(**options))
            return [r for r in records if not isinstance(r, Estimate)]  # progress hints only
        except FormatError as e:
            assert name in str(e), "a format error names the file"
            return []


def _check(records: list) -> None:
    assert all(isinstance(r, RECORD_TYPES) for r in records)
    if not records:
        return
    assert isinstance(records[0], Chat) and isinstance(records[-1], SourceState)
    recs = [r for r in records if isinstance(r, (Message, Call))]
    assert len({r.id for r in recs}) == len(recs), "ids are unique"
    for r in recs:
        when = r.sent_at if isinstance(r, Message) else r.started_at
        assert when.tzinfo is not None


@SETTINGS
@given(st.binary(max_size=2000))
def test_random_bytes_as_text(data: bytes) -> None:
    _check(_import(data, "WhatsApp Chat with Anna Berg.txt"))


@SETTINGS
@given(st.binary(max_size=2000))
def test_random_bytes_as_zip(data: bytes) -> None:
    _check(_import(data, "WhatsApp Chat - Anna Berg.zip"))


@SETTINGS
@given(LINES, st.sampled_from([None, "DMY", "MDY", "YMD"]))
def test_export_like_text(text: str, date_format: str | None) -> None:
    records = _import(text.encode(), "WhatsApp Chat with Anna Berg.txt", date_format=date_format,
                      owner_names=["Anna"])
    _check(records)
    recs = [r for r in records if isinstance(r, (Message, Call))]
    if recs:
        # Nothing is lost: the raw records and the problems hold every non-blank line.
        kept = "\n".join(r.raw for r in recs)
        lines = [p.text for p in records if isinstance(p, Problem)]
        for line in text.split("\n"):
            line = line.rstrip("\r")
            if line.strip():
                assert line in kept or line in lines


@SETTINGS
@given(LINES)
def test_reading_twice_gives_the_same_ids(text: str) -> None:
    a = _import(text.encode(), "WhatsApp Chat with Anna Berg.txt")
    b = _import(text.encode(), "WhatsApp Chat with Anna Berg.txt")
    assert [getattr(r, "id", None) for r in a] == [getattr(r, "id", None) for r in b]
