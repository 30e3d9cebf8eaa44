"""Attachments an assistant can see: each importer records where the file is (present or not),
and read_attachment returns it within bounds — through the tool, the CLI and the MCP SDK's own
client — for the seats that may, and as an unknown id for the seats that may not."""

from __future__ import annotations

import base64
import io
import shutil
import zipfile
from pathlib import Path

import pytest
from media_samples import pdf_document, photo
from PIL import Image
from server_helpers import chatmem, session, stdio_client
from sqlalchemy import select

from chatmem.config import load_config
from chatmem.errors import ArgumentError
from chatmem.importers import find_sources
from chatmem.store import Store
from chatmem.store.models import Attachment
from chatmem.tools.attachments import read_attachment

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CONFIG = load_config(FIXTURES / "config.yaml")
OWNER, ASSISTANT, NOTEBOOK = CONFIG.seat(None), CONFIG.seat("assistant"), CONFIG.seat("notebook")
SOURCES = [
    FIXTURES / "whatsapp" / "WhatsApp Chat - Ben Ortiz.zip",
    FIXTURES / "whatsapp" / "WhatsApp Chat with Anna Berg.txt",
    FIXTURES / "signal" / "signal-desktop.sqlite",
    FIXTURES / "signal" / "sigexport",
    FIXTURES / "imessage" / "chat.db",
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    store = Store.open(tmp_path_factory.mktemp("attachments") / "home", CONFIG)
    for path in SOURCES:
        store.import_sources(find_sources(path))
    yield store
    store.close()


def attachment(store: Store, name: str | None, platform: str | None = None,
               present: bool | None = None):
    """The attachment row with this file name (on this platform)."""
    from chatmem.store.models import Message

    at, mt = Attachment.__table__, Message.__table__
    q = select(at, mt.c.platform).join(mt, mt.c.id == at.c.message_id).where(
        at.c.name == name if name is not None else at.c.name.is_(None))
    if platform:
        q = q.where(mt.c.platform == platform)
    if present is not None:
        q = q.where(at.c.present.is_(present))
    with store.read() as conn:
        rows = conn.execute(q).all()
    assert rows, f"no attachment {name!r} on {platform or 'any platform'}"
    return rows[0]


def image_of(result: dict) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(result["image"]["data"])))


# ---------------------------------------------------------------- where the file is


def test_every_importer_records_present_and_missing_files(store):
    wa = attachment(store, "00000003-PHOTO-2024-03-02-18-04-11.jpg", "whatsapp")
    assert wa.present and wa.path.startswith("zip:") and wa.path.endswith("!" + wa.name)
    assert not attachment(store, "IMG-20240215-WA0007.jpg", "whatsapp").present
    signal_photo = attachment(store, "trail.jpg", "signal", present=True)
    assert signal_photo.key and Path(signal_photo.path).is_absolute()
    assert Path(signal_photo.path).read_bytes() != photo("trail")  # encrypted on disk
    assert not attachment(store, None, "signal").present  # the voice note never downloaded
    with store.read() as conn:
        by_platform = conn.execute(select(Attachment.__table__.c.present)).all()
    assert {r.present for r in by_platform} == {True, False}  # every file looked for
    im = attachment(store, "route-map.jpeg", "imessage")
    assert im.present and im.path.endswith("Attachments/4f/15/F0000001-PHOTO/route-map.jpeg")


def test_the_key_of_an_encrypted_file_never_shows_in_the_raw_record(store):
    from chatmem.tools.raw import read_raw_data

    enc = next(r for r in [attachment(store, "trail.jpg", "signal", present=True)] if r.key)
    raw = read_raw_data(store, OWNER, enc.message_id)
    assert enc.key not in raw["content"]


# ---------------------------------------------------------------- read within bounds


def test_a_photo_in_a_whatsapp_zip_comes_back_as_an_image(store):
    row = attachment(store, "00000003-PHOTO-2024-03-02-18-04-11.jpg", "whatsapp")
    result = read_attachment(store, OWNER, row.id)
    assert result["ok"] and result["present"] and result["kind"] == "image"
    assert (result["image"]["original_width"], result["image"]["original_height"]) == (480, 320)
    assert image_of(result).size == (480, 320)
    # the owner may see secrets, so the photo's location comes with it
    lat, lon = result["image"]["location"]
    assert abs(lat - 40.6892) < 0.001 and abs(lon + 74.0445) < 0.001


