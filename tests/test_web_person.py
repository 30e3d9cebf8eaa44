"""One person across platforms (get_person, the web page's person page) and the page's
attachments: what each seat may see, through the same tool functions as every other face."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient
from tool_helpers import CONFIG, loaded  # noqa: F401  (a pytest fixture)

from chatmem.config import load_config
from chatmem.errors import ArgumentError, NotFound
from chatmem.tools.attachments import read_attachment
from chatmem.tools.people import list_people
from chatmem.tools.person import get_person
from chatmem.tools.search import search_memory
from chatmem.tools.web.server import Keys, build_app

PORT = 8766
BASE = f"http://127.0.0.1:{PORT}"


@pytest.fixture(scope="module")
def config():
    return load_config(CONFIG)


def _page(store, config, seat_name=None):  # noqa: F811
    keys = Keys(config, config.seat(seat_name) if seat_name else None)
    client = TestClient(build_app(store, config, keys, "127.0.0.1", PORT), base_url=BASE)
    key = keys.owner_key if seat_name is None else config.seat(seat_name).token
    assert client.get(f"/?key={key}", follow_redirects=False).status_code == 303
    return client


def test_one_person_on_every_platform(loaded, config):  # noqa: F811
    owner = config.seat(None)
    anna = get_person(loaded, owner, "Anna Berg")
    platforms = {p["platform"]: p for p in anna["platforms"]}
    assert {"signal", "imessage"} <= set(platforms)
    # the same person by her phone number, whatever platform gave it
    assert get_person(loaded, owner, "+1 555 0100 001")["person"] == anna["person"]
    # her messages: the per-platform counts add up, and are what a search for her finds
    assert anna["messages"] == sum(p["messages"] for p in anna["platforms"]) > 0
    found = search_memory(loaded, owner, query="", person=anna["person"], limit=50, sort="oldest")
    assert found["total"] == anna["messages"]
    assert {r["platform"] for r in found["results"]} == {p for p, v in platforms.items() if v["messages"]}
    stamps = [r["timestamp"] for r in found["results"]]
    assert stamps == sorted(stamps)
    # signal knows her by number: the handle is listed under signal
    assert any("555" in h for h in platforms["signal"]["handles"])
    # her chats are the chats the tools list, and every platform's chat count adds up
    assert sum(p["chats"] for p in anna["platforms"]) == len(anna["chats"])
    assert all(c["source"].startswith("s_") for c in anna["chats"])
    first, last = anna["first"], anna["last"]
    assert first is not None and last is not None and first["timestamp"] <= last["timestamp"]
    assert first["timestamp"] <= stamps[0] and last["timestamp"] >= found["results"][-1]["timestamp"]


def test_a_seat_sees_the_person_only_in_its_chats(loaded, config):  # noqa: F811
    owner, assistant = config.seat(None), config.seat("assistant")
    whole = get_person(loaded, owner, "Anna Berg")
    seen = get_person(loaded, assistant, "Anna Berg")
    assert {p["platform"] for p in seen["platforms"]} <= set(assistant.platforms)
    assert seen["messages"] < whole["messages"]
    assert seen["messages"] == search_memory(loaded, assistant, query="", person=seen["person"],
                                             limit=1)["total"]
    assert all(c["chat"] not in assistant.exclude_chats for c in seen["chats"])
    # someone the seat has no chat with is the same as no one at all
    hidden = [p for p in list_people(loaded, owner)["people"]
              if p["person"] != "me" and set(p["platforms"]) and
              not set(p["platforms"]) & set(assistant.platforms)]
    assert hidden, "the fixtures have someone only on iMessage/SMS"
    with pytest.raises(NotFound) as out_of_scope:
        get_person(loaded, assistant, hidden[0]["person"])
    with pytest.raises(NotFound) as unknown:
        get_person(loaded, assistant, "p_0000000000000000")
    assert str(out_of_scope.value).replace(hidden[0]["person"], "X") == \
        str(unknown.value).replace("p_0000000000000000", "X")


def test_a_name_that_means_two_people_asks_which(loaded, config):  # noqa: F811
    people = [p for p in list_people(loaded, config.seat(None))["people"] if "Praxis" in p["name"]]
    assert len(people) >= 2  # "Dr. Weiss Praxis" and "Praxis Weiss"
    with pytest.raises(ArgumentError) as e:
        get_person(loaded, config.seat(None), "Praxis")
    assert all(p["person"] in str(e.value) for p in people)


def test_the_person_page_is_the_tools_read_and_masks_secrets(loaded, config):  # noqa: F811
    owner_page, notebook_page = _page(loaded, config), _page(loaded, config, "notebook")
    pid = get_person(loaded, config.seat(None), "Lena Vogel")["person"]
    assert owner_page.get("/api/person", params={"person": pid}).json() == \
        json.loads(json.dumps(get_person(loaded, config.seat(None), pid)))
    # Lena Vogel sends a wifi password in the fixtures: the owner reads it in her messages,
    # the notebook seat (reveal_secrets: false) never does, on any read the person page makes
    def everything(page):
        person = page.get("/api/person", params={"person": pid}).json()
        messages = page.get("/api/search", params={"query": "", "person": pid, "limit": "50"}).json()
        return json.dumps([person, messages], ensure_ascii=False)

    assert "Sommer2024!" in everything(owner_page)
    assert "Sommer2024!" not in everything(notebook_page)
    assert owner_page.get("/api/person", params={"person": "nobody at all"}).status_code == 404


def _attachments(store, seat):
    """(attachment id, kind, present) of every attachment the seat's reads show."""
    out = []
    with store.reader() as r:
        from chatmem.store import models as m
        rows = r.conn.execute(m.Attachment.__table__.select()).all()
    for row in rows:
        got = read_attachment(store, seat, row.id, max_bytes=200_000)
        if got["ok"]:
            out.append((row.id, got.get("kind"), got.get("present"), got))
    return out


