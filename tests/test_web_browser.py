"""`chatmem web` in a real browser: Debian's headless Chromium, driven by Playwright, against
the page served by the `chatmem web` command on the bundled fixtures. Each page's screenshot
is kept in test-artifacts/web/ (or $CHATMEM_TEST_ARTIFACTS) for review."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
playwright = pytest.importorskip("playwright.sync_api")
pytest.importorskip("plotly")
if not Path(CHROMIUM).exists():
    pytest.skip("no chromium on this machine (Debian: apt-get install chromium)",
                allow_module_level=True)

ARTIFACTS = Path(os.environ.get("CHATMEM_TEST_ARTIFACTS", ROOT / "test-artifacts")) / "web"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _chatmem(home: Path, *args: str, **kw) -> subprocess.Popen | subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "chatmem", "--home", str(home),
           "--config", str(ROOT / "fixtures" / "config.yaml"), *args]
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("web") / "home"
    _chatmem(home, "import", str(ROOT / "fixtures"))
    return home


@pytest.fixture(scope="module")
def page_url(home):
    proc = subprocess.Popen(
        [sys.executable, "-m", "chatmem", "--home", str(home), "--config",
         str(ROOT / "fixtures" / "config.yaml"), "web", "--port", "0"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        match = re.search(r"open (http://\S+)", line)
        assert match, f"chatmem web printed no address: {line!r}"
        assert match.group(1).startswith("http://127.0.0.1:")  # loopback unless asked otherwise
        yield match.group(1)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser_page(page_url):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(page_url)
        yield page, errors
        browser.close()


def _api(page, name: str, **params: str) -> dict:
    """A read through the browser's own session (its cookie), as the page makes it."""
    query = "&".join(f"{k}={urllib.request.quote(v)}" for k, v in params.items())
    return json.loads(page.evaluate(f"fetch('/api/{name}?{query}').then(r => r.text())"))


def test_the_address_with_the_key_opens_the_chats(browser_page):
    page, errors = browser_page
    page.wait_for_selector("#chat-list li a")
    assert "key=" not in page.url  # the key left the address bar
    names = page.locator("#chat-list li strong").all_inner_texts()
    assert names == [c["chat"] for c in _api(page, "chats", limit="200")["chats"]]
    page.fill(".filter", "lago")
    playwright.expect(page.locator("#chat-list li")).to_have_count(1)
    assert "Gita al lago" in page.inner_text("#chat-list")
    page.screenshot(path=str(ARTIFACTS / "chats.png"))
    # a chat opens at its newest message
    page.locator("#chat-list li a").first.click()
    page.wait_for_selector(".msg")
    source = page.url.split("#/chat/")[1]
    newest = _api(page, "search", query="", source=source, sort="newest", limit="1")["results"][0]
    assert page.locator(".msg").last.get_attribute("data-id") == newest["id"]
    assert not errors


def test_search_open_a_hit_page_older_and_go_back(browser_page):
    page, errors = browser_page
    page.fill("#search-box", "coffee")
    page.press("#search-box", "Enter")
    page.wait_for_selector("#hits li")
    hits = page.locator("#hits li")
    assert hits.count() == len(_api(page, "search", query="coffee", limit="20")["results"]) > 0
    assert "coffee" in page.locator("#hits li mark").first.inner_text().lower()
    page.screenshot(path=str(ARTIFACTS / "search.png"))

    first_id = _api(page, "search", query="coffee", limit="20")["results"][0]["id"]
    hits.first.locator("a").first.click()
    page.wait_for_selector(".msg.hit")
    assert page.locator(".msg.hit").get_attribute("data-id") == first_id
    before = page.locator(".msg").count()
    page.click("#older")
    # either older messages arrive above, or the button says this is where the chat starts
    page.wait_for_selector(f".msg:nth-child({before + 1}), #older:disabled")
    page.screenshot(path=str(ARTIFACTS / "conversation.png"))
    page.go_back()
    page.wait_for_selector("#hits li")
    assert page.locator("#hits li").count() == hits.count()
    assert not errors


def test_a_record_raw_with_its_relations(browser_page):
    page, errors = browser_page
    hit = _api(page, "search", query="coffee", limit="1")["results"][0]
    page.evaluate(f"location.hash = '#/raw/{hit['id']}'")
    page.wait_for_selector("#raw-content")
    raw = _api(page, "raw", record_id=hit["id"])
    assert page.inner_text("#raw-content") == raw["content"]
    assert raw["relations"]["chat"] in page.inner_text("table")
    page.screenshot(path=str(ARTIFACTS / "raw.png"))
    assert not errors