def test_location_and_exif_are_stripped_for_a_seat_that_may_not_see_them(store):
    row = attachment(store, "00000003-PHOTO-2024-03-02-18-04-11.jpg", "whatsapp")
    result = read_attachment(store, ASSISTANT, row.id)
    assert result["ok"] and "location" not in result["image"]
    assert 0x8825 not in image_of(result).getexif() and not image_of(result).getexif()


def test_an_encrypted_signal_desktop_photo_is_decrypted(store):
    row = attachment(store, "trail.jpg", "signal", present=True)
    result = read_attachment(store, OWNER, row.id)
    assert result["ok"] and result["kind"] == "image", result
    assert result["image"]["original_width"] == 480
    assert result.get("text") == "The view from the top"  # the caption the source kept


def test_a_pdf_is_read_as_text_a_page_at_a_time(store):
    row = attachment(store, "route.pdf", "signal")
    first = read_attachment(store, OWNER, row.id)
    assert first["kind"] == "pdf" and first["pages"] == 2 and first["has_more"] is True
    assert "Brocken via Eckerloch" in first["text"]
    second = read_attachment(store, OWNER, row.id, page=2)
    assert "narrow-gauge railway" in second["text"] and second["has_more"] is False
    with pytest.raises(ArgumentError, match="past the document"):
        read_attachment(store, OWNER, row.id, page=3)


def test_a_contact_card_is_read_as_text(store):
    row = attachment(store, "00000007-Cleo Park.vcf", "whatsapp")
    result = read_attachment(store, OWNER, row.id)
    assert result["kind"] == "text" and "FN:Cleo Park" in result["text"]


def test_a_missing_file_says_so_honestly(store):
    row = attachment(store, "IMG-20240215-WA0007.jpg", "whatsapp")
    result = read_attachment(store, OWNER, row.id)
    assert result["ok"] and result["present"] is False
    assert "not present on this machine" in result["note"] and "image" not in result


def test_max_bytes_bounds_the_image(store):
    row = attachment(store, "route-map.jpeg", "imessage")
    small = read_attachment(store, OWNER, row.id, max_bytes=3000)
    assert len(small["image"]["data"]) <= 3000
    assert small["image"]["width"] < 640 and image_of(small).width == small["image"]["width"]


def test_a_voice_note_gives_what_is_known_of_it(store):
    row = attachment(store, "00000005-AUDIO-2024-03-02-18-06-40.opus", "whatsapp")
    result = read_attachment(store, OWNER, row.id)
    assert result["kind"] == "audio" and result["present"] and "image" not in result
    assert "not turned into text" in result["note"]


# ---------------------------------------------------------------- seats


def test_outside_a_seats_scope_is_an_unknown_id(store):
    row = attachment(store, "route-map.jpeg", "imessage")  # the assistant sees no iMessage
    hidden = read_attachment(store, ASSISTANT, row.id)
    unknown = read_attachment(store, ASSISTANT, "a_0000000000000000")
    assert hidden["ok"] is False and unknown["ok"] is False
    assert hidden["error"].replace(row.id, "X") == unknown["error"].replace("a_0000000000000000", "X")


def test_a_seat_without_the_attachment_setting_gets_names_not_content(store):
    row = attachment(store, "00000003-PHOTO-2024-03-02-18-04-11.jpg", "whatsapp")
    result = read_attachment(store, NOTEBOOK, row.id)
    assert result["ok"] and result["name"] == row.name and "image" not in result
    assert "may not read attachment content" in result["note"]


# ---------------------------------------------------------------- hostile files


def _zip_export(tmp_path: Path, media: dict[str, bytes]) -> Path:
    lines = ["[3/2/24, 6:04:11 PM] Ben Ortiz: Hi"]
    for i, name in enumerate(media):
        lines.append(f"[3/2/24, 6:0{5 + i}:00 PM] Ben Ortiz: <attached: {name}>")
    path = tmp_path / "WhatsApp Chat - Hostile.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("_chat.txt", "\n".join(lines) + "\n")
        for name, data in media.items():
            zf.writestr(name, data)
    return path


