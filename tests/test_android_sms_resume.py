"""Re-importing a newer SMS Backup & Restore file parses only the blocks of raw elements that
are new or changed (importers/android_sms_blocks.py), and the store ends exactly as a re-import
that reads everything leaves it: new messages, an edited and a deleted one, a message inserted
in the middle, a repeated message, a chat whose first message went, another owner number.

The backups here have messages a second or so apart (as phones write them), so that the file
is cut into several blocks (about one element in a thousand starts a block)."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
from android_sms_builders import ANNA, BEN, COMMENT, LIA, SAM, mms, sms, text_part
from android_sms_builders import _write as write_sms
from mutation import TEXT_MUTATORS, mutate
from resume_helpers import import_path, later, note, read_whole, rewrite_resume_state, store_rows

from chatmem.errors import FormatError
from chatmem.importers.android_sms import _Run
from chatmem.importers.android_sms_blocks import scan
from chatmem.records import Call, Chat, ImportOptions, Message, Problem, SourceState

PEOPLE = [(ANNA, "Anna Berg"), (BEN, "Ben Ortiz"), (LIA, "Lia Moreau")]
N = 3000


def element(i: int, text: str | None = None) -> str:
    """The i-th message: about 1.04 s after the one before, an SMS with one of three people,
    every 40th a group MMS."""
    minutes = i * 0.0173
    who, name = PEOPLE[i % 3]
    body = text if text is not None else f"message {i} about the ridge walk"
    if i % 40 == 0:
        sent = (i // 40) % 2
        return mms(minutes, 2 if sent else 1, f"{ANNA}~{BEN}", "Anna Berg, Ben Ortiz", [text_part(body)],
                   [(SAM if sent else ANNA, 137), (BEN, 151)])
    return sms(minutes, who, 1 + i % 2, body, name)


def items(n: int = N) -> list[str]:
    return [element(i) for i in range(n)]


def write(path: Path, elements: list[str], comment: str = COMMENT) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_sms(path, "smses", elements, comment)


LATER = COMMENT.replace("02/03/2024 11:00:00", "09/03/2024 18:30:00")  # the app's next backup


def parsed(report: dict) -> tuple[int, int]:
    """(blocks parsed, blocks) from a resumed re-import's note."""
    words = note(report, "re-import: parsed").split()
    return int(words[2].replace(",", "")), int(words[4].replace(",", ""))


@pytest.fixture
def imported(tmp_path) -> tuple[Path, Path, list[str]]:
    base = items()
    path = write(tmp_path / "sms" / "sms-20240302120000.xml", base)
    found, _ = scan(path)
    assert found is not None and len(found.blocks) >= 3  # what the tests below need
    home = tmp_path / "home"
    assert import_path(home, path)["messages"]["new"] == N
    return home, path, base


def reimport_equals_whole(tmp_path: Path, home: Path, path: Path, newer: list[str]) -> dict:
    """Write `newer` over the imported file, re-import it; the store must be what importing
    the old file then the new one reading everything makes."""
    old = tmp_path / "old.xml"
    old.write_bytes(path.read_bytes())
    write(path, newer, LATER)  # a later backup: its header comment names another time
    later(path)
    report = import_path(home, path)
    whole = tmp_path / "whole"
    copy = whole / path.name
    copy.parent.mkdir()
    copy.write_bytes(old.read_bytes())
    reference_home = tmp_path / "reference-home"
    import_path(reference_home, copy)
    copy.write_bytes(path.read_bytes())
    later(copy)
    reference = import_path(reference_home, copy, force=True)
    # the counts of new and updated messages are the same; fewer are compared ("unchanged")
    assert {k: report["messages"][k] for k in ("new", "updated")} == {
        k: reference["messages"][k] for k in ("new", "updated")}
    assert store_rows(home) == store_rows(reference_home)
    return report


def test_new_edited_deleted_and_inserted_messages_parse_only_their_blocks(tmp_path, imported):
    home, path, base = imported
    newer = list(base)
    newer[700] = element(700, "message 700, edited on the phone")
    del newer[1900]
    newer.insert(1500, element(1500, "a message restored into the middle"))
    newer += [element(i) for i in range(N, N + 30)]
    report = reimport_equals_whole(tmp_path, home, path, newer)
    # the 30 at the end, the restored one and the edited one (SMS have no id: an edited text
    # is another message; the old one stays, as every message the newer file no longer has)
    assert report["messages"]["new"] == 32 and report["messages"]["updated"] == 0
    read, blocks = parsed(report)
    assert 1 <= read <= 4 < blocks or read < blocks  # the changed blocks and the last, not all


def test_the_same_file_again_parses_nothing(tmp_path, imported):
    home, path, base = imported
    report = reimport_equals_whole(tmp_path, home, path, base + [])
    assert report["messages"]["new"] == 0


def test_a_message_repeating_one_in_a_skipped_block_reads_the_file_whole(tmp_path, imported):
    home, path, base = imported
    # the same message (chat, time, sender, text) again, in a new block: a whole read numbers
    # it 1 after the one in the first block
    newer = [*base, base[5]]
    report = reimport_equals_whole(tmp_path, home, path, newer)
    assert "repeats one in a block not read" in note(report, "re-import")
    assert report["messages"]["new"] == 1


