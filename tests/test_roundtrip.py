"""Data safety (issue 9): `chatmem export` writes everything the store holds that is not
derived — messages, calls, people with their hand-made fixes, agent sessions, memories — and
importing the export into an empty store gives the same ids and contents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chatmem.config import load_config
from chatmem.store import Store
from chatmem.tools.api import MEMORY_ADMIN, TOOLS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

pytestmark = pytest.mark.usefixtures("any_backend")


def exported(cli) -> list[dict]:
    return [json.loads(line) for line in cli("export").stdout.splitlines()]


def wipe_database() -> None:
    import os

    url = os.environ.get("CHATMEM_DATABASE_URL")
    if url:
        from sqlalchemy import create_engine

        from chatmem.store.models import Base

        engine = create_engine(url)
        Base.metadata.drop_all(engine)
        engine.dispose()


def test_everything_survives_export_and_import_into_an_empty_store(cli, home, tmp_path):
    for folder in ("whatsapp", "imessage", "signal", "contacts"):
        cli("import", FIXTURES / folder)
    cli("people", "merge", "Priya Shah", "Nora Quinn")
    config = load_config()
    with Store.open(home, config) as store:
        owner = config.seat(None)
        session = TOOLS["start_conversation"](store, owner, subject="Trip planning")["conversation_id"]
        TOOLS["log_conversation_turn"](store, owner, session, "user", "Who brings the coffee?")
        hit = TOOLS["search_memory"](store, owner, "coffee", platform="signal")["results"][0]
        TOOLS["save_memory"](store, owner, hit["source"], "Anna brings coffee on Saturdays.", [hit["id"]])
        other = TOOLS["list_chats"](store, owner, platform="whatsapp")["chats"][0]["source"]
        MEMORY_ADMIN["pause_memory"](store, owner, other)

    before = exported(cli)
    kinds = {r["type"] for r in before}
    assert kinds == {"person", "chat", "message", "call", "memory"}
    dump = tmp_path / "everything.jsonl"
    dump.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in before), encoding="utf-8")

    wipe_database()
    fresh = type(cli)(tmp_path / "new-home")
    report = fresh.json("import", dump)[0]
    assert report["unparsed"] == 0
    after = exported(fresh)
    assert after == before

    # and what the tools show is the same: names, merges, memory, the agent session
    people = {p["name"]: p for p in fresh.json("people")["people"]}
    assert "Nora Quinn" not in people and people["Priya Shah"]["manual"] is True
    memory = fresh.json("memory", "show", hit["source"])
    assert "Anna brings coffee" in json.dumps(memory)
    history = fresh.json("history", session)
    assert history["subject"] == "Trip planning" and history["isExpired"] is False
    assert [t["content"] for t in history["turns"]] == ["Who brings the coffee?"]
