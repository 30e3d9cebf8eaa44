"""`chatmem web`: the page's reads are the tools' reads, for the seat whose key opened it, and
nothing reaches it without the key, from another site, under another name, or to write."""

from __future__ import annotations

from collections import Counter

import pytest
from starlette.testclient import TestClient
from tool_helpers import CONFIG, fresh, loaded  # noqa: F401  (pytest fixtures)

from chatmem.config import load_config
from chatmem.tools.activity import archive_activity
from chatmem.tools.stats import store_stats
from chatmem.tools.web.server import COOKIE, Cache, Keys, build_app

PORT = 8766
BASE = f"http://127.0.0.1:{PORT}"


@pytest.fixture(scope="module")
def config():
    return load_config(CONFIG)


@pytest.fixture(scope="module")
def owner_page(loaded, config):  # noqa: F811
    keys = Keys(config, None)
    client = TestClient(build_app(loaded, config, keys, "127.0.0.1", PORT), base_url=BASE)
    client.get(f"/?key={keys.owner_key}", follow_redirects=False)
    return client


def test_nothing_without_the_key(loaded, config):  # noqa: F811
    client = TestClient(build_app(loaded, config, Keys(config, None), "127.0.0.1", PORT),
                        base_url=BASE)
    assert client.get("/").status_code == 401
    assert client.get("/api/chats").status_code == 401
    assert client.get("/api/search?query=coffee").status_code == 401
    assert client.get("/?key=not-the-key").status_code == 401


