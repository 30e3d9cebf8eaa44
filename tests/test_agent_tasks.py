"""Issue 15: realistic multi-step tasks, driven the way an assistant drives them: through the MCP
SDK's own client, over stdio (`chatmem serve`) and over HTTP (`chatmem serve --http` with a
seat's token), on our bundled fixtures. Each task must reach its answer in a bounded number of
calls, and no read on the way may come back empty (an empty result is a dead end for a model).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from server_helpers import (
    ASSISTANT_TOKEN,
    NOTEBOOK_TOKEN,
    ROOT,
    TELEGRAM_JSONL,
    chatmem,
    http_server,
    http_session,
    session,
    stdio_client,
)

FIXTURES = ROOT / "fixtures"
# the list each read tool answers with: empty means the assistant learned nothing
MAIN_LIST = {"search_memory": "results", "get_context": "messages", "get_conversation_context": "items",
             "get_conversation_history": "turns", "list_chats": "chats"}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("agent") / "home"
    for path in (FIXTURES / "whatsapp", FIXTURES / "signal" / "signal-desktop.sqlite",
                 FIXTURES / "imessage" / "chat.db", TELEGRAM_JSONL):
        chatmem(home, "import", str(path))
    return home


class Agent:
    """Counts calls; every read must say something, every call must succeed unless expected."""

    def __init__(self, client, budget: int):
        self.client = client
        self.budget = budget
        self.calls = 0

    def __call__(self, tool: str, **args: Any) -> dict:
        self.calls += 1
        assert self.calls <= self.budget, f"more than {self.budget} calls"
        data = self.client.result(tool, **args)
        key = MAIN_LIST.get(tool)
        assert key is None or data[key], f"{tool}({args}) came back empty: a dead end"
        return data

    def refused(self, tool: str, **args: Any) -> str:
        """A call the server refuses with an error the model can read and act on."""
        self.calls += 1
        result = self.client.call(tool, **args)
        assert result.is_error, f"{tool}({args}) was expected to be refused"
        return result.content[0].text


@pytest.fixture(scope="module")
def owner(home):
    with session(stdio_client(home)) as client:
        yield client


@pytest.fixture(scope="module")
def http(home, tmp_path_factory):
    with http_server(home, tmp_path_factory.mktemp("agent-http") / "server.log") as server:
        yield server


def test_what_anna_said_about_the_climbing_gym_and_the_reply(owner):
    agent = Agent(owner, 3)
    hit = agent("search_memory", query="climbing gym", person="anna")["results"][0]
    assert "climbing gym" in hit["content"].lower() and hit["sender"] == "Anna Berg"
    around = agent("get_context", memory_id=hit["id"], before=0, after=3)["messages"]
    reply = next(m for m in around if not m["hit"])
    assert reply["sender"] == "me"


def test_summarise_the_last_conversation_with_anna_within_1500_tokens(owner):
    agent = Agent(owner, 2)
    chat = next(c for c in agent("list_chats", query="Anna")["chats"] if c["chat"] == "Anna Berg")
    ctx = agent("get_conversation_context", conversation_id=chat["source"], token_budget=1500)
    assert 0 < ctx["approx_tokens"] <= 1500 and ctx["items_included"] == len(ctx["items"])


def test_find_the_photo_anna_sent_from_the_trail_and_its_file_name(owner):
    agent = Agent(owner, 4)
    chats = agent("list_chats", query="anna", platform="Signal")["chats"]
    source = next(c["source"] for c in chats if c["chat"] == "Anna Berg")
    items = agent("get_conversation_context", conversation_id=source, token_budget=4000)["items"]
    photo = next(i for i in items if any(a["type"].startswith("image/") for a in i.get("attachments", [])))
    assert photo["kind"] == "media" and photo["attachments"][0]["name"] == "trail.jpg"
    raw = agent("read_raw_data", record_id=photo["id"])
    assert raw["ok"] and "trail.jpg" in raw["content"]


def test_who_mentioned_dinner_first(owner):
    agent = Agent(owner, 1)
    first = agent("search_memory", query="dinner", sort="oldest", limit=1)["results"][0]
    assert first["sender"] == "Nora Quinn" and first["date"].startswith("2013-12-24")


def test_what_the_book_club_discussed_in_september_2023(owner):
    agent = Agent(owner, 2)
    club = agent("list_chats", query="book club")["chats"][0]
    ctx = agent("get_conversation_context", conversation_id=club["source"], since="2023-09-01",
                before="2023-10-01", token_budget=3000)
    months = {datetime.fromisoformat(i["timestamp"]).strftime("%Y-%m") for i in ctx["items"]}
    assert months == {"2023-09"} and not ctx["has_more_older"]
    assert any("Left Hand of Darkness" in i["text"] for i in ctx["items"])


def test_read_a_long_chat_back_to_its_start(owner):
    agent = Agent(owner, 12)
    club = agent("list_chats", query="book club")["chats"][0]
    seen: list[str] = []
    before = None
    while True:
        ctx = agent("get_conversation_context", conversation_id=club["source"], token_budget=200,
                    **({"before": before} if before else {}))
        seen += [i.get("id") or i["call_id"] for i in ctx["items"]]
        if not ctx["has_more_older"]:
            break
        before = ctx["items"][-1].get("id") or ctx["items"][-1]["call_id"]
    assert len(seen) == len(set(seen)) == club["messages"]


def test_page_through_every_match(owner):
    agent = Agent(owner, 15)
    seen, offset = [], 0
    while True:
        page = agent("search_memory", query="the", limit=10, offset=offset)
        seen += [r["id"] for r in page["results"]]
        if not page["has_more"]:
            break
        offset += len(page["results"])
    assert len(seen) == len(set(seen)) == page["total"]


def test_a_typo_gets_an_error_that_leads_to_the_answer(owner):
    agent = Agent(owner, 2)
    error = agent.refused("list_chats", platform="whatsap")
    assert "did you mean 'whatsapp'" in error and "pydantic" not in error
    assert {c["platform"] for c in agent("list_chats", platform="whatsapp")["chats"]} == {"whatsapp"}


def test_a_name_nobody_has_points_at_the_closest_people(owner):
    agent = Agent(owner, 2)
    error = agent.refused("search_memory", query="climbing", person="Ana Berk")
    assert "Anna Berg" in error
    assert agent("search_memory", query="climbing", person="Anna Berg")["people_matched"][0]["name"] == "Anna Berg"


def test_a_verification_code_stays_masked_for_an_assistant(owner):
    agent = Agent(owner, 2)
    hit = agent("search_memory", query="dentist appointment code")["results"][0]
    raw = agent("read_raw_data", record_id=hit["id"])
    assert "482913" not in hit["content"] + raw["content"]
    assert "[masked]" in hit["content"] and "[masked]" in raw["content"]


def test_history_pages_back_through_a_group(owner):
    agent = Agent(owner, 3)
    club = agent("list_chats", query="book club")["chats"][0]
    latest = agent("get_conversation_history", conversationId=club["source"], maxTurns=5)
    earlier = agent("get_conversation_history", conversation_id=club["source"], max_turns=5, offset=5)
    assert len(latest["turns"]) == 5 and len(earlier["turns"]) == 5
    assert earlier["turns"][-1]["turnNumber"] == latest["turns"][0]["turnNumber"] - 1
    assert any(t["role"] == "system" and t["sender"] for t in earlier["turns"] + latest["turns"])


def test_continue_a_logged_session_over_http(http):
    """The notebook seat logs a session, comes back to it, and finds it again by search."""
    with http_session(http.url, NOTEBOOK_TOKEN) as client:
        agent = Agent(client, 7)
        hit = agent("search_memory", query="climbing gym", person="Anna")["results"][0]
        sid = agent("start_conversation", subject="Weekend plans")["conversation_id"]
        agent("log_conversation_turn", conversation_id=sid, role="user", content="When is climbing?",
              refs=[hit["id"]])
        agent("log_conversation_turn", conversation_id=sid, role="assistant",
              content="Saturday at 10:00 with Anna, bring the spare harness.", refs=[hit["id"]])
        back = agent("get_conversation_history", conversationId=sid, maxTurns=10)
        assert [t["role"] for t in back["turns"]] == ["user", "assistant"] and back["subject"] == "Weekend plans"
        found = agent("search_memory", query="spare harness", platform="agent")["results"][0]
        assert found["source"] == sid
        refused = client.call("log_conversation_turn", conversation_id=sid, role="user", content="x",
                              refs=["m_doesnotexist"])
        assert refused.is_error and "m_doesnotexist" in refused.content[0].text


def test_the_assistant_seat_over_http_finds_dinner_and_reads_the_book_club(http):
    with http_session(http.url, ASSISTANT_TOKEN) as client:
        agent = Agent(client, 4)
        first = agent("search_memory", query="dinner", sort="oldest", limit=1)
        assert first["results"][0]["sender"] == "Nora Quinn" and first["total"] >= 2
        club = agent("list_chats", query="Book Club")["chats"][0]
        ctx = agent("get_conversation_context", conversation_id=club["source"], token_budget=600)
        assert ctx["approx_tokens"] <= 600


def test_the_assistant_seat_over_http_sees_nothing_of_imessage(http):
    with http_session(http.url, ASSISTANT_TOKEN) as client:
        # the assistant may not read iMessage: asking for it says nothing is there, exactly
        imessage = client.result("search_memory", query="climbing", platform="imessage")
        assert (imessage["results"], imessage["total"], imessage["has_more"]) == ([], 0, False)
