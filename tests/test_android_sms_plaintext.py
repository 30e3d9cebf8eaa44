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


# Signal's plaintext export with the group of each message (Signal-Android PR #4925's layout):
# `thread_address="__textsecure_group__!<id>"` beside the sender's number in `address`; a message
# you sent to the group has the group's id in `address`. fixtures/android-plaintext has our own.
GROUPS = FIXTURE.with_name("SignalPlaintextBackup-groups.xml")
GROUP = "__textsecure_group__!5e1a0c9b77d24f0e8a31c6b2d94f7a10"


def _chats(home: Path) -> dict[str, tuple[bool, list[tuple[str, str | None, str]]]]:
    """Each chat's name: (a group?, its messages' (sender, sender's number, text) in order)."""
    from chatmem.config import load_config
    from chatmem.store import Store

    out: dict[str, tuple[bool, list[tuple[str, str | None, str]]]] = {}
    with Store.open(home, load_config()) as store, store.read() as conn:
        for name, group, sender, handle, text in conn.exec_driver_sql(
                "SELECT c.name, c.is_group, m.sender, m.sender_handle, m.text FROM messages m "
                "JOIN chats c ON c.id = m.chat_id ORDER BY m.sent_at"):
            out.setdefault(name, (bool(group), []))[1].append((sender, handle, text))
    return out


def test_a_signal_group_is_one_chat_with_its_senders(tmp_path):
    home = tmp_path / "home"
    assert import_path(home, GROUPS)["messages"]["new"] == 8
    chats = _chats(home)
    assert set(chats) == {"Signal group 5e1a0c9b", "+15550100001"}
    group, said = chats["Signal group 5e1a0c9b"]
    assert group and said == [
        ("+15550100001", "+15550100001", "Who is bringing the tent to the lake?"),
        ("+15550100002", "+15550100002", "I have the big tent, and the stove"),
        ("me", None, "Great, I will bring the kayak paddles"),
        ("+15550100001", "+15550100001", "Leaving at seven on Saturday"),
        ("me", None, "Ben, can you pick me up on the way?"),
        ("+15550100002", "+15550100002", "Sure, around quarter to seven")]
    assert chats["+15550100001"] == (False, [
        ("+15550100001", "+15550100001", "Did you get the lake permit?"),
        ("me", None, "Yes, printed it this morning")])


def test_messages_of_an_export_without_groups_keep_their_ids(tmp_path):
    """Ids a user may have kept (links, notes) stay what earlier versions gave: the fixture
    without `thread_address`, and the one-to-one messages beside a group."""
    import_path(tmp_path / "plain", FIXTURE)
    assert {r[0] for r in store_rows(tmp_path / "plain")["messages"]} == {
        "m_abf83031f032005f", "m_d3cdf408f9b03ad1", "m_67230f12c940cfe3", "m_ef4074d8151b9bfa",
        "m_61f5c3c0adfcdd79"}
    without = tmp_path / "without-group.xml"
    without.write_text("\n".join(line for line in GROUPS.read_text(encoding="utf-8").splitlines()
                                 if GROUP not in line and "<part" not in line and "parts>" not in line
                                 and "</mms>" not in line) + "\n", encoding="utf-8")
    import_path(tmp_path / "without", without)
    import_path(tmp_path / "with", GROUPS)
    alone = store_rows(tmp_path / "without")["messages"]
    assert len(alone) == 2 and alone <= store_rows(tmp_path / "with")["messages"]


def test_a_reimport_of_a_longer_group_export_reads_only_the_new_blocks(tmp_path):
    """Thousands of group messages (the file cut into blocks): a newer export re-imported reads
    its new blocks and puts the new messages in the same group chat, as a whole read does."""
    from android_sms_builders import ANNA, BEN, mms, sms, text_part
    from test_android_sms_resume import parsed, reimport_equals_whole, write

    def element(i: int) -> str:
        minutes = i * 0.0173  # about a second apart, as phones write them
        if i % 5 == 0:  # one of yours, to the group
            return mms(minutes, 2, GROUP, "null", [text_part(f"my note {i} on the lake trip")], [])
        if i % 7 == 0:  # one-to-one
            return sms(minutes, ANNA, 1, f"just to you {i}", "Anna Berg")
        return sms(minutes, (ANNA, BEN)[i % 2], 1, f"group message {i}", thread_address=GROUP)

    path = write(tmp_path / "sms" / "SignalPlaintextBackup.xml", [element(i) for i in range(3000)])
    home = tmp_path / "home"
    assert import_path(home, path)["messages"]["new"] == 3000
    report = reimport_equals_whole(tmp_path, home, path, [element(i) for i in range(3030)])
    assert report["messages"]["new"] == 30
    read, blocks = parsed(report)
    assert read < blocks
    chats = _chats(home)
    assert set(chats) == {"Signal group 5e1a0c9b", "Anna Berg"}
    said = chats["Signal group 5e1a0c9b"][1]
    assert len(said) == 3030 - len(chats["Anna Berg"][1])
    assert {(s, t.split()[0]) for s, _, t in said} == {("me", "my"), (ANNA, "group"), (BEN, "group")}
