"""Secret masking measured on a labelled set (issue 18, point 5), and held through every read
tool for a seat with `reveal_secrets: false`.

tests/secret_examples.py holds more than 100 messages with secrets (seed phrases, quoted
passwords, `pw:`, labels inside identifiers, Slack and Discord webhooks, Discord and Twilio
tokens, Wi-Fi QR strings, card numbers and IBANs without a label, codes in many languages)
and more than 100 harmless look-alikes ("your code looks great, merged PR 4521"). The run
prints the share of secrets masked and of look-alikes changed, and holds the targets:
at least 98% masked, at most 2% of look-alikes touched.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from figures import report
from secret_examples import LOOK_ALIKES, SECRETS

from chatmem.importers import find_sources
from chatmem.store import Store
from chatmem.tools import api
from chatmem.tools.secrets import MASK, mask_secrets

RECALL_TARGET = 0.98
FALSE_POSITIVE_LIMIT = 0.02


def _leaks(text: str, parts: list[str]) -> list[str]:
    return [p for p in parts if p in text]


def test_masking_meets_its_targets_on_the_labelled_set():
    assert len(SECRETS) >= 100 and len(LOOK_ALIKES) >= 100
    missed = [(t, mask_secrets(t)) for t, parts in SECRETS
              if _leaks(mask_secrets(t), parts) or MASK not in mask_secrets(t)]
    touched = [(t, mask_secrets(t)) for t in LOOK_ALIKES if mask_secrets(t) != t]
    recall = 1 - len(missed) / len(SECRETS)
    false_positives = len(touched) / len(LOOK_ALIKES)
    report(f"secrets masked: {len(SECRETS) - len(missed)}/{len(SECRETS)} ({recall:.1%}); "
           f"look-alikes changed: {len(touched)}/{len(LOOK_ALIKES)} ({false_positives:.1%})")
    for text, out in missed + touched:
        print(f"  {text!r} -> {out!r}")
    assert recall >= RECALL_TARGET, missed
    assert false_positives <= FALSE_POSITIVE_LIMIT, touched


@pytest.mark.parametrize(("text", "parts"), SECRETS[:12] + SECRETS[60:64])
def test_json_escaped_secrets_are_masked_in_raw_records(text, parts):
    """A raw record is JSON: escaped quotes and newlines must not hide a secret."""
    raw = json.dumps({"text": text, "line": 3}, ensure_ascii=False)
    assert not _leaks(mask_secrets(raw), parts)


def test_a_masked_raw_record_stays_json():
    raw = json.dumps({"text": 'password: "correct horse battery staple"', "password": "hunter2x"})
    assert json.loads(mask_secrets(raw)) == {"text": 'password: "[masked]"', "password": MASK}


@pytest.fixture(scope="module")
def vault(tmp_path_factory):
    """A store with every labelled message (secrets and look-alikes) in a WhatsApp chat."""
    from conftest import FIXTURE_CONFIG

    from chatmem.config import load_config

    folder = tmp_path_factory.mktemp("vault")
    start = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
    lines = [{"type": "chat", "platform": "whatsapp", "chat": "Vault", "participants": ["Anna Berg"]}]
    for i, text in enumerate([t for t, _ in SECRETS] + LOOK_ALIKES):
        lines.append({"platform": "whatsapp", "chat": "Vault", "sender": "Anna Berg",
                      "timestamp": (start + timedelta(minutes=i)).isoformat(), "text": text})
    path = folder / "vault.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    config = load_config(FIXTURE_CONFIG)
    store = Store.open(folder / "home", config)
    store.import_sources(find_sources(path, "jsonl"))
    yield store, config
    store.close()


def test_no_secret_reaches_a_seat_that_may_not_reveal_them(vault):
    store, config = vault
    seat = config.seat("assistant")
    assert not seat.reveal_secrets
    tools = api.TOOLS
    source = next(c["source"] for c in tools["list_chats"](store, seat)["chats"] if c["chat"] == "Vault")
    results: list[dict] = []
    turns, offset = [], 0
    while True:
        page = tools["get_conversation_history"](store, seat, source, max_turns=50, offset=offset)
        turns += page["turns"]
        results.append(page)
        if len(page["turns"]) < 50:
            break
        offset += 50
    assert len(turns) == len(SECRETS) + len(LOOK_ALIKES)
    results.append(tools["get_conversation_context"](store, seat, source, token_budget=100_000))
    ids = [m["id"] for m in tools["get_context"](store, seat, _first_id(store, seat, source),
                                                 before=0, after=50)["messages"]]
    for memory_id in ids:
        results.append(tools["get_context"](store, seat, memory_id, before=1, after=1))
        results.append(tools["read_raw_data"](store, seat, memory_id))
    for text, _ in SECRETS:
        word = next((w for w in text.replace(":", " ").split() if w.isalpha() and len(w) > 3), None)
        if word:
            results.append(tools["search_memory"](store, seat, word, limit=50))
    shown = json.dumps(results, ensure_ascii=False)
    leaked = [(text, parts) for text, parts in SECRETS if _leaks(shown, parts)]
    report(f"secrets leaked through the read tools as seat 'assistant': {len(leaked)}/{len(SECRETS)}")
    assert not leaked
    # the owner still sees everything
    owner = config.seat(None)
    raw = tools["get_conversation_context"](store, owner, source, token_budget=100_000)
    assert "correct horse battery staple" in json.dumps(raw, ensure_ascii=False)


def _first_id(store, seat, source) -> str:
    page = api.TOOLS["get_conversation_history"](store, seat, source, max_turns=1,
                                                 offset=len(SECRETS) + len(LOOK_ALIKES) - 1)
    return page["turns"][0]["refs"][0] if page["turns"][0].get("refs") else page["turns"][0]["id"]