def test_hostile_files_are_refused_with_a_reason(tmp_path):
    bomb = io.BytesIO()
    Image.new("1", (20_000, 20_000)).save(bomb, "PNG")  # 400 megapixels, a few KB packed
    many = pdf_document([f"page {i}" for i in range(1, 3001)])
    path = _zip_export(tmp_path, {"00000001-PHOTO-bomb.png": bomb.getvalue(),
                                  "00000002-broken.jpg": b"\xff\xd8\xff not really a jpeg",
                                  "00000003-manual.pdf": many,
                                  "00000004-notes.pdf": b"%PDF-1.4 garbage"})
    with Store.open(tmp_path / "home", CONFIG) as store:
        store.import_sources(find_sources(path))
        with store.read() as conn:
            ids = {r.name: r.id for r in conn.execute(select(Attachment.__table__))}
        bombed = read_attachment(store, OWNER, ids["00000001-PHOTO-bomb.png"])
        assert bombed["present"] and "decompression bomb" in bombed["note"] and "image" not in bombed
        broken = read_attachment(store, OWNER, ids["00000002-broken.jpg"])
        assert "unreadable" in broken["note"]
        manual = read_attachment(store, OWNER, ids["00000003-manual.pdf"], page=2999)
        assert manual["pages"] == 3000 and manual["text"].strip() == "page 2999"
        garbage = read_attachment(store, OWNER, ids["00000004-notes.pdf"])
        assert "not a readable PDF" in garbage["note"]


# ---------------------------------------------------------------- CLI and MCP


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("attach-cli") / "home"
    for path in SOURCES:
        chatmem(home, "import", str(path))
    return home


def _id(home: Path, name: str) -> str:
    with Store.open(home, CONFIG) as store:
        return attachment(store, name, present=True if name != "IMG-20240215-WA0007.jpg" else None).id


