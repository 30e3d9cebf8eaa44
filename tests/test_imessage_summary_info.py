"""Edits and unsends from real message_summary_info plists (corpus EXPECTED.md section B)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chatmem.importers.imessage.summary_info import parse_summary_info

SAMPLES = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "imessage" / "message_summary_info"


def info(name: str):
    path = SAMPLES / f"{name}.plist"
    if not path.is_file():
        pytest.skip("corpus absent")
    return parse_summary_info(path.read_bytes())


def history(name: str, part: int) -> list[str]:
    return [v.text for v in info(name).versions if v.part == part]


def test_edited_keeps_every_version_oldest_first() -> None:
    assert history("Edited", 0) == ["First message  ", "Edit 1", "Edit 2", "Edited message"]
    parsed = info("Edited")
    assert parsed.edited_parts == [0] and not parsed.unsent_parts
    assert [v.text for v in parsed.earlier_versions()] == ["First message  ", "Edit 1", "Edit 2"]
    times = [v.timestamp for v in parsed.versions]
    assert times == sorted(times) and times[0].year == 2022


def test_edited_to_a_link_and_back() -> None:
    assert history("EditedToLink", 1) == [
        "here we go!", "https://github.com/ReagentX/imessage-exporter/issues/10"]
    assert history("EditedToLink", 0) == []
    assert history("EditedToLinkAndBack", 0) == [
        "This is a normal message",
        "Edit to a url https://github.com/ReagentX/imessage-exporter/issues/10",
        "And edit it back to a normal message...",
    ]
    assert history("EditedWithFormatting", 0) == ["Test", "Test"]


def test_fully_unsent() -> None:
    parsed = info("Deleted")
    assert parsed.unsent_parts == [0] and parsed.fully_unsent and not parsed.edited


def test_one_part_of_several_unsent() -> None:
    parsed = info("MultiPartOneDeleted")
    assert (parsed.part_count, parsed.unsent_parts, parsed.fully_unsent) == (4, [3], False)


def test_edited_and_unsent_parts_together() -> None:
    assert history("EditedAndDeleted", 2) == ["Second message", "Second message got edited!"]
    parsed = info("EditedAndUnsent")
    assert history("EditedAndUnsent", 2) == ["Second test", "Second test was edited!"]
    assert (parsed.edited_parts, parsed.unsent_parts, parsed.fully_unsent) == ([2], [3], False)


def test_unreadable_plist_is_a_problem_not_a_crash() -> None:
    parsed = parse_summary_info(b"bplist00\x00\x01broken")
    assert parsed.problems and not parsed.edited