def test_the_key_becomes_a_strict_cookie_and_leaves_the_address(loaded, config):  # noqa: F811
    keys = Keys(config, None)
    client = TestClient(build_app(loaded, config, keys, "127.0.0.1", PORT), base_url=BASE)
    first = client.get(f"/?key={keys.owner_key}", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/"
    assert first.headers["set-cookie"].startswith(f"{COOKIE}=")
    cookie = first.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    page = client.get("/")
    assert page.status_code == 200 and "<title>chatmem</title>" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"


def test_each_start_has_a_new_owner_key(config):
    assert Keys(config, None).owner_key != Keys(config, None).owner_key


@pytest.mark.parametrize("headers,status", [
    ({"host": "evil.example"}, 421),                          # DNS rebinding
    ({"host": f"127.0.0.1:{PORT + 1}"}, 421),
    ({"origin": "http://evil.example"}, 403),                 # another site's page
    ({"sec-fetch-site": "cross-site"}, 403),
])
def test_other_names_and_other_sites_are_refused(owner_page, headers, status):
    assert owner_page.get("/api/chats", headers=headers).status_code == status


def test_the_same_origin_and_localhost_are_served(owner_page):
    assert owner_page.get("/api/chats", headers={"origin": BASE}).status_code == 200
    assert owner_page.get("/api/chats", headers={"host": f"localhost:{PORT}"}).status_code == 200


@pytest.mark.parametrize("method", ["post", "put", "delete", "patch"])
def test_the_page_only_reads(owner_page, method):
    assert getattr(owner_page, method)("/api/search?query=coffee").status_code == 405


def test_reads_are_the_tools_reads(owner_page, loaded, config):  # noqa: F811
    from chatmem.tools.search import search_memory

    page = owner_page.get("/api/search", params={"query": "coffee", "limit": "5"}).json()
    tool = search_memory(loaded, config.seat(None), query="coffee", limit=5)
    assert [r["id"] for r in page["results"]] == [r["id"] for r in tool["results"]]
    assert page["total"] == tool["total"] > 0


def test_arguments_are_checked_in_our_words(owner_page):
    r = owner_page.get("/api/search", params={"query": "coffee", "colour": "red"})
    assert r.status_code == 400 and "unknown parameter 'colour'" in r.json()["error"]
    r = owner_page.get("/api/search", params={"query": "coffee", "limit": "lots"})
    assert r.status_code == 400 and "limit must be a whole number" in r.json()["error"]
    unknown = owner_page.get("/api/raw", params={"record_id": "m_0000000000000000"}).json()
    assert unknown["ok"] is False and "no record" in unknown["error"]
    assert owner_page.get("/api/nope").status_code == 404
    r = owner_page.get("/api/person")
    assert r.status_code == 400 and "missing parameter 'person'" in r.json()["error"]


def _seat_page(loaded, config, seat_name):  # noqa: F811
    seat = config.seat(seat_name)
    keys = Keys(config, seat)
    client = TestClient(build_app(loaded, config, keys, "127.0.0.1", PORT), base_url=BASE)
    assert keys.owner_key is None  # a seat's page has no owner key
    assert client.get(f"/?key={seat.token}", follow_redirects=False).status_code == 303
    return client


def test_a_seat_sees_only_its_chats(owner_page, loaded, config):  # noqa: F811
    page = _seat_page(loaded, config, "assistant")
    assistant = config.seat("assistant")
    chats = page.get("/api/chats", params={"limit": "500"}).json()["chats"]
    assert chats and {c["platform"] for c in chats} <= set(assistant.platforms)
    assert not any(c["chat"] in assistant.exclude_chats for c in chats)
    owner_chats = owner_page.get("/api/chats", params={"limit": "500"}).json()["chats"]
    assert any(c["chat"] in assistant.exclude_chats for c in owner_chats)
    me = page.get("/api/whoami").json()
    assert me["seat"] == "assistant" and not me["owner"]


def test_the_owner_key_does_not_open_a_seats_page(loaded, config):  # noqa: F811
    owner_keys = Keys(config, None)
    seat_app = build_app(loaded, config, Keys(config, config.seat("assistant")), "127.0.0.1", PORT)
    client = TestClient(seat_app, base_url=BASE)
    assert client.get(f"/?key={owner_keys.owner_key}").status_code == 401


def test_pictures_count_what_the_seat_may_see(owner_page, loaded, config):  # noqa: F811
    for seat_name in (None, "assistant"):
        seat = config.seat(seat_name)
        act = archive_activity(loaded, seat)
        # the same total as `chatmem stats`, which counts per chat
        assert act["total"] == store_stats(loaded, seat)["messages"] > 0
        assert sum(sum(v) for v in act["by_platform"].values()) == act["total"]
        assert sum(map(sum, act["weekday_hour"])) == act["total"]
        assert len(act["weekday_hour"]) == 7 and all(len(row) == 24 for row in act["weekday_hour"])
        assert all(len(v) == len(act["months"]) for v in act["by_platform"].values())
        # months run without gaps from the first to the last
        ym = [(int(m[:4]), int(m[5:])) for m in act["months"]]
        assert all((b[0] * 12 + b[1]) - (a[0] * 12 + a[1]) == 1 for a, b in zip(ym, ym[1:]))
        for span in act["people"]:
            assert span["first"] <= span["last"] and span["messages"] > 0
    owner = archive_activity(loaded, config.seat(None))
    assistant = archive_activity(loaded, config.seat("assistant"))
    assert set(assistant["by_platform"]) <= set(config.seat("assistant").platforms)
    assert assistant["total"] < owner["total"]
    assert owner_page.get("/api/activity").json() == owner


def test_people_per_year_rank_by_messages(loaded, config):  # noqa: F811
    act = archive_activity(loaded, config.seat(None), top=3)
    for year in act["top_people_per_year"]:
        counts = [p["messages"] for p in year["people"]]
        assert counts == sorted(counts, reverse=True) and len(counts) <= 3
    assert len(act["by_person"]) <= 3
    totals = Counter({name: sum(v) for name, v in act["by_person"].items()})
    assert all(n > 0 for n in totals.values())


def test_secrets_are_masked_for_a_seat_that_may_not_see_them(owner_page, loaded, config):  # noqa: F811
    notebook = _seat_page(loaded, config, "notebook")
    owner = owner_page.get("/api/search", params={"query": "code", "limit": "50"}).json()["results"]
    seat = notebook.get("/api/search", params={"query": "code", "limit": "50"}).json()["results"]
    owner_text = {r["id"]: r["content"] for r in owner}
    seat_text = {r["id"]: r["content"] for r in seat}
    changed = [i for i in seat_text if seat_text[i] != owner_text.get(i)]
    assert changed, "some verification code in the fixtures is masked for the notebook seat"
    assert all("masked" in seat_text[i] for i in changed)


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/St_Johns", "Australia/Lord_Howe",
                                  "Asia/Kolkata", "America/Sao_Paulo", "UTC"])