def test_cli_writes_the_original_file_decrypted(home, tmp_path):
    from click.testing import CliRunner

    from chatmem.tools.cli import cli

    out = tmp_path / "trail.jpg"
    args = ["--home", str(home), "--config", str(FIXTURES / "config.yaml")]
    r = CliRunner().invoke(cli, [*args, "attachment", _id(home, "trail.jpg"), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert out.read_bytes() == photo("trail")
    gone = CliRunner().invoke(cli, [*args, "attachment", _id(home, "IMG-20240215-WA0007.jpg"),
                                    "--out", str(tmp_path / "x.jpg")])
    assert gone.exit_code != 0 and "not present on this machine" in gone.output
    assert not (tmp_path / "x.jpg").exists()
    pdf = CliRunner().invoke(cli, [*args, "attachment", _id(home, "route.pdf")])
    assert pdf.exit_code == 0 and "Brocken via Eckerloch" in pdf.output


def test_the_mcp_client_gets_image_content(home):
    with session(stdio_client(home, seat="assistant")) as client:
        result = client.call("read_attachment",
                             attachment_id=_id(home, "00000003-PHOTO-2024-03-02-18-04-11.jpg"))
        assert not result.is_error
        images = [c for c in result.content if c.type == "image"]
        assert len(images) == 1 and images[0].mime_type == "image/jpeg"
        assert Image.open(io.BytesIO(base64.b64decode(images[0].data))).size == (480, 320)
        assert result.structured_content["image"]["width"] == 480
        assert "data" not in result.structured_content["image"]
        hidden = client.result("read_attachment", attachment_id=_id(home, "route-map.jpeg"))
        assert hidden["ok"] is False


def test_over_mcp_a_seat_without_the_attachment_setting_gets_no_content(home):
    photo_id = _id(home, "00000003-PHOTO-2024-03-02-18-04-11.jpg")
    with session(stdio_client(home, seat="notebook")) as client:
        result = client.call("read_attachment", attachment_id=photo_id)
        assert not result.is_error and not [c for c in result.content if c.type == "image"]
        data = result.structured_content
        assert data["name"] == "00000003-PHOTO-2024-03-02-18-04-11.jpg" and "image" not in data
        assert "may not read attachment content" in data["note"]


def test_sources_stay_untouched(tmp_path):
    copy = tmp_path / "signal"
    shutil.copytree(FIXTURES / "signal", copy)
    before = {p: p.stat().st_mtime_ns for p in copy.rglob("*") if p.is_file()}
    for p in before:
        p.chmod(0o444)
    with Store.open(tmp_path / "home", CONFIG) as store:
        store.import_sources(find_sources(copy / "signal-desktop.sqlite"))
        row = attachment(store, "trail.jpg", "signal", present=True)
        assert read_attachment(store, OWNER, row.id)["kind"] == "image"
    assert {p: p.stat().st_mtime_ns for p in before} == before


def test_copy_media_keeps_files_readable_when_the_export_is_gone(tmp_path):
    from click.testing import CliRunner

    from chatmem.tools.cli import cli

    export = tmp_path / "WhatsApp Chat - Ben Ortiz.zip"
    shutil.copyfile(FIXTURES / "whatsapp" / export.name, export)
    home = tmp_path / "home"
    args = ["--home", str(home), "--config", str(FIXTURES / "config.yaml")]
    plain = CliRunner().invoke(cli, [*args, "import", str(export)])
    assert plain.exit_code == 0 and not (home / "media").exists()  # nothing copied unasked
    r = CliRunner().invoke(cli, [*args, "import", str(export), "--copy-media"])
    assert r.exit_code == 0 and "copied 3 attachments" in r.output
    assert oct((home / "media").stat().st_mode & 0o777) == oct(0o700)
    assert all(oct(p.stat().st_mode & 0o777) == oct(0o600) for p in (home / "media").iterdir())
    export.unlink()
    with Store.open(home, CONFIG) as store:
        row = attachment(store, "00000003-PHOTO-2024-03-02-18-04-11.jpg", "whatsapp")
        result = read_attachment(store, OWNER, row.id)
    assert result["present"] and result["image"]["original_width"] == 480


def test_a_documents_secrets_are_masked_for_a_seat_that_may_not_see_them(tmp_path):
    path = _zip_export(tmp_path, {"00000001-codes.txt": b"Your code is 482913. Do not share it."})
    with Store.open(tmp_path / "home", CONFIG) as store:
        store.import_sources(find_sources(path))
        with store.read() as conn:
            doc = conn.execute(select(Attachment.__table__)).first()
        assert "482913" in read_attachment(store, OWNER, doc.id)["text"]
        masked = read_attachment(store, ASSISTANT, doc.id)["text"]
        assert "482913" not in masked and "[masked]" in masked


# ---------------------------------------------------------------- the type filter


def _types_of(result: dict) -> list[set[str]]:
    from chatmem.store.media import attachment_type

    return [{attachment_type(a["type"], a["name"]) for a in r.get("attachments", [])}
            for r in result["results"]]


def test_search_by_attachment_type(store):
    from chatmem.errors import QueryError
    from chatmem.tools.search import search_memory

    images = search_memory(store, OWNER, "has:image", limit=50)
    names = {a["name"] for r in images["results"] for a in r["attachments"]}
    assert {"trail.jpg", "route-map.jpeg", "00000003-PHOTO-2024-03-02-18-04-11.jpg"} <= names
    assert images["total"] > 0 and all("image" in t for t in _types_of(images))
    docs = search_memory(store, OWNER, "", attachment_type="document", limit=50)
    assert "route.pdf" in {a["name"] for r in docs["results"] for a in r["attachments"]}
    assert all("document" in t for t in _types_of(docs))
    assert not {"trail.jpg", "route-map.jpeg"} & {a["name"] for r in docs["results"] for a in r["attachments"]}
    voice = search_memory(store, OWNER, "has:voice", limit=50)  # a word people use for audio
    assert voice["total"] > 0 and all("audio" in t for t in _types_of(voice))
    # the argument and the operator both hold: a document that is also an image is none here
    assert search_memory(store, OWNER, "has:image", attachment_type="document")["total"] == 0
    # words and the type together: the photo named "trail", not the PDF about the trail
    trail = search_memory(store, OWNER, "trail has:image", limit=50)
    assert trail["total"] >= 1 and all("image" in t for t in _types_of(trail))
    with pytest.raises(QueryError, match="has:image"):
        search_memory(store, OWNER, "has:spreadsheet")
    with pytest.raises(ArgumentError, match="attachment_type must be one of"):
        search_memory(store, OWNER, "trail", attachment_type="jpeg")


def test_cli_search_by_type(home):
    from click.testing import CliRunner

    from chatmem.tools.cli import cli

    args = ["--home", str(home), "--config", str(FIXTURES / "config.yaml")]
    r = CliRunner().invoke(cli, [*args, "search", "--type", "document"])
    assert r.exit_code == 0, r.output
    assert "route.pdf" in r.output and "route-map.jpeg" not in r.output


# ---------------------------------------------------------------- links out of an export


def test_a_symbolic_link_out_of_an_export_is_never_followed(tmp_path):
    from click.testing import CliRunner

    from chatmem.tools.cli import cli

    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "secret.jpg").write_bytes(photo("boat"))  # readable, were the link followed
    export = tmp_path / "sigexport"
    shutil.copytree(FIXTURES / "signal" / "sigexport", export)
    media = export / "Anna Berg" / "media"
    trail = next(media.iterdir())
    trail.unlink()
    trail.symlink_to(outside / "secret.jpg")
    home = tmp_path / "home"
    args = ["--home", str(home), "--config", str(FIXTURES / "config.yaml")]
    r = CliRunner().invoke(cli, [*args, "import", str(export), "--copy-media"])
    assert r.exit_code == 0, r.output
    with Store.open(home, CONFIG) as store:
        row = attachment(store, "trail.jpg", "signal")
        assert row.present is False and row.copied is None  # not present, nothing copied
        result = read_attachment(store, OWNER, row.id)
    assert result["ok"] and result["present"] is False and "image" not in result
    assert "refused" in result["note"] and "symbolic link leading outside the export" in result["note"]
    out = CliRunner().invoke(cli, [*args, "attachment", row.id, "--out", str(tmp_path / "x.jpg")])
    assert out.exit_code != 0 and "symbolic link leading outside the export" in out.output
    assert not (tmp_path / "x.jpg").exists()
    assert not (home / "media").exists() or not list((home / "media").iterdir())


def test_a_file_swapped_for_a_link_after_the_import_is_refused(tmp_path):
    from click.testing import CliRunner

    from chatmem.tools.cli import cli

    outside = tmp_path / "elsewhere.txt"
    outside.write_text("not part of any chat")
    export = tmp_path / "sigexport"
    shutil.copytree(FIXTURES / "signal" / "sigexport", export)
    home = tmp_path / "home"
    args = ["--home", str(home), "--config", str(FIXTURES / "config.yaml")]
    assert CliRunner().invoke(cli, [*args, "import", str(export)]).exit_code == 0
    trail = next((export / "Anna Berg" / "media").iterdir())
    with Store.open(home, CONFIG) as store:
        row = attachment(store, "trail.jpg", "signal")
        assert row.present and read_attachment(store, OWNER, row.id)["kind"] == "image"
        trail.unlink()
        trail.symlink_to(outside)
        refused = read_attachment(store, OWNER, row.id)
    assert "refused" in refused["note"] and "image" not in refused and "text" not in refused
    # the import that copies looks again: the link is not present, so nothing is copied
    copy = CliRunner().invoke(cli, [*args, "import", str(export), "--copy-media"])
    assert copy.exit_code == 0 and "copied 0 attachments" in copy.output
    assert not (home / "media").exists() or not list((home / "media").iterdir())


def test_a_link_that_stays_inside_the_export_is_read(tmp_path):
    export = tmp_path / "sigexport"
    shutil.copytree(FIXTURES / "signal" / "sigexport", export)
    trail = next((export / "Anna Berg" / "media").iterdir())
    kept = export / "Anna Berg" / "kept.jpg"
    trail.rename(kept)
    trail.symlink_to(kept)
    with Store.open(tmp_path / "home", CONFIG) as store:
        store.import_sources(find_sources(export))
        row = attachment(store, "trail.jpg", "signal")
        assert row.present and read_attachment(store, OWNER, row.id)["kind"] == "image"


def test_a_name_climbing_out_of_a_whatsapp_folder_is_no_file(tmp_path):
    (tmp_path / "secret.txt").write_text("the neighbour's wifi password")
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "WhatsApp Chat with Eve.txt").write_text(
        "[3/2/24, 6:04:11 PM] Eve: <attached: ../secret.txt>\n")
    with Store.open(tmp_path / "home", CONFIG) as store:
        store.import_sources(find_sources(folder / "WhatsApp Chat with Eve.txt"))
        row = attachment(store, "../secret.txt", "whatsapp")
        assert row.present is False and row.path is None
        result = read_attachment(store, OWNER, row.id)
    assert "not present on this machine" in result["note"] and "text" not in result


