"""Our typedstream reader against the real attributedBody blobs of the corpus (EXPECTED.md
section A) and against blobs written by our own writer."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from imessage_builders import attachment_body, attributed_body, mention_body

from chatmem.importers.imessage.body import decode_attributed_body
from chatmem.importers.imessage.typedstream import (
    ArchivedObject,
    TypedStreamError,
    parse,
    split_types,
)

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "imessage"
BLOBS = CORPUS / "typedstream"


def expected_table() -> dict[str, str]:
    """EXPECTED.md section A as {file: expected cell}."""
    path = CORPUS / "EXPECTED.md"
    if not path.is_file():
        return {}
    rows = {}
    in_a = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            in_a = line.startswith("## A.")
            continue
        if in_a and line.startswith("| ") and not line.startswith("| file") and "---" not in line:
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            rows[cells[0]] = cells[2]
    return rows


EXPECTED = expected_table()
SPECIAL = {"ExtraData", "HugeWithRefs", "LongMessage"}


def blob(name: str) -> bytes:
    path = BLOBS / name
    if not path.is_file():
        pytest.skip("corpus absent")
    return path.read_bytes()


def test_expected_table_lists_every_blob() -> None:
    if not BLOBS.is_dir():
        pytest.skip("corpus absent")
    assert set(EXPECTED) == {p.name for p in BLOBS.iterdir()}


@pytest.mark.parametrize("complete", [False, True], ids=["text", "complete"])
@pytest.mark.parametrize("name", sorted(set(EXPECTED) - SPECIAL) or ["(corpus absent)"])
def test_corpus_blob_decodes_to_expected_text(name: str, complete: bool) -> None:
    data = blob(name)
    literal = re.match(r'"(?:[^"\\]|\\.)*"', EXPECTED[name])  # the cell may add a remark
    assert literal, EXPECTED[name]
    expected = ast.literal_eval(literal.group(0))
    assert decode_attributed_body(data, complete=complete).text == expected


def test_long_message_is_read_whole() -> None:
    data = blob("LongMessage")
    cell = EXPECTED["LongMessage"]
    start = re.search(r'starts "([^"]*)"', cell).group(1)  # type: ignore[union-attr]
    size = int(re.search(r"(\d+) UTF-8 bytes", cell).group(1))  # type: ignore[union-attr]
    text = decode_attributed_body(data).text
    assert text.startswith(start)
    assert len(text.encode("utf-8")) == size


@pytest.mark.parametrize("complete", [False, True])
def test_corrupted_blob_is_an_error_not_a_guess(complete: bool) -> None:
    with pytest.raises(TypedStreamError):
        decode_attributed_body(blob("ExtraData"), complete=complete)


def test_truncated_blob_is_an_error_or_its_whole_text_never_a_wrong_one() -> None:
    data = attributed_body("all of it")
    text_end = data.index(b"all of it") + len("all of it")
    for end in range(len(data) - 1, 0, -1):
        with pytest.raises(TypedStreamError):
            decode_attributed_body(data[:end], complete=True)
        if end < text_end:  # the text itself is cut: always an error
            with pytest.raises(TypedStreamError):
                decode_attributed_body(data[:end])
        else:  # only formatting after the text is lost: the text, or an error
            try:
                assert decode_attributed_body(data[:end]).text == "all of it"
            except TypedStreamError:
                pass


def test_huge_array_with_back_references_resolves() -> None:
    roots = parse(blob("HugeWithRefs"))
    assert isinstance(roots[0], ArchivedObject)
    assert roots[0].cls.name == "NSMutableArray"
    with pytest.raises(TypedStreamError, match="not an attributed string"):
        decode_attributed_body(blob("HugeWithRefs"))


def test_attachment_positions_are_read_from_attributes() -> None:
    body = decode_attributed_body(blob("MultiPart"))
    assert [i for i, _ in body.attachments] == [0, 7, 15]
    assert all(body.text[i] == "\ufffc" for i, _ in body.attachments)
    assert body.attachments[0][1] == "at_0_F0668F79-20C2-49C9-A87F-1B007ABB0CED"


def test_mention_names_the_handle() -> None:
    body = decode_attributed_body(blob("Mention"))
    assert [(m.handle, m.text) for m in body.mentions] == [("+15558675309", "Dad")]


def test_audio_transcription_is_read() -> None:
    body = decode_attributed_body(blob("Transcription"))
    assert body.transcription == "This is a test"
    assert body.attachments == [(0, "4C339597-EBBB-4978-9B87-521C0471A848")]


def test_links_are_read() -> None:
    assert decode_attributed_body(blob("URL")).links == ["https://github.com/ReagentX/Logria"]


@pytest.mark.parametrize(
    "data",
    [b"", b"\x04\x0bstreamtyped", b"bplist00", b"\x04\x0bstreamtyped\x81\xe8\x03\x84\x01@\x84\x84\x84"],
)
def test_garbage_is_an_error(data: bytes) -> None:
    with pytest.raises(TypedStreamError):
        decode_attributed_body(data)


def test_split_types() -> None:
    assert split_types(b"iI") == (b"i", b"I")
    assert split_types(b"{CGPoint=dd}@") == (b"{CGPoint=dd}", b"@")
    assert split_types(b"[12c]") == (b"[12c]",)


# --------------------------------------------------------------- our writer, round trip


@settings(max_examples=150, deadline=None)
@given(st.text(min_size=0, max_size=300))
def test_any_text_round_trips(text: str) -> None:
    text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    assert decode_attributed_body(attributed_body(text)).text == text


def test_text_over_32_kib_round_trips() -> None:
    # The split-on-NSString shortcut loses these (two-byte length); we read the 4-byte form.
    text = "é" * 40_000 + " the end"
    assert decode_attributed_body(attributed_body(text)).text == text


def test_written_attachment_and_mention_round_trip() -> None:
    body = decode_attributed_body(attachment_body("look: ", "at_0_ABC", " nice"))
    assert body.text == "look: \ufffc nice"
    assert body.attachments == [(6, "at_0_ABC")]
    body = decode_attributed_body(mention_body("Hi 👋 ", "Anna", "+15550100001", "!"))
    assert [(m.handle, m.text, m.start) for m in body.mentions] == [("+15550100001", "Anna", 5)]
