"""A store with imported fixtures from several platforms, for the tool tests.

Real fixtures: the Signal Desktop database, the iMessage chat.db, the Telegram JSON Lines. Plus
a test-local JSON Lines file of WhatsApp chats with what the other fixtures lack: a long chat
(budgets, neighbours, exact totals), verification codes, and a chat the `assistant` seat
excludes ("Dentist reminders").
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import pg_database, skip_without_pg

from chatmem.config import load_config
from chatmem.importers import find_sources
from chatmem.store import Store
from chatmem.tools.types import RESULT_SCHEMAS

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CONFIG = FIXTURES / "config.yaml"
REAL_FIXTURES = [
    FIXTURES / "signal" / "signal-desktop.sqlite",
    FIXTURES / "imessage" / "chat.db",
    FIXTURES / "jsonl" / "notes-from-telegram.jsonl",
]
LONG_CHAT_MESSAGES = 40
BERLIN = timezone(timedelta(hours=1))


def whatsapp_records() -> list[dict]:
    recs: list[dict] = [
        {"type": "chat", "platform": "whatsapp", "chat": "Lena Vogel", "participants": ["Lena Vogel"]},
    ]
    start = datetime(2024, 1, 10, 9, 0, tzinfo=BERLIN)
    for i in range(1, LONG_CHAT_MESSAGES + 1):
        sender = "Lena Vogel" if i % 2 else "me"
        recs.append({"platform": "whatsapp", "chat": "Lena Vogel", "sender": sender,
                     "timestamp": (start + timedelta(days=i)).isoformat(),
                     "text": f"lorem update number {i} about the garden"})
    same = (start + timedelta(days=LONG_CHAT_MESSAGES + 1)).isoformat()
    recs += [
        # three messages in the same minute: order by position, not time
        {"platform": "whatsapp", "chat": "Lena Vogel", "sender": "Lena Vogel", "timestamp": same,
         "text": "first of three at once"},
        {"platform": "whatsapp", "chat": "Lena Vogel", "sender": "Lena Vogel", "timestamp": same,
         "text": "second of three at once"},
        {"platform": "whatsapp", "chat": "Lena Vogel", "sender": "me", "timestamp": same,
         "text": "third of three at once"},
        {"platform": "whatsapp", "chat": "Lena Vogel", "sender": "Lena Vogel",
         "timestamp": "2024-03-01T10:00:00+01:00", "text": "The wifi password: Sommer2024! for the cabin"},
        {"platform": "whatsapp", "chat": "Lena Vogel", "sender": "Lena Vogel",
         "timestamp": "2024-03-01T10:05:00+01:00", "text": "Pinecone picnic at the lake on Sunday?"},
        {"type": "chat", "platform": "whatsapp", "chat": "Family", "group": True,
         "participants": ["Mum", "Dad", "Lena Vogel"]},
        {"platform": "whatsapp", "chat": "Family", "sender": "Mum", "timestamp": "2024-02-01T19:00:00+01:00",
         "text": "Dinner on Sunday, lorem ipsum as usual"},
        {"platform": "whatsapp", "chat": "Family", "sender": "", "kind": "system",
         "timestamp": "2024-02-01T19:01:00+01:00", "text": "Dad added Lena Vogel"},
        {"platform": "whatsapp", "chat": "Family", "sender": "Dad", "timestamp": "2024-02-01T19:02:00+01:00",
         "text": "G-482913 is your Google verification code"},
        {"type": "call", "platform": "whatsapp", "chat": "Family", "timestamp": "2024-02-02T20:00:00+01:00",
         "direction": "missed", "media": "video", "peer": "Mum",
         "transcript": "No summary here, only a transcript about the picnic basket " + "and more " * 200},
        {"type": "chat", "platform": "whatsapp", "chat": "Dentist reminders",
         "participants": ["Praxis Weiss"]},
        {"platform": "whatsapp", "chat": "Dentist reminders", "sender": "Praxis Weiss",
         "timestamp": "2024-06-10T09:00:00+02:00", "text": "Zahnstein cleaning lorem booked, your code is 739201"},
    ]
    return recs


def write_whatsapp_jsonl(folder: Path) -> Path:
    path = folder / "whatsapp-test.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in whatsapp_records()),
                    encoding="utf-8")
    return path


def build_store(home: Path, work: Path, url: str | None = None) -> Store:
    store = Store.open(home, load_config(CONFIG), url=url)
    for path in REAL_FIXTURES:
        store.import_sources(find_sources(path))
    store.import_sources(find_sources(write_whatsapp_jsonl(work), "jsonl"))
    return store


@contextmanager
def backend(name: str):
    """None for SQLite in the home folder, or the URL of a fresh PostgreSQL database."""
    if name == "sqlite":
        yield None
        return
    skip_without_pg()
    with pg_database() as url:
        yield url


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def loaded(request, tmp_path_factory):
    """A store with every fixture imported (read-only tests share it), on each backend."""
    base = tmp_path_factory.mktemp("tools")
    with backend(request.param) as url:
        store = build_store(base / "home", base, url)
        yield store
        store.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh(request, tmp_path):
    """The same store, for tests that write, on each backend."""
    with backend(request.param) as url:
        store = build_store(tmp_path / "home", tmp_path, url)
        yield store
        store.close()


@pytest.fixture(scope="module")
def seats():
    cfg = load_config(CONFIG)
    return {"owner": cfg.seat(None), "assistant": cfg.seat("assistant"), "notebook": cfg.seat("notebook")}


def jsonl_store(base: Path, records: list[dict], config: str) -> Store:
    """A store in `base` with `records` imported from a JSON Lines file (config: the YAML text)."""
    path = base / "archive.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    config_file = base / "config.yaml"
    config_file.write_text(config)
    s = Store.open(base / "home", load_config(config_file))
    s.import_sources(find_sources(path, "jsonl"))
    return s


def jsonl_store_fixture(name: str, records: Callable[[], list[dict]], config: str = "timezone: UTC\n") -> Any:
    """A module fixture `store`: `records()` imported from JSON Lines into a store of its own
    (see jsonl_store), closed after the module's tests."""
    @pytest.fixture(scope="module")
    def store(tmp_path_factory):
        s = jsonl_store(tmp_path_factory.mktemp(name), records(), config)
        yield s
        s.close()

    return store


def valid(name: str, result: dict) -> dict:
    """The result, after checking it against the tool's JSON Schema."""
    jsonschema.validate(result, RESULT_SCHEMAS[name])
    return result


def chat_source(store: Store, name: str, platform: str) -> str:
    from sqlalchemy import select

    from chatmem.store.models import Chat

    with store.read() as conn:
        return conn.execute(select(Chat.id).where(Chat.name == name, Chat.platform == platform)).scalar_one()
