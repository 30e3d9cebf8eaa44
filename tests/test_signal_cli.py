"""`chatmem import` over our Signal fixtures, end to end: a second import adds nothing."""

from __future__ import annotations


def test_importing_the_signal_fixtures_twice_adds_nothing(cli, fixtures_dir):
    first = cli.json("import", fixtures_dir / "signal")
    assert {r["path"].rsplit("/", 1)[-1] for r in first} == {"sigexport", "signal-desktop.sqlite"}
    assert all(r["status"] == "ok" and not r["problems"] and not r["unparsed"] for r in first)
    assert sum(r["messages"]["new"] for r in first) == 22  # 9 are in both exports
    assert sum(r["calls"]["new"] for r in first) == 3

    again = cli.json("import", fixtures_dir / "signal", "--force")  # read again, not skipped
    assert sum(r["messages"]["new"] + r["messages"]["updated"] for r in again) == 0
    assert sum(r["calls"]["new"] + r["calls"]["updated"] for r in again) == 0
    assert sum(r["messages"]["unchanged"] for r in again) == 31  # each export finds its own


def test_imported_signal_messages_are_searchable_with_their_chat(cli, fixtures_dir):
    cli("import", fixtures_dir / "signal" / "signal-desktop.sqlite")
    found = cli.json("search", "drive")["results"]
    assert sorted((r["chat"], r["sender"], r["platform"]) for r in found) == [
        ("Ben Ortiz", "Ben Ortiz", "signal"),
        ("Ben Ortiz", "me", "signal"),
    ]
