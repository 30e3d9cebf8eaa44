"""Token budgets in real tokens: what get_conversation_context and get_conversation_history
hand a model, counted with real BPE vocabularies (cl100k_base and o200k_base, shipped inside
the `bpe-openai` wheel: nothing is downloaded), against the budget asked for.

    python benchmarks/token_budget.py                   # the five chats of tests/token_budget_chats.py
    python benchmarks/token_budget.py --budgets 100 2000

For each chat (English, German, Russian, Chinese, emoji-heavy) and budget it prints the items
returned, `approx_tokens` (the SPEC's estimate: ceil(UTF-8 bytes / 4) per item's compact JSON),
and the real tokens of what counts in the budget (the compact JSON of `items`, plus the memory
object when asked for) in each vocabulary, as a ratio to the budget. The test
(tests/test_token_budget.py) holds the same figures within 15% of the budget. For the history,
which has no budget, it prints real tokens per turn beside the estimate.

The per-character weights of chatmem/tools/tokens.py (`fill_tokens`) were set from these
figures: tokens per character, by kind of character, in both vocabularies.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "fixtures" / "config.yaml"
VOCABULARIES = ("cl100k_base", "o200k_base")
BUDGETS = (50, 100, 300, 1000, 2000, 4000)
LANGUAGES = {"Maya Collins": "English", "Jonas Weber": "German", "Алексей Морозов": "Russian",
             "李娜": "Chinese", "Zoe Park": "emoji"}


def compact(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def counted(result: dict) -> str:
    """What the budget covers, as the client receives it: the items, and the memory."""
    text = compact(result["items"])
    if "memory" in result:
        text += compact(result["memory"])
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=int, nargs="*", default=list(BUDGETS))
    args = parser.parse_args()
    import bpe_openai

    from chatmem.config import load_config
    from chatmem.importers import find_sources
    from chatmem.store import Store
    from chatmem.tools.conversation import get_conversation_context
    from chatmem.tools.history import get_conversation_history

    sys.path.insert(0, str(ROOT / "tests"))
    from token_budget_chats import write

    encodings = {name: bpe_openai.get_encoding(name) for name in VOCABULARIES}
    config = load_config(CONFIG)
    with tempfile.TemporaryDirectory() as home:
        store = Store.open(Path(home) / "store", config)
        store.import_sources(find_sources(write(Path(home) / "chats")))
        owner = config.seat(None)
        from chatmem.tools.chats import list_chats

        chats = {c["chat"]: c["source"] for c in list_chats(store, owner, limit=50)["chats"]}
        print(f"{'chat':8} {'budget':>6} {'items':>5} {'approx':>6} "
              + " ".join(f"{v[:6]:>6} {'/bud':>5}" for v in VOCABULARIES))
        worst = Counter[str]()
        for title, language in LANGUAGES.items():
            source = chats[title]
            for budget in args.budgets:
                r = get_conversation_context(store, owner, source, token_budget=budget)
                text = counted(r)
                real = {v: len(e.encode(text)) for v, e in encodings.items()}
                ratios = {v: n / budget for v, n in real.items()}
                worst[language] = max(worst[language], *ratios.values())
                print(f"{language:8} {budget:>6} {r['items_included']:>5} {r['approx_tokens']:>6} "
                      + " ".join(f"{real[v]:>6} {ratios[v]:>5.2f}" for v in VOCABULARIES))
            history = get_conversation_history(store, owner, source, max_turns=50)
            turns = history["turns"]
            est = sum(-(-len(compact(t).encode()) // 4) for t in turns)
            real = {v: len(e.encode(compact(turns))) for v, e in encodings.items()}
            print(f"{language:8} history {len(turns)} turns: estimate {est}, "
                  + ", ".join(f"{v} {n} ({n / len(turns):.1f}/turn)" for v, n in real.items()))
        print("worst real/budget: " + ", ".join(f"{k} {v:.2f}" for k, v in worst.items()))
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