def test_a_chat_whose_first_message_went_is_named_as_a_whole_read_names_it(tmp_path):
    path = write(tmp_path / "sms" / "sms-20240302120000.xml", items())
    found, _ = scan(path)
    assert found is not None
    data = path.read_bytes()
    last = data[:found.blocks[-1].start].count(b"<sms ") + data[:found.blocks[-1].start].count(b"<mms ")
    # Lia is "Lia Moreau" on her first messages, "Lia M." from the last block on (renamed)
    base = [x.replace('contact_name="Lia Moreau"', 'contact_name="Lia M."') if i >= last else x
            for i, x in enumerate(items())]
    write(path, base)
    home = tmp_path / "home"
    import_path(home, path)
    # her earlier messages deleted: her chat is first named in a block not read this time
    newer = [x for i, x in enumerate(base) if i >= last or "Lia Moreau" not in x]
    report = reimport_equals_whole(tmp_path, home, path, newer)
    assert "the first message of a chat changed: read whole" in note(report, "re-import")
    assert "Lia M." in {r[1] for r in store_rows(home)["chats"]}


def test_another_owner_number_reads_the_file_whole(tmp_path, monkeypatch):
    # without owner.handles, the owner's number is learned from the first sent MMS
    config = tmp_path / "config.yaml"
    config.write_text('owner:\n  names: ["Sam Rivera"]\n')
    monkeypatch.setenv("CHATMEM_CONFIG", str(config))
    base = items()
    path = write(tmp_path / "sms" / "sms-20240302120000.xml", base)
    home = tmp_path / "home"
    import_path(home, path)
    grown = [*base, *(element(i) for i in range(N, N + 5))]
    report = reimport_equals_whole(tmp_path, home, path, grown)
    assert f"your number taken to be {SAM}" in " ".join(report["notes"])
    assert note(report, "re-import").startswith("re-import: parsed 1 of")
    (tmp_path / "old.xml").unlink()
    for folder in ("whole", "reference-home"):
        shutil.rmtree(tmp_path / folder)
    # a sent MMS from another number comes first now: every chat key may change
    newer = [mms(-1, 2, f"{ANNA}~{LIA}", "Anna Berg, Lia Moreau", [text_part("from my other phone")],
                 [("+15550109999", 137), (ANNA, 151), (LIA, 151)]), *grown]
    report = reimport_equals_whole(tmp_path, home, path, newer)
    assert "your number taken to be +15550109999" in " ".join(report["notes"])
    assert "read whole and compared" in note(report, "re-import")


def test_a_newer_backup_under_a_new_name_gives_again_only_blocks_with_mms(tmp_path, imported):
    home, path, base = imported
    newer = write(path.parent / "sms-20240401120000.xml", [*base, element(N)])
    report = import_path(home, newer)
    assert report["messages"]["new"] == 1
    assert store_rows(home) == read_whole(tmp_path, path, newer)


def as_an_earlier_version_wrote_it(path: Path):
    """The resume state of an import of `path` as the version before XXH3 wrote it: blocks
    keyed by their BLAKE2b digest, no digest kind."""
    found, _ = scan(path, legacy=True)
    assert found is not None
    old_key = {b.digest: b.legacy for b in found.blocks}

    def change(state: dict) -> dict:
        state.pop("digest")
        state["blocks"] = {old_key[d]: f for d, f in state["blocks"].items()}
        return state
    return change


def test_a_store_imported_by_the_version_before_skips_what_it_read_and_finds_an_old_edit(tmp_path, imported):
    home, path, base = imported
    rewrite_resume_state(home, as_an_earlier_version_wrote_it(path))
    newer = list(base)
    newer[300] = element(300, "message 300, edited on the phone")  # in the first block
    newer += [element(i) for i in range(N, N + 20)]
    report = reimport_equals_whole(tmp_path, home, path, newer)
    assert report["messages"]["new"] == 21  # the edit (another message: SMS have no id) and 20
    read, blocks = parsed(report)
    assert read == 2 < blocks  # the edited block and the grown last one, not all
    # the state is now written the new way, and the next backup resumes from it
    write(path, [*newer, element(N + 20)], LATER)
    later(path)
    report = import_path(home, path)
    assert report["messages"]["new"] == 1 and parsed(report)[0] == 1
    reference = tmp_path / "reference-home"
    import_path(reference, path, force=True)
    assert store_rows(home) == store_rows(reference)


def test_an_error_in_a_later_block_names_the_line_and_column_the_parser_names(tmp_path):
    elements = items(1600)
    elements[1401] = elements[1401].replace(' type="', ' type=', 1)  # an attribute unquoted
    path = write(tmp_path / "sms-broken.xml", elements)
    found, _ = scan(path)
    assert found is not None and len(found.blocks) >= 2
    options = ImportOptions(owner_handles=[SAM])
    with pytest.raises(FormatError) as whole:
        whole_records(path, options)
    with pytest.raises(FormatError) as blocks:
        block_records(path, options)
    assert str(blocks.value) == str(whole.value)
    data = path.read_bytes()
    line = data[:data.index(elements[1401].strip().encode())].count(b"\n") + 1
    assert found.blocks[1].start < data.index(elements[1401].strip().encode())  # not the first block
    assert f"line {line}, column " in str(blocks.value)