# ---------------------------------------------------------------- MMS parts inside a backup


def _mms_backup(path: Path, parts: list[tuple[str, bytes]]) -> Path:
    """An SMS Backup & Restore file: one MMS from Anna per (name, bytes), a JPEG each."""
    from android_sms_builders import ANNA, COMMENT, SAM, _write, mms

    items = [mms(60 + i, 1, ANNA, "Anna Berg", [{
        "seq": "0", "ct": "image/jpeg", "name": name, "chset": "null", "cd": "null", "fn": "null",
        "cid": f"<{name}>", "cl": name, "ctt_s": "null", "ctt_t": "null", "text": "null",
        "data": base64.b64encode(data).decode()}], [(ANNA, 137), (SAM, 151)])
        for i, (name, data) in enumerate(parts)]
    return _write(path, "smses", items, COMMENT)


def test_an_mms_part_is_read_from_the_backup_without_loading_it_whole(tmp_path):
    import tracemalloc

    from chatmem.store.media import read_bytes

    filler = [(f"big-{i}.jpg", bytes([i]) * 100_000) for i in range(60)]  # ~8 MB of base64
    backup = _mms_backup(tmp_path / "sms-20240406120000.xml", [*filler, ("last.jpg", photo("lago"))])
    assert backup.stat().st_size > 8_000_000
    with Store.open(tmp_path / "home", CONFIG) as store:
        store.import_sources(find_sources(backup))
        row = attachment(store, "last.jpg", "sms")
        assert row.present and row.size == len(photo("lago"))
        tracemalloc.start()
        try:
            data = read_bytes(row.path)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert data == photo("lago")
        # what one part takes (its base64 and the parser's buffer), not what the file holds
        assert peak < backup.stat().st_size // 3, f"reading one part held {peak:,} bytes"
        shown = read_attachment(store, OWNER, row.id)
        assert shown["kind"] == "image" and shown["image"]["original_width"] == 480
        # bounded: a part larger than what may be read is refused, not decoded
        big = attachment(store, "big-3.jpg", "sms")
        with pytest.raises(Exception, match="larger than|more than"):
            read_bytes(big.path, limit=10_000)


