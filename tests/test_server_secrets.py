"""Issue 15: secrets toward assistants. Over MCP every seat, the owner included, gets secrets
masked unless the config lets that seat reveal them; the owner on the CLI sees everything."""

from __future__ import annotations

import anyio
from mcp import Client
from tool_helpers import chat_source

from chatmem.config import parse_config
from chatmem.tools.mcp.server import build_server
from chatmem.tools.search import search_memory

pytest_plugins = ["tool_helpers"]  # fixtures: loaded, seats


def mcp_search(store, seat, query: str) -> dict:
    async def go():
        async with Client(build_server(store, seat)) as client:
            result = await client.call_tool("search_memory", {"query": query})
            assert not result.is_error, result.content
            return result.structured_content

    return anyio.run(go)


def test_the_owner_over_mcp_gets_secrets_masked_unless_configured(loaded, seats):
    owner = seats["owner"]
    # the CLI owner sees the code
    assert "482913" in search_memory(loaded, owner, "verification")["results"][0]["content"]
    # `chatmem serve` as the owner: masked by default
    hit = mcp_search(loaded, owner, "verification")["results"][0]
    assert "482913" not in hit["content"] and "[masked]" in hit["content"]
    # ... unless the config says the owner reveals secrets to assistants too
    cfg = parse_config({"seats": {"owner": {"reveal_secrets": True}}})
    revealing = cfg.seat(None)
    assert revealing.write and revealing.unrestricted  # still the owner in every other way
    assert "482913" in mcp_search(loaded, revealing, "verification")["results"][0]["content"]


def test_a_seat_allowed_to_reveal_reveals_over_mcp_too(loaded, seats):
    cfg = parse_config({"seats": {"trusted": {"reveal_secrets": True}}})
    assert "482913" in mcp_search(loaded, cfg.seat("trusted"), "verification")["results"][0]["content"]
    lena = chat_source(loaded, "Lena Vogel", "whatsapp")
    hit = mcp_search(loaded, seats["assistant"], "wifi")["results"][0]
    assert hit["source"] == lena and "Sommer2024" not in hit["content"]
