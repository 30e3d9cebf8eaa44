"""read_raw_data, the result schemas, and the CLI commands over the tools."""

from __future__ import annotations

import json

import jsonschema
import pytest
from tool_helpers import REAL_FIXTURES, chat_source, valid, write_whatsapp_jsonl

from chatmem.errors import ArgumentError
from chatmem.tools.api import TOOLS
from chatmem.tools.raw import read_raw_data
from chatmem.tools.search import search_memory
from chatmem.tools.types import RESULT_SCHEMAS

pytest_plugins = ["tool_helpers"]  # fixtures: loaded, fresh, seats


def hit(store, seat, query):
    return search_memory(store, seat, query)["results"][0]


def test_raw_message_with_versions_reactions_and_attachments(loaded, seats):
    owner = seats["owner"]
    edited = hit(loaded, owner, "thermos")
    r = valid("read_raw_data", read_raw_data(loaded, owner, edited["id"]))
    assert r["ok"] and r["type"] == "message" and not r["truncated"]
    assert r["content"].startswith('{"platform": "telegram"')  # the exported line, verbatim
    assert "--- earlier versions ---\nv1 2024-05-03T18:06:30+02:00: Count me in" in r["content"]
    assert r["size_bytes"] == len(r["content"].encode("utf-8"))
    assert r["relations"]["chat"] == edited["source"]
    version = valid("read_raw_data", read_raw_data(loaded, owner, r["relations"]["versions"][0]))
    assert version["ok"] and version["content"].endswith("Count me in")
    reacted = valid("read_raw_data", read_raw_data(loaded, owner, hit(loaded, owner, "Munich")["id"]))
    assert reacted["relations"]["reactions"] == ["👍 Anna Berg"]
    photo = valid("read_raw_data", read_raw_data(loaded, owner, hit(loaded, owner, '"photo from last time"')["id"]))
    att = photo["relations"]["attachments"][0]
    a = valid("read_raw_data", read_raw_data(loaded, owner, att))
    assert a["type"] == "attachment" and json.loads(a["content"])["name"] == "summit.jpg"


def test_raw_signal_row_and_call(loaded, seats):
    owner = seats["owner"]
    signal = search_memory(loaded, owner, "coffee", platform="signal")["results"][0]
    r = valid("read_raw_data", read_raw_data(loaded, owner, signal["id"]))
    assert r["ok"] and r["content"].lstrip().startswith("{")  # the decoded database row
    call = valid("read_raw_data", read_raw_data(loaded, owner, hit(loaded, owner, "garmisch")["id"]))
    assert call["type"] == "call" and "--- summary ---" in call["content"]


def test_raw_unknown_truncation_and_errors(loaded, seats):
    owner = seats["owner"]
    r = valid("read_raw_data", read_raw_data(loaded, owner, "m_doesnotexist"))
    assert r["ok"] is False and "m_doesnotexist" in r["error"]
    whole = read_raw_data(loaded, owner, hit(loaded, owner, "thermos")["id"])
    cut = valid("read_raw_data", read_raw_data(loaded, owner, whole["id"], max_chars=20))
    assert cut["truncated"] and cut["content"] == whole["content"][:20]
    assert cut["size_bytes"] == whole["size_bytes"]
    with pytest.raises(ArgumentError, match="max_chars must be a whole number from 0"):
        read_raw_data(loaded, owner, whole["id"], max_chars=-1)


def test_raw_turn_and_memory(fresh, seats):
    nb = seats["notebook"]
    cid = TOOLS["start_conversation"](fresh, nb, subject="Raw test")["conversation_id"]
    ref = TOOLS["search_memory"](fresh, nb, "wifi")["results"][0]["id"]
    turn = TOOLS["log_conversation_turn"](fresh, nb, cid, "user", "my PIN is 4821", refs=[ref])
    r = valid("read_raw_data", read_raw_data(fresh, nb, turn["id"]))
    assert r["type"] == "turn" and r["relations"]["refs"] == [ref]
    assert "4821" not in r["content"] and "PIN is [masked]" in r["content"]  # notebook cannot reveal
    assert "4821" in read_raw_data(fresh, seats["owner"], turn["id"])["content"]
    mem = TOOLS["save_memory"](fresh, nb, cid, "The user shared a PIN.", [turn["id"]])
    m = valid("read_raw_data", read_raw_data(fresh, nb, mem["id"]))
    assert m["type"] == "memory" and m["relations"]["cites"] == [turn["id"]]


# ---------------------------------------------------------------------- schemas


def test_schemas_are_strict_enough_to_catch_a_wrong_field(loaded, seats):
    good = search_memory(loaded, seats["owner"], "coffee")
    jsonschema.validate(good, RESULT_SCHEMAS["search_memory"])
    extra = json.loads(json.dumps(good))
    extra["results"][0]["secret_field"] = 1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(extra, RESULT_SCHEMAS["search_memory"])
    wrong = json.loads(json.dumps(good))
    wrong["results"][0]["group"] = "yes"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(wrong, RESULT_SCHEMAS["search_memory"])
    missing = json.loads(json.dumps(good))
    del missing["total"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(missing, RESULT_SCHEMAS["search_memory"])
    for name in TOOLS:
        assert RESULT_SCHEMAS[name]["additionalProperties"] is False, name


# ---------------------------------------------------------------------- CLI


@pytest.fixture
def cli_home(cli, tmp_path):
    cli("import", *REAL_FIXTURES)
    cli("import", "--platform", "jsonl", write_whatsapp_jsonl(tmp_path))
    return cli


def test_cli_commands_print_the_tool_result_with_json(cli_home):
    cli = cli_home
    found = cli.json("search", "thermos")
    jsonschema.validate(found, RESULT_SCHEMAS["search_memory"])
    mid, source = found["results"][0]["id"], found["results"][0]["source"]
    for args, name in [(("context", mid, "-B", "1"), "get_context"),
                       (("conversation", source, "--memory"), "get_conversation_context"),
                       (("history", source, "--turns", "2"), "get_conversation_history"),
                       (("raw", mid), "read_raw_data"), (("chats",), "list_chats"),
                       (("memory", "show", source), "get_memory")]:
        jsonschema.validate(cli.json(*args), RESULT_SCHEMAS[name])
    saved = cli.json("memory", "save", source, "Ben brings coffee", "--cite", mid)
    jsonschema.validate(saved, RESULT_SCHEMAS["save_memory"])
    assert cli.json("memory", "pause", source) == {"conversation_id": source, "paused": True}
    assert cli.json("memory", "show", source) == {"status": "paused"}
    for args in [("context", mid), ("conversation", source), ("history", source), ("raw", mid)]:
        out = cli(*args).output
        assert "Ben Ortiz" in out or "thermos" in out


def test_cli_errors_are_one_line(cli_home):
    r = cli_home("context", "m_nope", expect=1)
    assert r.output.strip().count("\n") == 0 and "m_nope" in r.output
    r = cli_home("search", "coffee", "--limit", "99", expect=2)
    assert "'--limit'" in r.output and "1<=x<=50" in r.output
    r = cli_home("--seat", "assistant", "memory", "pause", chat_source_id(cli_home), expect=1)
    assert "may not write" in r.output


def chat_source_id(cli) -> str:
    return cli.json("chats", "--platform", "whatsapp")["chats"][0]["source"]


def test_chat_source_helper_matches_list_chats(loaded, seats):
    lena = chat_source(loaded, "Lena Vogel", "whatsapp")
    listed = TOOLS["list_chats"](loaded, seats["owner"], query="lena")
    assert lena in [c["source"] for c in valid("list_chats", listed)["chats"]]
