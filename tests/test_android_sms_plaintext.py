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


def test_saved_as_utf16_by_a_windows_shell_it_imports_the_same(tmp_path):
    """signal-back's output redirected with PowerShell's `>` is UTF-16 with a byte order mark
    (and its declaration still says UTF-8): the same messages as the UTF-8 file."""
    utf16 = tmp_path / "sms16.xml"
    text = FIXTURE.read_text(encoding="utf-8").replace("\n", "\r\n")
    utf16.write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    import_path(tmp_path / "a", utf16)
    import_path(tmp_path / "b", FIXTURE)
    mine, reference = store_rows(tmp_path / "a")["messages"], store_rows(tmp_path / "b")["messages"]
    assert {r[2:9] for r in mine} == {r[2:9] for r in reference} and len(mine) == 5


def test_a_reference_cut_by_a_read_is_joined(tmp_path, monkeypatch):
    """The file read whole (one it cannot cut into blocks: a DOCTYPE here) in reads of a few
    bytes, so that references fall across reads."""
    from chatmem.importers import android_sms_blocks

    monkeypatch.setattr(android_sms_blocks, "CHUNK", 7)
    doc = tmp_path / "SignalPlaintextBackup.xml"
    text = FIXTURE.read_text(encoding="utf-8")
    doc.write_text(text.replace("<smses", "<!DOCTYPE smses>\n<smses", 1), encoding="utf-8")
    import_path(tmp_path / "a", doc)
    import_path(tmp_path / "b", FIXTURE)
    texts = {r[5] for r in store_rows(tmp_path / "a")["messages"]}
    assert texts == {r[5] for r in store_rows(tmp_path / "b")["messages"]}
    assert "Summit at noon? 👌" in texts