def test_an_mms_part_of_a_backup_replaced_since_says_so(tmp_path):
    backup = _mms_backup(tmp_path / "sms-20240406120000.xml", [("one.jpg", photo("lago"))])
    with Store.open(tmp_path / "home", CONFIG) as store:
        store.import_sources(find_sources(backup))
        row = attachment(store, "one.jpg", "sms")
        _mms_backup(backup, [("other.jpg", photo("boat")), ("one.jpg", photo("lago"))])
        changed = read_attachment(store, OWNER, row.id)
        assert changed["present"] is False and "changed since it was imported" in changed["note"]
        backup.unlink()
        gone = read_attachment(store, OWNER, row.id)
        assert "not present on this machine" in gone["note"]


# ---------------------------------------------------------------- size bounds


def test_no_more_than_the_bound_is_read_of_a_file(tmp_path):
    from chatmem.records import export_file
    from chatmem.store.media import MediaUnreadable, read_bytes

    (tmp_path / "big.bin").write_bytes(b"\0" * 200_000)
    locator, size, present = export_file(tmp_path, "big.bin")
    assert present and size == 200_000
    assert len(read_bytes(locator)) == 200_000
    with pytest.raises(MediaUnreadable, match=r"200,000 bytes, more than the 100,0\d\d read at most"):
        read_bytes(locator, limit=100_000)
    packed = _zip_export(tmp_path, {"00000001-zeros.txt": b"\0" * 5_000_000})  # ~5 KB packed
    member = f"zip:{packed}!00000001-zeros.txt"
    with pytest.raises(MediaUnreadable, match="more than the 1,000,000"):
        read_bytes(member, limit=1_000_000)


def test_a_text_page_stays_within_max_bytes_whatever_the_script(tmp_path):
    path = _zip_export(tmp_path, {"00000001-notes.txt": ("山登り、" * 20_000).encode()})
    with Store.open(tmp_path / "home", CONFIG) as store:
        store.import_sources(find_sources(path))
        with store.read() as conn:
            doc = conn.execute(select(Attachment.__table__)).first()
        page = read_attachment(store, OWNER, doc.id, max_bytes=2000)
        assert len(page["text"].encode()) <= 2000 and page["has_more"] and page["pages"] > 100
