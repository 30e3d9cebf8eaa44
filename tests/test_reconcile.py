"""One conversation, however many exports or readers hold it (issue 16, item 5).

Two readers of one platform holding the same chat give one chat with each message once, the
richer record kept, in either import order; re-importing either source adds nothing.
Regression: the bundled fixtures showed two "Anna Berg" and two "Hiking Club" Signal chats, and
the quick start's search listed one message twice.
"""

from __future__ import annotations

import sqlite3
import zipfile
from pathlib import Path

import pytest

from chatmem.records import message_id_from_guid

DESKTOP_ANNA_FIRST = message_id_from_guid("signal", "00000000-5160-4000-8000-000000000001")


def view(home: Path, platform: str) -> list[tuple]:
    """Everything a user sees of a platform's messages, ids left out (they depend on order)."""
    db = sqlite3.connect(home / "chatmem.db")
    try:
        rows = db.execute(
            "SELECT c.name, m.sender, m.sent_at, m.text, m.kind, m.deleted, m.edited,"
            " (SELECT group_concat(coalesce(a.name, '?') || '|' || coalesce(a.path, '-'), ',')"
            "  FROM attachments a WHERE a.message_id = m.id),"
            " (SELECT group_concat(r.sender || r.emoji, ',') FROM"
            "  (SELECT * FROM reactions r WHERE r.message_id = m.id ORDER BY r.sender, r.emoji) r),"
            " (SELECT count(*) FROM message_versions v WHERE v.message_id = m.id),"
            " m.reply_to IS NOT NULL OR json_extract(m.extra, '$.quote') IS NOT NULL"
            " FROM messages m JOIN chats c ON c.id = m.chat_id WHERE m.platform = ?"
            " ORDER BY m.sent_at, c.name, m.sender, m.text", (platform,)).fetchall()
        calls = db.execute(
            "SELECT c.name, k.started_at, k.direction, k.media, k.duration FROM calls k"
            " JOIN chats c ON c.id = k.chat_id WHERE k.platform = ? ORDER BY 2, 1", (platform,)
        ).fetchall()
    finally:
        db.close()
    return rows + calls


def chat_names(cli, platform: str) -> list[str]:
    return sorted(c["chat"] for c in cli.json("chats", "--platform", platform)["chats"])


@pytest.fixture
def signal_sources(fixtures_dir) -> list[Path]:
    return [fixtures_dir / "signal" / "sigexport", fixtures_dir / "signal" / "signal-desktop.sqlite"]


@pytest.mark.parametrize("order", [(0, 1), (1, 0)], ids=["sigexport-first", "desktop-first"])
def test_one_signal_conversation_from_two_readers(cli, fixtures_dir, signal_sources, order, tmp_path):
    config = ("--config", str(fixtures_dir / "config.yaml"))
    for i in order:
        cli(*config, "import", signal_sources[i])
    assert chat_names(cli, "signal") == ["Anna Berg", "Ben Ortiz", "Hiking Club"]

    # each message once: the photo with its caption, the reply, the deleted one...
    rows = view(cli.home, "signal")
    texts = [(r[0], r[1], r[3]) for r in rows if len(r) > 5]
    assert texts.count(("Anna Berg", "Anna Berg", "The view from the top")) == 1
    assert texts.count(("Anna Berg", "me", "Yes! Trailhead at 9.")) == 1
    assert texts.count(("Hiking Club", "Anna Berg", "Hi all 👋")) == 1
    # ...kept at its richest: the desktop's attachment facts and edit history, both readers'
    # reactions, the quote linked
    photo = next(r for r in rows if r[3] == "The view from the top")
    assert photo[4] == "media" and photo[7].startswith("trail.jpg|")
    assert "😍" in photo[8]
    edited = next(r for r in rows if r[3] == "See you at 9:30 then")
    assert edited[6] and edited[9] == 1
    assert next(r for r in rows if r[3].startswith("Perfect, I'll bring coffee"))[10]
    # the Anna call is one call
    assert sum(1 for r in rows if len(r) == 5 and r[0] == "Anna Berg" and r[2] == "incoming") == 1

    # the quick start's search lists the message once
    found = cli.json(*config, "search", "coffee", "--platform", "signal")["results"]
    assert len(found) == 1

    # both readers' ids lead to the one message
    raw = cli.json(*config, "raw", DESKTOP_ANNA_FIRST)
    assert raw["ok"] and "Are we still on for Saturday?" in raw["content"]
    assert "--- also in " in raw["content"]  # every source it came from

    # re-importing either source adds nothing, and changes nothing
    before = view(cli.home, "signal")
    for i in (0, 1):
        again = cli.json(*config, "import", signal_sources[i], "--force")
        assert all(r["messages"]["new"] == r["messages"]["updated"] == 0 for r in again)
        assert all(r["calls"]["new"] == r["calls"]["updated"] == 0 for r in again)
    assert view(cli.home, "signal") == before


def test_import_order_does_not_change_what_a_user_sees(cli, fixtures_dir, signal_sources, tmp_path):
    from conftest import Cli

    seen = []
    for n, order in enumerate(((0, 1), (1, 0))):
        other = Cli(tmp_path / f"home{n}")
        for i in order:
            other("--config", str(fixtures_dir / "config.yaml"), "import", signal_sources[i])
        seen.append(view(other.home, "signal"))
    assert seen[0] == seen[1]


def test_the_bundled_fixtures_show_each_signal_chat_once(cli, fixtures_dir):
    cli("--config", str(fixtures_dir / "config.yaml"), "import", fixtures_dir)
    signal = chat_names(cli, "signal")
    assert signal.count("Anna Berg") == 1 and signal.count("Hiking Club") == 1
    found = cli.json("--config", str(fixtures_dir / "config.yaml"), "search", "coffee")["results"]
    assert len({(r["platform"], r["chat"], r["content"]) for r in found}) == len(found)


