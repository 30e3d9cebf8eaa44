"""Progress says the time left for every importer whose reading takes long (issue 19: "progress
with time left for every phase"): each announces how many records it expects before the first
one, and the figure is close to what it then yields."""

from __future__ import annotations

from pathlib import Path

import pytest

from chatmem.importers import find_sources
from chatmem.importers.estimate import count_lines, count_matches
from chatmem.records import Estimate, ImportOptions, Message, Problem

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.mark.parametrize("where, platform", [
    ("jsonl/notes-from-telegram.jsonl", "jsonl"),
    ("telegram", "telegram"),
    ("signal/phone-export", "signal"),
    ("signal/sigexport", "signal"),
])
def test_an_importer_without_a_count_up_front_announces_one(where, platform):
    sources = find_sources(FIXTURES / where, platform)
    assert sources, f"no source found in {where}"
    for path, importer in sources:
        records = list(importer.read(path, ImportOptions()))
        estimates = [r.records for r in records if isinstance(r, Estimate)]
        yielded = sum(isinstance(r, (Message, Problem)) for r in records)
        assert estimates and records.index(next(r for r in records if isinstance(r, Estimate))) <= 1
        # about right: a progress line's time left is worth having, not exact
        assert yielded * 0.5 <= sum(estimates) <= yielded * 2 + 10, (path, estimates, yielded)


def test_counting_reads_in_blocks_and_across_them(tmp_path):
    f = tmp_path / "big.json"
    line = b'  {"id": 1, "type": "message", "text": "x"},\n'
    f.write_bytes(line * 50_000)  # about 2.3 MB: several blocks, matches across block ends
    assert count_matches([f], rb'"type":\s*"(?:message|service)"') == 50_000
    assert count_lines([f]) == 50_000
    one_line = tmp_path / "minified.json"  # no line breaks at all: counted the same
    one_line.write_bytes(b"[" + b'{"type":"message"},' * 400_000 + b"{}]")
    assert count_matches([one_line], rb'"type":\s*"(?:message|service)"') == 400_000
    assert count_lines([tmp_path / "missing.json"]) == 0


def test_the_import_progress_of_a_json_lines_file_knows_its_total(tmp_path, config):
    from chatmem.store import Store

    f = tmp_path / "notes.jsonl"
    f.write_text("".join(
        f'{{"platform": "telegram", "chat": "Notes", "sender": "me", '
        f'"timestamp": "2024-01-01T10:{i // 60:02d}:{i % 60:02d}+00:00", "text": "note {i}"}}\n'
        for i in range(3000)), encoding="utf-8")
    seen: list[tuple[int, int | None]] = []
    with Store.open(tmp_path / "home", config) as store:
        store.import_sources(find_sources(f), on_progress=lambda n, total=None, phase=None:
                             seen.append((n, total)) if phase is None else None)
    totals = {total for _, total in seen if total is not None}
    assert totals == {3000}, seen[:5]  # what the progress line turns into "about Ns left"