# ---------------------------------------------------------------------- the cut against the parser


def whole_records(path: Path, options: ImportOptions) -> list:
    """What the one streaming parser over the whole file makes (the reader before blocks)."""
    return [r for r in _Run(path, options)._whole() if not isinstance(r, SourceState)]


def block_records(path: Path, options: ImportOptions) -> list:
    return [r for r in _Run(path, options).records() if not isinstance(r, SourceState)]


def comparable(records: list) -> list:
    out = []
    for r in records:
        if isinstance(r, Message):
            out.append(("m", r.id, r.chat_id, r.sender, r.text, r.raw, r.extra, r.attachments))
        elif isinstance(r, Call):
            out.append(("c", r.id, r.raw))
        elif isinstance(r, Chat):
            out.append(("chat", r.id, r.name, r.participants))
        elif isinstance(r, Problem):
            out.append(("p", r.reason, r.text))
    return out


def test_a_cut_inside_a_comment_is_read_as_the_parser_reads_it(tmp_path):
    # a comment between messages holding what looks like a message that starts a block
    base = items(1200)
    looks = element(417).replace("<sms", "<sms", 1)
    assert ' date="' in looks
    commented = [*base[:600], f"  <!-- {looks.strip()} {element(1417).strip()} -->", *base[600:]]
    path = write(tmp_path / "sms-comment.xml", commented)
    options = ImportOptions(owner_handles=[SAM])
    assert comparable(block_records(path, options)) == comparable(whole_records(path, options))


@pytest.mark.slow  # about 10 s
def test_mutants_read_as_the_parser_reads_them_or_fail_with_one_line(tmp_path):
    """Mutational fuzzing of the cut: every mutant of a several-block backup gives the records
    the one streaming parser gives, or one error naming the file and a line, as it does.
    A longer hunt: CHATMEM_SMS_CUT_MUTANTS=2000."""
    base = write(tmp_path / "base.xml", items(1600))
    found, _ = scan(base)
    assert found is not None and len(found.blocks) >= 2
    original = base.read_bytes()
    options = ImportOptions(owner_handles=[SAM])
    rng = random.Random(17)
    outcomes = {"same": 0, "error": 0}
    for n in range(int(os.environ.get("CHATMEM_SMS_CUT_MUTANTS", "30"))):
        data, how = mutate(original, TEXT_MUTATORS, rng)
        path = tmp_path / f"m{n}" / "sms-mutant.xml"
        path.parent.mkdir()
        path.write_bytes(data)
        where = f"mutant {n} ({how})"
        try:
            expected = comparable(whole_records(path, options))
        except FormatError:
            expected = None
        try:
            got = comparable(block_records(path, options))
        except FormatError as e:
            assert expected is None, f"{where}: refused what the parser reads: {e}"
            assert str(path) in str(e) and "line" in str(e) and "\n" not in str(e), where
            outcomes["error"] += 1
            continue
        assert expected is not None, f"{where}: read what the parser refuses"
        assert got == expected, where
        outcomes["same"] += 1
    assert outcomes["same"] and outcomes["error"]


def test_the_cut_is_found_where_the_date_rule_says():
    """The cheaper search for cuts (a value's last six digits first) finds exactly what the
    rule's own pattern finds: random `date` values of 0 to 30 digits, other attributes ending
    in the same digits, quotes and digits around them, from random starting points."""
    from chatmem.importers.android_sms_blocks import CUT_AT, _cuts

    rng = random.Random(5)
    pieces = [' date="', ' date_sent="', '"', ' ', '417', '9', '<sms', ' body="x417123"', '\n']
    for _ in range(300):
        parts = []
        for _ in range(rng.randrange(1, 40)):
            if rng.random() < 0.5:
                digits = "".join(rng.choice("0123456789") for _ in range(rng.randrange(0, 31)))
                if rng.random() < 0.5 and len(digits) >= 6:
                    digits = digits[:-6] + "417" + digits[-3:]
                parts.append(f' date="{digits}"')
            else:
                parts.append(rng.choice(pieces))
        buf = "".join(parts).encode()
        start = rng.randrange(0, len(buf) + 1)
        assert list(_cuts(buf, start)) == [m.start() for m in CUT_AT.finditer(buf, start)], buf


@pytest.mark.parametrize("chunk", [4500, 65_537])
def test_the_blocks_do_not_depend_on_how_much_is_read_at_a_time(tmp_path, monkeypatch, chunk):
    from chatmem.importers import android_sms_blocks

    path = write(tmp_path / "sms.xml", items())
    whole, _ = scan(path, legacy=True)
    monkeypatch.setattr(android_sms_blocks, "CHUNK", chunk)
    pieces, _ = scan(path, legacy=True)
    assert whole is not None and pieces is not None and len(whole.blocks) >= 3
    assert pieces.blocks == whole.blocks
