"""A file called main.jsonl is a Signal export from the phone only when its lines are Signal's
backup frames: detection reads its first line, as for every other format. Our own JSON Lines
under that name imports as JSON Lines; a main.jsonl that is neither says so in one line naming
the file and the line, with a non-zero exit and nothing stored."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chatmem.errors import FormatError
from chatmem.importers import find_sources

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_our_json_lines_named_main_jsonl_import_as_json_lines(tmp_path, cli):
    folder = tmp_path / "notes"
    folder.mkdir()
    shutil.copy(next((FIXTURES / "jsonl").glob("*.jsonl")), folder / "main.jsonl")
    for path in (folder, folder / "main.jsonl"):
        (found,) = find_sources(path)
        assert found[1].platform == "jsonl"
    cli("import", folder / "main.jsonl")
    assert "Zugspitze" in cli("search", "Zugspitze").output


def test_signal_exports_are_still_found(tmp_path):
    for name in ("phone-export", "phone-export-small"):
        (found,) = find_sources(FIXTURES / "signal" / name)
        assert found[1].platform == "signal"


@pytest.mark.parametrize("content, says", [
    ('\n\nnot json at all\n', "line 3 is not JSON"),
    ('', "empty: no backup frame"),
    ('[1, 2]\n', "line 1 is not a Signal backup frame (it has list"),
])
def test_a_wrong_main_jsonl_is_one_clear_message(tmp_path, cli, content, says):
    folder = tmp_path / "signal-export"
    folder.mkdir()
    main = folder / "main.jsonl"
    main.write_text(content)
    for path, platform in ((main, None), (folder, None), (main, "signal"), (folder, "signal")):
        args = ["import", path] + (["--platform", platform] if platform else [])
        result = cli(*args, expect=None)
        assert result.exit_code != 0, result.output
        assert "Traceback" not in result.output
        assert f"{main}: not a Signal export from the phone: {says}" in result.output, result.output
    with pytest.raises(FormatError):
        find_sources(main)


@pytest.mark.parametrize("content", ['{"hello": "world"}\n', '{"chat": "Anna Berg", "text": "hi"}\n'])
def test_objects_that_are_not_frames(tmp_path, cli, content):
    """Lines of JSON objects are JSON Lines to chatmem (its own format): imported as such, the
    line it cannot read reported and kept; asked for as Signal, one line says why not."""
    main = tmp_path / "main.jsonl"
    main.write_text(content)
    (found,) = find_sources(main)
    assert found[1].platform == "jsonl"
    result = cli("import", main, "--platform", "signal", expect=None)
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert f"{main}: not a Signal export from the phone: line 1 is not a Signal backup frame" in result.output