def test_the_pictures_clock_is_the_time_zone_s_own(zone):
    """Hours are turned into local months, weekdays and hours by a table of the zone's offset
    changes: the same answer as converting each hour, across DST and half-hour zones."""
    import random
    from datetime import datetime, timedelta, timezone
    from zoneinfo import ZoneInfo

    from chatmem.tools.activity import LocalClock

    tz = ZoneInfo(zone)
    first, last = 30 * 365 * 24, 56 * 365 * 24  # 2000 to 2026, in hours since 1970
    clock = LocalClock(tz, first, last)
    rng = random.Random(zone)
    hours = [rng.randrange(first, last) for _ in range(3000)]
    # and every hour around each change of offset (DST starts and ends)
    changes = [s // 3600 for s in clock.starts[1:]]
    hours += [h + d for h in changes for d in (-2, -1, 0, 1, 2) if first <= h + d <= last]
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    for h in hours:
        local = (epoch + timedelta(hours=h)).astimezone(tz)
        assert clock(h) == (local.strftime("%Y-%m"), local.weekday(), local.hour), (zone, h)
    if zone not in ("UTC", "Asia/Kolkata"):
        assert len(changes) > 20  # it did find the offset changes


def test_the_pictures_are_counted_again_when_the_store_changes(fresh, config, tmp_path):  # noqa: F811
    import json

    from chatmem.importers import find_sources

    cache, seat = Cache(fresh), config.seat(None)
    before = cache.call("activity", seat, {})
    assert cache.call("activity", seat, {}) is before  # kept while nothing changed
    new = tmp_path / "one-more.jsonl"
    new.write_text(json.dumps({"platform": "whatsapp", "chat": "Lena Vogel", "sender": "Lena Vogel",
                               "timestamp": "2031-05-04T12:00:00+02:00", "text": "one more"}) + "\n")
    fresh.import_sources(find_sources(new, "jsonl"))
    after = cache.call("activity", seat, {})
    assert after["total"] == before["total"] + 1 and after["months"][-1] == "2031-05"
    assert after == archive_activity(fresh, seat)


def test_no_read_of_the_page_writes_even_for_a_seat_that_may(loaded, config):  # noqa: F811
    """Issue 22: no write actions without the write permission. The page has none at all: each
    of its reads is a tool function that only reads, and a seat allowed to write (notebook)
    still gets only GET."""
    import importlib

    from chatmem.tools.api import READ_TOOLS, TOOLS, WRITE_TOOLS
    from chatmem.tools.web.server import API

    writers = {TOOLS[name] for name in WRITE_TOOLS}
    people = importlib.import_module("chatmem.tools.people")
    writers |= {people.merge_people, people.split_person, people.rename_person}
    for name, target in API.items():
        module, _, fn = target.partition(":")
        function = getattr(importlib.import_module(module), fn)
        assert function not in writers, name
        if function in TOOLS.values():
            assert next(n for n, f in TOOLS.items() if f is function) in READ_TOOLS, name
    notebook = _seat_page(loaded, config, "notebook")
    assert config.seat("notebook").write
    for method in ("post", "put", "delete", "patch"):
        assert getattr(notebook, method)("/api/chats").status_code == 405


def test_opened_to_other_machines_it_still_needs_a_key(loaded, config):  # noqa: F811
    """Bound to another address on purpose (`--host 0.0.0.0`): any name reaches it, and still
    nothing is read without the owner's key or a seat's token, each seeing only its own."""
    keys = Keys(config, None)
    client = TestClient(build_app(loaded, config, keys, "0.0.0.0", PORT),
                        base_url="http://192.168.1.20:8766")
    assert client.get("/api/chats").status_code == 401
    assert client.get("/?key=guess").status_code == 401
    assistant = config.seat("assistant")
    assert client.get(f"/?key={assistant.token}", follow_redirects=False).status_code == 303
    chats = client.get("/api/chats", params={"limit": "500"}).json()["chats"]
    assert chats and {c["platform"] for c in chats} <= set(assistant.platforms)
    assert client.get("/api/whoami").json()["seat"] == "assistant"
    # another site's page in the same browser still cannot read with that cookie
    assert client.get("/api/chats", headers={"origin": "http://evil.example"}).status_code == 403
