"""SMS exports in SMS Backup & Restore's layout written by other apps (Signal's and Silence's
plaintext export): emoji written as two references to UTF-16 halves ("&#55357;&#56396;", which
XML forbids and which stopped the whole import) are read as the emoji; a half alone becomes
U+FFFD and the message is kept. fixtures/android-plaintext is our own file in that layout."""

from __future__ import annotations

from pathlib import Path

from resume_helpers import import_path, later, store_rows

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "android-plaintext" / "SignalPlaintextBackup.xml"


def test_emoji_written_as_surrogate_halves_import_as_emoji(tmp_path, cli):
    cli("import", FIXTURE)
    texts = {r["content"] for r in cli.json("search", "rope")["results"]}
    assert any("Yes 🏔️\nbring the rope 🪢" in t for t in texts), texts
    shown = cli("search", "Summit").output
    assert "Summit at noon? 👌" in shown
    family = cli.json("search", "Family")["results"]
    assert family and family[0]["content"].endswith("Family: 👨\u200d👩\u200d👧")
    cut = cli.json("search", "cut off")["results"]
    assert cut and cut[0]["content"].endswith("half a smiley \ufffd cut off")
    assert cli.json("stats")["messages"] == 5


def test_a_reimport_of_it_changes_nothing(tmp_path):
    copy = tmp_path / FIXTURE.name
    copy.write_bytes(FIXTURE.read_bytes())
    home = tmp_path / "home"
    assert import_path(home, copy)["messages"]["new"] == 5
    before = store_rows(home)
    later(copy)
    assert import_path(home, copy, force=True)["messages"] == {"new": 0, "updated": 0, "unchanged": 5}
    assert store_rows(home) == before
