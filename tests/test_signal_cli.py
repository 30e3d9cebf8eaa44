"""`chatmem import` over our Signal fixtures, end to end: a second import adds nothing."""

from __future__ import annotations


def test_importing_the_signal_fixtures_twice_adds_nothing(cli, fixtures_dir):
    # four readers' exports of the same conversations: each message is stored once
    config = ("--config", str(fixtures_dir / "config.yaml"))  # sigexport writes local times
    first = imported(cli.json(*config, "import", fixtures_dir / "signal"))
    assert {r["path"].rsplit("/", 1)[-1] for r in first} == {
        "phone-export", "phone-export-small", "sigexport", "signal-desktop.sqlite"}
    assert all(r["status"] == "ok" and not r["problems"] and not r["unparsed"] for r in first)
    # the phone's export has 34; sigexport adds its second "Hello!", the rest is known
    assert [r["messages"]["new"] for r in first] == [34, 0, 1, 0]
    assert sum(r["calls"]["new"] for r in first) == 4

    again = imported(cli.json(*config, "import", fixtures_dir / "signal", "--force"))  # read, not skipped
    assert sum(r["messages"]["new"] + r["messages"]["updated"] for r in again) == 0
    assert sum(r["calls"]["new"] + r["calls"]["updated"] for r in again) == 0
    assert [r["messages"]["unchanged"] for r in again] == [34, 6, 10, 21]  # each finds its own


def test_imported_signal_messages_are_searchable_with_their_chat(cli, fixtures_dir):
    cli("import", fixtures_dir / "signal" / "signal-desktop.sqlite")
    found = cli.json("search", "drive")["results"]
    assert sorted((r["chat"], r["sender"], r["platform"]) for r in found) == [
        ("Ben Ortiz", "Ben Ortiz", "signal"),
        ("Ben Ortiz", "me", "signal"),
    ]


def imported(reports: list[dict]) -> list[dict]:
    """The sources' reports, without the folder's files that are not exports (status skipped)."""
    return [r for r in reports if r["status"] != "skipped"]