def test_attachments_on_the_page_follow_the_seat(loaded, config):  # noqa: F811
    owner_page, notebook_page = _page(loaded, config), _page(loaded, config, "notebook")
    owner = _attachments(loaded, config.seat(None))
    image = next(a for a in owner if a[1] == "image" and a[2] and "image" in a[3])
    missing = next(a for a in owner if not a[2])
    # an image: scaled, re-encoded without EXIF, as read_attachment gives it
    shown = owner_page.get("/api/attachment", params={"attachment_id": image[0], "max_bytes": "200000"}).json()
    assert shown["image"]["width"] > 0 and shown["image"]["mime_type"] == "image/jpeg"
    # its bytes, as a download that never runs as this site
    file = owner_page.get(f"/file/{image[0]}")
    assert file.status_code == 200 and len(file.content) > 0
    assert file.headers["content-type"] == "application/octet-stream"
    assert file.headers["content-disposition"].startswith("attachment;")
    assert "sandbox" in file.headers["content-security-policy"]
    # a file not on this machine says so, and has nothing to download
    gone = owner_page.get("/api/attachment", params={"attachment_id": missing[0]}).json()
    assert gone["present"] is False and "not present on this machine" in gone["note"]
    assert owner_page.get(f"/file/{missing[0]}").status_code == 404
    # a seat without `attachments: true` sees names and types, never the content
    assert not config.seat("notebook").attachments
    denied = notebook_page.get("/api/attachment", params={"attachment_id": image[0]}).json()
    assert "image" not in denied and "may not read attachment content" in denied["note"]
    assert notebook_page.get(f"/file/{image[0]}").status_code == 403
    # nothing without the key; an attachment out of a seat's scope is an unknown id
    assert TestClient(build_app(loaded, config, Keys(config, None), "127.0.0.1", PORT),
                      base_url=BASE).get(f"/file/{image[0]}").status_code == 401
