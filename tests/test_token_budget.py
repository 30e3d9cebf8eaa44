"""Token budgets hold in real tokens: get_conversation_context's items (and the memory) counted
with real BPE vocabularies (cl100k_base, o200k_base; shipped in the bpe-openai wheel, nothing is
downloaded) stay within 15% of the budget for English, German, Russian, Chinese and emoji-heavy
chats (tests/token_budget_chats.py). benchmarks/token_budget.py prints the same figures per budget.
"""

from __future__ import annotations

import json
from pathlib import Path

import bpe_openai
import pytest
from token_budget_chats import write

from chatmem.config import load_config
from chatmem.importers import find_sources
from chatmem.store import Store
from chatmem.tools.chats import list_chats
from chatmem.tools.conversation import get_conversation_context
from chatmem.tools.memory import save_memory
from chatmem.tools.tokens import approx_tokens, compact

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = {"English": "Maya Collins", "German": "Jonas Weber", "Russian": "Алексей Морозов",
             "Chinese": "李娜", "emoji": "Zoe Park"}
VOCABULARIES = [bpe_openai.get_encoding(name) for name in ("cl100k_base", "o200k_base")]
TOLERANCE = 1.15


def real_tokens(result: dict) -> int:
    """The most any of the vocabularies spends on what the budget covers, as the client gets it."""
    text = compact(result["items"]) + (compact(result["memory"]) if "memory" in result else "")
    return max(len(enc.encode(text)) for enc in VOCABULARIES)


@pytest.fixture(scope="module")
def chats(tmp_path_factory):
    config = load_config(ROOT / "fixtures" / "config.yaml")
    work = tmp_path_factory.mktemp("budget")
    store = Store.open(work / "home", config)
    store.import_sources(find_sources(write(work / "chats")))
    owner = config.seat(None)
    by_name = {c["chat"]: c["source"] for c in list_chats(store, owner)["chats"]}
    yield store, owner, {lang: by_name[name] for lang, name in LANGUAGES.items()}
    store.close()


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("budget", [100, 300, 1000, 2000])
def test_real_tokens_stay_within_15_percent_of_the_budget(chats, language, budget):
    store, owner, sources = chats
    r = get_conversation_context(store, owner, sources[language], token_budget=budget)
    assert r["items"] and r["has_more_older"]  # the chat is longer than any of these budgets
    assert r["approx_tokens"] <= budget
    real = real_tokens(r)
    assert real <= budget * TOLERANCE, f"{language} at {budget}: {real} real tokens"
    if budget >= 300:  # and the budget is used, not wasted: an assistant asked for that much
        assert real >= budget * 0.6, f"{language} at {budget}: only {real} real tokens"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_memory_counts_in_the_budget_in_real_tokens(chats, language):
    store, owner, sources = chats
    source = sources[language]
    newest = get_conversation_context(store, owner, source, token_budget=300)["items"]
    words = " ".join(item["text"] for item in newest)
    save_memory(store, owner, source, words, [newest[0]["id"]])
    for budget in (300, 1000):
        r = get_conversation_context(store, owner, source, token_budget=budget, include_memory=True)
        assert r["memory"]["text"] and r["items"]
        assert r["approx_tokens"] == (approx_tokens(compact(r["memory"]))
                                      + sum(approx_tokens(compact(i)) for i in r["items"])) <= budget
        assert real_tokens(r) <= budget * TOLERANCE


def test_one_message_longer_than_the_budget_comes_shortened_and_says_so(tmp_path):
    config = load_config(ROOT / "fixtures" / "config.yaml")
    long_text = "Notes from the meeting: " + "the plumber comes on Thursday morning. " * 200
    path = tmp_path / "long.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [
        {"platform": "whatsapp", "chat": "Maya Collins", "sender": "Maya Collins",
         "timestamp": "2024-03-01T10:00:00+01:00", "text": "short and older"},
        {"platform": "whatsapp", "chat": "Maya Collins", "sender": "Maya Collins",
         "timestamp": "2024-03-02T10:00:00+01:00", "text": long_text}]), encoding="utf-8")
    store = Store.open(tmp_path / "home", config)
    store.import_sources(find_sources(path, "jsonl"))
    owner = config.seat(None)
    source = list_chats(store, owner)["chats"][0]["source"]
    r = get_conversation_context(store, owner, source, token_budget=300)
    (item,) = r["items"]  # the newest, not nothing
    assert item["text_cut"] is True and item["text"].endswith("…")
    assert long_text.startswith(item["text"][:-1]) and len(item["text"]) > 200
    assert r["approx_tokens"] <= 300 and real_tokens(r) <= 300 * TOLERANCE
    assert r["items_omitted"] == 1 and r["has_more_older"]
    whole = get_conversation_context(store, owner, source, token_budget=100_000)
    assert "text_cut" not in whole["items"][0] and whole["items"][0]["text"] == long_text
    store.close()