def test_the_pictures_render_every_month(browser_page):
    page, errors = browser_page
    page.evaluate("location.hash = '#/pictures'")
    page.wait_for_selector("#chart-months .point", state="attached", timeout=20000)
    page.wait_for_selector("#chart-heat .hm, #chart-heat image", state="attached")
    act = _api(page, "activity")
    # one bar per month in each platform's series: the chart has the right number of points
    for i, platform in enumerate(act["by_platform"]):
        bars = page.locator(f"#chart-months .trace.bars:nth-child({i + 1}) .point").count()
        assert bars == len(act["months"]), platform
    # first and last message with each person: two points per person, drawn as markers
    points = page.evaluate("document.getElementById('chart-spans').data[0].x.filter(x => x !== null).length")
    assert points == 2 * len(act["people"]) > 0
    drawn = page.locator("#chart-spans .scatterlayer .point").count()
    assert drawn == 2 * len(act["people"])
    page.screenshot(path=str(ARTIFACTS / "pictures.png"), full_page=True)
    assert not errors


def test_a_person_opens_from_a_hit_with_every_platform(browser_page):
    page, errors = browser_page
    page.fill("#search-box", "from:Anna")
    page.press("#search-box", "Enter")
    page.wait_for_selector("#hits li a.person")
    page.locator("#hits li a.person", has_text="Anna Berg").first.click()
    page.wait_for_selector("#person-platforms tr[data-platform]")
    assert page.inner_text("#person-name") == "Anna Berg"
    person = _api(page, "person", person="Anna Berg")
    shown = page.locator("#person-platforms tr[data-platform]").evaluate_all(
        "rows => rows.map(r => r.dataset.platform)")
    assert shown == [p["platform"] for p in person["platforms"]]
    assert {"signal", "whatsapp"} <= set(shown)
    # her messages from every platform, newest first, a page at a time
    page.wait_for_selector("#person-messages li.hit-item")
    first_page = page.locator("#person-messages li.hit-item")
    assert first_page.count() == min(20, person["messages"])
    newest = _api(page, "search", query="", person=person["person"], sort="newest", limit="20")
    assert first_page.locator("a").first.get_attribute("href").endswith(newest["results"][0]["id"])
    assert page.locator("#person-chats li").count() == len(person["chats"])
    assert "first" in page.inner_text("#person-ends") and "last" in page.inner_text("#person-ends")
    page.screenshot(path=str(ARTIFACTS / "person.png"), full_page=True)
    if person["messages"] > 20:
        page.click("#person-next")
        page.wait_for_selector("#person-previous")
        second = _api(page, "search", query="", person=person["person"], sort="newest", limit="20",
                      offset="20")
        playwright.expect(page.locator("#person-messages li.hit-item")).to_have_count(len(second["results"]))
    page.goto(page.url.split("#")[0] + "#/people")
    page.wait_for_selector("#people-list li a.person")
    assert "Anna Berg" in page.inner_text("#people-list")
    assert not errors


def _image_message(home: Path) -> tuple[str, str, str]:
    """(chat id, message id, attachment id) of an image attachment whose file is here."""
    import sqlite3

    db = sqlite3.connect(home / "chatmem.db")
    try:
        return db.execute(
            "SELECT m.chat_id, m.id, a.id FROM attachments a JOIN messages m ON m.id = a.message_id "
            "WHERE a.mime_type = 'image/jpeg' AND a.present AND a.size > 10000 ORDER BY a.id").fetchone()
    finally:
        db.close()


def test_an_image_attachment_renders_and_a_missing_one_says_so(browser_page, home):
    page, errors = browser_page
    chat, message, attachment = _image_message(home)
    page.evaluate(f"location.hash = '#/chat/{chat}?at={message}'")
    image = page.locator(f"#msg-{message} .attachments img")
    image.wait_for(timeout=20000)
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    natural = image.evaluate("img => [img.naturalWidth, img.naturalHeight]")
    read = _api(page, "attachment", attachment_id=attachment, max_bytes="200000")
    assert natural == [read["image"]["width"], read["image"]["height"]] and min(natural) > 0
    box = image.bounding_box()
    assert box and box["width"] <= 320 and box["height"] <= 320  # bounded on the page
    page.screenshot(path=str(ARTIFACTS / "attachment.png"))
    # a file the export did not bring: named, typed, and "not on this machine"
    import sqlite3

    db = sqlite3.connect(home / "chatmem.db")
    gone = db.execute("SELECT m.chat_id, m.id, a.name FROM attachments a JOIN messages m "
                      "ON m.id = a.message_id WHERE NOT a.present AND a.name IS NOT NULL "
                      "ORDER BY a.id").fetchone()
    db.close()
    page.evaluate(f"location.hash = '#/chat/{gone[0]}?at={gone[1]}'")
    missing = page.locator(f"#msg-{gone[1]} .attachment.missing")
    missing.first.wait_for(timeout=20000)
    assert gone[2] in missing.first.inner_text() and "not on this machine" in missing.first.inner_text()
    assert not errors
