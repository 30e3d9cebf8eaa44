"""Symbolic links in a folder import (issue 18, point 1).

Before: two links to the folder itself hung `chatmem import` (and `sync`) forever, a link to
itself was followed 40 levels deep, and a link to a file outside the folder was imported as
part of the export. Now a folder walk follows no link: it never leaves the folder or goes round
in circles, each link met is listed in the report (status `skipped`), and a link is imported
only when it is named on the command line.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ANNA = ROOT / "fixtures" / "whatsapp" / "WhatsApp Chat with Anna Berg.txt"
NORA = ROOT / "fixtures" / "whatsapp" / "WhatsApp Chat with Nora Quinn.txt"
SIGEXPORT = ROOT / "fixtures" / "signal" / "sigexport"
WALK_SECONDS = 30  # far more than a walk of a few files needs; a loop would never end


@contextmanager
def no_hang(seconds: int = WALK_SECONDS):
    def on_alarm(signum, frame):
        raise AssertionError(f"still walking after {seconds} s: a symlink loop was followed")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def exports(tmp_path) -> Path:
    """A folder with one real export, two links to itself, a self-loop, a link to a folder
    above it, and a link to an export outside it."""
    folder = tmp_path / "exports"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(ANNA, folder / ANNA.name)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(NORA, outside / NORA.name)
    (folder / "again").symlink_to(folder, target_is_directory=True)
    (folder / "and again").symlink_to(".", target_is_directory=True)
    (folder / "sub" / "up").symlink_to("..", target_is_directory=True)
    (folder / "loop").symlink_to(folder / "loop")  # a link to itself
    (folder / "Nora.txt").symlink_to(outside / NORA.name)
    return folder


LINKS = {"again", "and again", "up", "loop", "Nora.txt"}


def imported_chats(cli) -> set[str]:
    return {c["chat"] for c in cli.json("chats")["chats"]}


@pytest.mark.parametrize("platform", [None, "whatsapp"])
def test_a_folder_import_follows_no_link(cli, exports, platform):
    args = ["import", "--json", *(["--platform", platform] if platform else []), str(exports)]
    with no_hang():
        reports = json.loads(cli(*args).stdout)
    imported = [r for r in reports if r["status"] == "ok"]
    assert [Path(r["path"]).name for r in imported] == [ANNA.name]
    skipped = {Path(r["path"]).name for r in reports if r["status"] == "skipped"}
    assert skipped == LINKS
    assert all("symbolic link" in r["notes"][0] for r in reports if r["status"] == "skipped")
    assert imported_chats(cli) == {"Anna Berg"}  # nothing from outside the folder


def test_skipped_links_are_listed_in_the_readable_report(cli, exports):
    with no_hang():
        output = cli("import", str(exports)).stdout
    for name in LINKS:
        assert f"{exports}" in output and f"{name}: skipped" in output


def test_a_link_named_on_the_command_line_is_followed(cli, exports):
    reports = json.loads(cli("import", "--json", str(exports / "Nora.txt")).stdout)
    assert reports[0]["status"] == "ok" and reports[0]["messages"]["new"] > 0
    assert imported_chats(cli) == {"Nora Quinn"}


def test_a_folder_named_through_a_link_is_walked(cli, exports, tmp_path):
    (tmp_path / "shortcut").symlink_to(exports, target_is_directory=True)
    with no_hang():
        cli("import", str(tmp_path / "shortcut"))
    assert imported_chats(cli) == {"Anna Berg"}


def test_sync_after_a_folder_import_ends(cli, exports):
    with no_hang():
        cli("import", str(exports))
        reports = cli.json("sync")
    assert [r["status"] for r in reports] == ["unchanged"]


def test_a_folder_of_links_only_says_so(cli, tmp_path):
    folder = tmp_path / "links"
    folder.mkdir()
    (folder / "Anna.txt").symlink_to(ANNA)
    result = cli("import", str(folder), expect=1)
    assert "no recognised chat export" in result.stderr and "1 symbolic link" in result.stderr


def test_a_dangling_link_named_on_the_command_line(cli, tmp_path):
    (tmp_path / "gone.txt").symlink_to(tmp_path / "missing.txt")
    result = cli("import", str(tmp_path / "gone.txt"), expect=1)
    assert "gone.txt" in result.stderr and "symbolic link" in result.stderr


def test_a_linked_chat_folder_in_a_signal_export_is_not_read(cli, tmp_path):
    export = tmp_path / "signal-export"
    shutil.copytree(SIGEXPORT / "Anna Berg", export / "Anna Berg")
    shutil.copytree(SIGEXPORT / "Hiking Club", tmp_path / "private" / "Hiking Club")
    os.symlink(tmp_path / "private" / "Hiking Club", export / "Hiking Club")
    reports = cli.json("import", "--platform", "signal", str(export))
    assert imported_chats(cli) == {"Anna Berg"}
    assert any("Hiking Club" in n and "symbolic link" in n for n in reports[0]["notes"])
