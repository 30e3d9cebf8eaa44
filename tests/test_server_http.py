"""`chatmem serve --http`: streamable HTTP on loopback, a seat's bearer token on every request,
the tools a seat may use, and no token in the server's log."""

from __future__ import annotations

import anyio
import httpx2
import pytest
from server_helpers import (
    ASSISTANT_TOKEN,
    NOTEBOOK_TOKEN,
    READ_TOOLS,
    TELEGRAM_JSONL,
    WRITE_TOOLS,
    chatmem,
    check_listing,
    http_client,
    http_server,
    http_session,
)

WRONG_TOKEN = "not-a-seat-token-5e0b7f"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("http")
    home = root / "home"
    chatmem(home, "import", str(TELEGRAM_JSONL))
    with http_server(home, root / "server.log") as srv:
        yield srv


PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


@pytest.mark.parametrize("headers", [
    {},
    {"Authorization": f"Bearer {WRONG_TOKEN}"},
    {"Authorization": f"Basic {ASSISTANT_TOKEN}"},
    {"Authorization": "Bearer"},
], ids=["missing", "wrong", "not-bearer", "empty"])
def test_a_request_without_a_seat_token_is_refused(server, headers):
    r = httpx2.post(server.url, json=PING, timeout=10,
                    headers={"Accept": "application/json, text/event-stream", **headers})
    assert r.status_code == 401
    assert r.headers["www-authenticate"].startswith("Bearer ")
    assert r.json()["error"] == "invalid_token"


def test_the_sdk_client_with_a_wrong_token_cannot_connect(server):
    async def main():
        async with http_client(server.url, WRONG_TOKEN) as client:
            await client.list_tools()

    with pytest.raises(Exception):  # noqa: B017 - the SDK's error type for a 401 is its own business
        anyio.run(main)


@pytest.fixture(scope="module")
def assistant(server):
    with http_session(server.url, ASSISTANT_TOKEN) as client:
        yield client


@pytest.fixture(scope="module")
def notebook(server):
    with http_session(server.url, NOTEBOOK_TOKEN) as client:
        yield client


def test_each_seat_sees_its_own_tools(assistant, notebook):
    assert set(check_listing(assistant.tools())) == READ_TOOLS
    assert set(check_listing(notebook.tools())) == READ_TOOLS | WRITE_TOOLS


def test_every_tool_over_http_as_a_seat_that_may_write(notebook):
    out = {}

    def call(name, **args):
        out[name] = notebook.result(name, **args)
        return out[name]

    chats = call("list_chats")["chats"]
    source = next(c["source"] for c in chats if c["chat"] == "Hiking club")
    hit = call("search_memory", query="Zugspitze", sort="newest")["results"][0]
    call("get_context", memory_id=hit["id"])
    items = call("get_conversation_context", conversation_id=source)["items"]
    call("get_conversation_history", conversation_id=source)
    call_id = next(i["call_id"] for i in items if i["type"] == "call")
    call("read_raw_data", record_id=call_id, max_chars=20)
    assert call("read_attachment", attachment_id="a_0000000000000000")["ok"] is False
    cid = call("start_conversation")["conversation_id"]
    call("log_conversation_turn", conversation_id=cid, role="assistant",
         content="Noted: meet at the cable car.", refs=[call_id])
    call("save_memory", conversation_id=source, text="Meet at the cable car.", cites=[call_id])

    assert set(out) == READ_TOOLS | WRITE_TOOLS
    raw = out["read_raw_data"]
    assert raw["type"] == "call" and raw["truncated"] is True and len(raw["content"]) == 20


def test_a_seat_sees_only_its_chats_and_cannot_call_write_tools(assistant):
    assert [c["chat"] for c in assistant.result("list_chats")["chats"]] == ["Hiking club"]
    assert assistant.result("search_memory", query="dentist")["total"] == 0
    assert assistant.call("start_conversation", subject="sneaky").is_error


def test_no_token_ever_reaches_the_log(server, assistant):
    for token in (WRONG_TOKEN, ASSISTANT_TOKEN):
        httpx2.post(server.url, json=PING, headers={"Authorization": f"Bearer {token}x"}, timeout=10)
    httpx2.post(f"{server.url}?token={WRONG_TOKEN}", json=PING, timeout=10)

    assistant.call("search_memory", query="coffee", limit=500)
    log = server.stderr()
    assert "refused POST /mcp from 127.0.0.1" in log  # refusals are logged...
    for secret in (WRONG_TOKEN, ASSISTANT_TOKEN, NOTEBOOK_TOKEN):
        assert secret not in log  # ...without the token


def test_seat_limits_the_http_server_to_one_seat(tmp_path):
    home = tmp_path / "home"
    chatmem(home, "import", str(TELEGRAM_JSONL))

    with http_server(home, tmp_path / "server.log", seat="assistant") as srv:
        with http_session(srv.url, ASSISTANT_TOKEN) as client:
            assert {t.name for t in client.tools()} == READ_TOOLS
        r = httpx2.post(srv.url, json=PING, timeout=10,
                        headers={"Authorization": f"Bearer {NOTEBOOK_TOKEN}"})
        assert r.status_code == 401


def test_http_needs_a_seat_with_a_token(tmp_path):
    from click.testing import CliRunner

    from chatmem.tools.cli import cli

    config = tmp_path / "config.yaml"
    config.write_text("seats:\n  bot:\n    write: false\n", encoding="utf-8")
    runner = CliRunner()
    for extra in ([], ["--seat", "bot"]):
        result = runner.invoke(cli, ["--home", str(tmp_path / "home"), "--config", str(config),
                                     *extra, "serve", "--http"])
        assert result.exit_code != 0
        assert "token" in result.stderr and "Traceback" not in result.output
