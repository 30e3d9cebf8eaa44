"""Every importer, from its own attachment fixture (fixtures/attachments/, built by
tests/attachment_fixtures.py in each app's layout): a file of every kind it sends — image,
video, audio, document — is recorded once present and once missing, found by its name in
search and by its type, shown in the conversation's items with its id, and read through the
MCP SDK's own client over stdio within max_bytes; a missing one says so."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from attachment_fixtures import EXPECTED, KINDS, SOURCES
from PIL import Image
from server_helpers import chatmem, session, stdio_client
from sqlalchemy import select

from chatmem.config import load_config
from chatmem.store import Store
from chatmem.store.media import attachment_type
from chatmem.store.models import Attachment

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CONFIG = load_config(FIXTURES / "config.yaml")
MAX_BYTES = 5_000  # small on purpose: the photo has to be scaled down to fit


@pytest.fixture(scope="module", params=sorted(SOURCES))
def imported(request, tmp_path_factory):
    importer = request.param
    home = tmp_path_factory.mktemp(f"attach-{importer}") / "home"
    chatmem(home, "import", str(FIXTURES / "attachments" / SOURCES[importer]))
    with Store.open(home, CONFIG) as store:
        with store.read() as conn:
            rows = conn.execute(select(Attachment.__table__)).all()
    return importer, home, rows


def test_a_present_and_a_missing_file_of_every_kind(imported):
    importer, _, rows = imported
    for kind in KINDS:
        of_kind = [r for r in rows if attachment_type(r.mime_type, r.name) == kind]
        assert any(r.present for r in of_kind), f"{importer}: no {kind} present"
        assert any(not r.present for r in of_kind), f"{importer}: no {kind} missing"
    names = {(r.name, bool(r.present)) for r in rows}
    for present, missing in EXPECTED[importer].values():
        assert (present, True) in names and (missing, False) in names, importer


def test_found_by_name_and_by_type_and_shown_in_items_and_read_over_mcp(imported):
    importer, home, rows = imported
    by_name = {r.name: r for r in rows if r.name}
    with session(stdio_client(home)) as client:
        items: dict[str, list] = {}  # source -> the conversation's items
        for kind, (present, missing) in EXPECTED[importer].items():
            # found by type: every hit has a file of that type, both of ours among them
            typed = client.result("search_memory", query=f"has:{kind}", attachment_type=kind,
                                  limit=50)
            assert {by_name[present].id, by_name[missing].id} <= {
                a["id"] for hit in typed["results"] for a in hit.get("attachments", [])}
            assert all(kind in {attachment_type(a["type"], a["name"]) for a in hit["attachments"]}
                       for hit in typed["results"])
            for name in (present, missing):
                row = by_name[name]
                # found by its name, the hit listing the file with its id
                found = client.result("search_memory", query=f'"{name}"', mode="keyword")
                refs = [a for hit in found["results"] for a in hit.get("attachments", [])]
                assert {"name": name, "id": row.id, "present": name == present} in [
                    {k: a[k] for k in ("name", "id", "present")} for a in refs], (importer, name)
                # and around it (get_context)
                around = client.result("get_context", memory_id=row.message_id, before=1, after=1)
                assert row.id in {a["id"] for m in around["messages"] for a in m.get("attachments", [])}
                # shown in the conversation's items
                source = found["results"][0]["source"]
                if source not in items:
                    items[source] = client.result("get_conversation_context", conversation_id=source,
                                                  token_budget=20_000)["items"]
                shown = [a for item in items[source] for a in item.get("attachments", [])]
                assert row.id in {a["id"] for a in shown}, (importer, name)
                # read within bounds
                result = client.call("read_attachment", attachment_id=row.id, max_bytes=MAX_BYTES)
                assert not result.is_error, result.content
                data = result.structured_content
                assert data["ok"] and data["name"] == name and data["present"] is (name == present)
                if name == missing:
                    assert "not present on this machine" in data["note"], (importer, name, data)
                    assert not [c for c in result.content if c.type == "image"]
                    continue
                if kind == "image":
                    (image,) = [c for c in result.content if c.type == "image"]
                    assert len(image.data) <= MAX_BYTES
                    shown_image = Image.open(io.BytesIO(base64.b64decode(image.data)))
                    assert shown_image.size == (data["image"]["width"], data["image"]["height"])
                    assert data["image"]["original_width"] == 480 > shown_image.width
                elif kind == "document" and data["kind"] == "pdf":
                    assert "Packing list" in data["text"] and data["pages"] == 2
                    assert len(data["text"].encode()) <= MAX_BYTES
                elif kind == "document":
                    assert "Cleo Park" in data["text"]  # a contact card, as text
                else:  # audio and video: what is known of them, honestly
                    assert data["kind"] == kind and "not turned into text" in data["note"]
                    assert "text" not in data or data["text"]


def test_an_attachments_own_text_is_searchable(imported):
    importer, home, _ = imported
    if importer != "signal-phone":
        pytest.skip("the caption is in the Signal phone export's fixture")
    hits = chatmem(home, "search", "sunrise", "Brocken")
    assert [a["name"] for h in hits["results"] for a in h["attachments"]] == ["summit.jpg"]
    assert "sunrise" not in hits["results"][0]["content"].lower()  # the message says "image 1"


def test_the_source_is_left_as_it_was(imported):
    importer, home, _ = imported
    source = FIXTURES / "attachments" / SOURCES[importer]
    folder = source if source.is_dir() else source.parent
    stamps = {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in folder.rglob("*") if p.is_file()}
    chatmem(home, "import", str(source), "--copy-media")
    assert {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in stamps} == stamps
    assert sorted(p for p in folder.rglob("*") if p.is_file()) == sorted(stamps)