def test_two_readers_never_merge_two_different_people_of_one_name(cli, tmp_path, fixtures_dir):
    # a signal-export folder named like a desktop chat, but a group where the desktop has a 1:1
    folder = tmp_path / "export" / "Ben Ortiz"
    folder.mkdir(parents=True)
    (folder / "chat.md").write_text("", encoding="utf-8")
    (folder / "data.json").write_text(
        '{"date": "2024-03-02T10:40:00", "sender": "Ben Ortiz", "body": "Ben, can you drive on Saturday?"}\n'
        '{"date": "2024-03-02T10:41:00", "sender": "Someone Else", "body": "hi"}\n',
        encoding="utf-8")
    cli("import", fixtures_dir / "signal" / "signal-desktop.sqlite")
    cli("import", tmp_path / "export")
    assert chat_names(cli, "signal").count("Ben Ortiz") == 2


WA_NAME = "WhatsApp Chat with Anna Berg"
WA_LINES = ("12/03/2024, 10:00 - Anna Berg: Hello there\n"
            "12/03/2024, 10:01 - Anna Berg: {media}\nLook at this\n"
            "12/03/2024, 10:02 - Sam Rivera: Nice\n")


def _whatsapp_exports(tmp_path: Path) -> list[Path]:
    """The same chat exported twice: with media (a zip) and without (a .txt)."""
    bare = tmp_path / "without" / f"{WA_NAME}.txt"
    bare.parent.mkdir()
    bare.write_text(WA_LINES.format(media="<Media omitted>"), encoding="utf-8")
    rich = tmp_path / "with" / f"{WA_NAME}.zip"
    rich.parent.mkdir()
    with zipfile.ZipFile(rich, "w") as z:
        z.writestr(f"{WA_NAME}.txt",
                   WA_LINES.format(media="IMG-20240312-WA0001.jpg (file attached)"))
        z.writestr("IMG-20240312-WA0001.jpg", b"\xff\xd8jpeg")
    return [bare, rich]


@pytest.mark.parametrize("order", [(0, 1), (1, 0)], ids=["bare-first", "media-first"])
def test_two_whatsapp_exports_one_with_media_keep_the_media(cli, tmp_path, fixtures_dir, order):
    config = ("--config", str(fixtures_dir / "config.yaml"))
    exports = _whatsapp_exports(tmp_path)
    for i in order:
        cli(*config, "import", exports[i])
    rows = view(cli.home, "whatsapp")
    assert [r[3] for r in rows] == ["Hello there", "Look at this", "Nice"]
    assert rows[1][7].startswith("IMG-20240312-WA0001.jpg|") and not rows[1][7].endswith("|-")
    for i in (0, 1):
        again = cli.json(*config, "import", exports[i], "--force")
        assert again[0]["messages"]["new"] == again[0]["messages"]["updated"] == 0
    assert view(cli.home, "whatsapp") == rows


@pytest.mark.parametrize("order", [("mac", "phone"), ("phone", "mac")])
def test_a_macs_chat_db_and_an_iphone_backup_give_one_chat(cli, tmp_path, order):
    from imessage_builders import GEN_2023, build_backup, build_chat_db

    paths = {"mac": tmp_path / "chat.db", "phone": tmp_path / "backup"}
    build_chat_db(paths["mac"], GEN_2023)
    build_backup(paths["phone"], GEN_2023)
    for name in order:
        cli("import", paths[name])
    rows = view(cli.home, "imessage")
    single = view_after_one(tmp_path, paths["mac"])
    assert len([r for r in rows if len(r) > 5]) == len([r for r in single if len(r) > 5])
    chats = cli.json("chats", "--platform", "imessage")["chats"]
    assert len(chats) == len({(c["chat"], c["group"]) for c in chats})
    for name in order:
        again = cli.json("import", paths[name], "--force")
        assert sum(r["messages"]["new"] for r in again) == 0


def view_after_one(tmp_path: Path, source: Path) -> list[tuple]:
    from conftest import Cli

    one = Cli(tmp_path / "single")
    one("import", source)
    return view(one.home, "imessage")



def test_a_message_after_a_later_one_is_still_matched_in_its_own_batch(cli, tmp_path, fixtures_dir,
                                                                       monkeypatch):
    """A chat's newest stored time answers the batches newer than it without a query: a later
    batch of the same chat that goes back in time (a phone's clock set back) is still matched
    against the other reader's messages of that time, each shown once."""
    import shutil

    monkeypatch.setattr("chatmem.store.ingest.BATCH", 1)  # one message a batch
    config = ("--config", str(fixtures_dir / "config.yaml"))
    export = tmp_path / "sigexport"
    shutil.copytree(fixtures_dir / "signal" / "sigexport", export)
    data = export / "Anna Berg" / "data.json"
    data.write_text('{"date": "2024-03-09T10:00:00", "sender": "Anna Berg", "body": "After the clock fix"}\n'
                    + data.read_text(encoding="utf-8"), encoding="utf-8")
    cli(*config, "import", fixtures_dir / "signal" / "signal-desktop.sqlite")
    cli(*config, "import", export)
    rows = [r for r in view(cli.home, "signal") if len(r) > 5]
    anna = [(r[2], " ".join((r[3] or "").split())) for r in rows if r[0] == "Anna Berg"]
    assert len(anna) == len(set(anna)) and [t for _, t in anna].count("After the clock fix") == 1
    again = cli.json(*config, "import", export, "--force")
    assert again[0]["messages"]["new"] == again[0]["messages"]["updated"] == 0
