"""Keep a tool result within what an assistant can take in one response.

Some MCP clients refuse or cut a tool response above 25,000 tokens. A result whose JSON is
longer than that (counted as characters / 4, the SPEC's token estimate) is cut here, and says
so: first whole items go (the least relevant end of the tool's main list, keeping the fields
that say there is more), then over-long strings are shortened. The result keeps the shape of
its schema, so a client validating structured output still accepts it.

    >>> r = {"results": [{"content": "x" * 60_000}, {"content": "y" * 60_000}],
    ...      "total": 2, "has_more": False}
    >>> cut = fit_result("search_memory", r)
    >>> len(cut["results"]), cut["has_more"], cut["truncated"]
    (1, True, True)
"""

from __future__ import annotations

import json
from typing import Any

from ..tokens import approx_tokens

RESPONSE_TOKEN_CAP = 25_000  # the cap some clients (Claude Code) apply to one tool response
CHARS_PER_TOKEN = 4
# room for the JSON-RPC envelope and the note we add
MAX_RESULT_CHARS = RESPONSE_TOKEN_CAP * CHARS_PER_TOKEN - 4_000
MIN_STRING_CHARS = 200  # never shorten a string below this while looking for room
CUT_MARK = " … [cut to fit the response limit]"

# the list each tool's result is mostly made of, and which end of it matters least
OLDEST_LAST, OLDEST_FIRST, AROUND_HIT = "end", "start", "around_hit"
MAIN_LIST = {
    "search_memory": ("results", OLDEST_LAST),  # ranked: the tail is the weakest
    "list_chats": ("chats", OLDEST_LAST),  # newest activity first
    "get_context": ("messages", AROUND_HIT),  # keep the hit and its nearest neighbours
    "get_conversation_context": ("items", OLDEST_LAST),  # newest first
    "get_conversation_history": ("turns", OLDEST_FIRST),  # chronological
}


def dumps(result: Any) -> str:
    """The compact JSON the server sends as the result's text content."""
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"), default=str)


def fit_result(name: str, result: dict[str, Any], limit: int = MAX_RESULT_CHARS,
               schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """`result` itself when it fits in `limit` characters of JSON, else a shortened copy
    marked `truncated: true` with a `note` (each only where `schema` allows the key)."""
    size = len(dumps(result))
    if size <= limit:
        return result
    result = dict(result)
    dropped = _drop_items(name, result, size, limit)
    if len(dumps(result)) > limit:
        marks = len(',"text_cut":true') * (len(result.get("items") or []) + 1)
        _shorten_strings(result, limit - marks if name == "get_conversation_context" else limit)
        if name == "get_conversation_context":
            _mark_cut_texts(result)
    what = f"{dropped} item(s) left out and " if dropped else ""
    note = (f"Result cut to fit the {RESPONSE_TOKEN_CAP:,}-token response limit: {what}long "
            "texts shortened where needed. Ask for fewer items (limit, max_turns, token_budget) "
            "or read one record with read_raw_data(max_chars=...).")
    if _allows(schema, "truncated"):
        result["truncated"] = True
    if _allows(schema, "note"):
        result["note"] = note
    return result


def _allows(schema: dict[str, Any] | None, key: str) -> bool:
    if schema is None:
        return True
    props = schema.get("properties") or {}
    if key in props:
        return True
    return schema.get("additionalProperties", True) is not False


def _drop_items(name: str, result: dict[str, Any], size: int, limit: int) -> int:
    if name not in MAIN_LIST:
        return 0
    key, end = MAIN_LIST[name]
    items = result.get(key)
    if not isinstance(items, list) or len(items) <= 1:
        return 0
    sizes = [len(dumps(item)) + 1 for item in items]
    keep = list(range(len(items)))
    order = _drop_order(items, end)
    dropped: list[int] = []
    for i in order:
        if size <= limit or len(keep) <= 1:
            break
        keep.remove(i)
        dropped.append(i)
        size -= sizes[i]
    if not dropped:
        return 0
    result[key] = [items[i] for i in keep]
    gone = [items[i] for i in dropped]
    if "has_more" in result:
        result["has_more"] = True
    if name == "get_conversation_context":
        _recount_context(result, gone)
    return len(dropped)


def _drop_order(items: list, end: str) -> list[int]:
    n = len(items)
    if end == OLDEST_FIRST:
        return list(range(n))
    if end == AROUND_HIT:
        hit = next((i for i, m in enumerate(items) if isinstance(m, dict) and m.get("hit")), n // 2)
        return sorted(range(n), key=lambda i: (-abs(i - hit), i))
    return list(range(n - 1, -1, -1))


def _recount_context(result: dict[str, Any], gone: list) -> None:
    """Keep get_conversation_context's counters true after items were left out."""
    if isinstance(result.get("items_included"), int):
        result["items_included"] -= len(gone)
    if isinstance(result.get("items_omitted"), int):
        result["items_omitted"] += len(gone)
    if "has_more_older" in result:
        result["has_more_older"] = True
    if isinstance(result.get("approx_tokens"), int):
        freed = sum(approx_tokens(dumps(item)) for item in gone)
        result["approx_tokens"] = max(0, result["approx_tokens"] - freed)


def _mark_cut_texts(result: dict[str, Any]) -> None:
    """Items (and the memory) whose text was shortened say so, and `approx_tokens` counts
    what is left (the text_cut mark included)."""
    parts = [*(result.get("items") or []), *([result["memory"]] if isinstance(result.get("memory"), dict) else [])]
    for part in parts:
        if isinstance(part, dict) and str(part.get("text", "")).endswith(CUT_MARK):
            part["text_cut"] = True
    if isinstance(result.get("approx_tokens"), int):
        result["approx_tokens"] = sum(approx_tokens(dumps(part)) for part in parts)


def _shorten_strings(result: dict[str, Any], limit: int) -> None:
    """Clip every string to the longest length that makes the whole result fit."""
    lo, hi = MIN_STRING_CHARS, max(MIN_STRING_CHARS, _longest_string(result))
    best = lo
    while lo <= hi:  # binary search on the clip length
        mid = (lo + hi) // 2
        if len(dumps(_clip(result, mid))) <= limit:
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    clipped = _clip(result, best)
    result.clear()
    result.update(clipped)


def _longest_string(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return max((_longest_string(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return max((_longest_string(v) for v in value), default=0)
    return 0


def _clip(value: Any, n: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= n else value[: max(0, n - len(CUT_MARK))] + CUT_MARK
    if isinstance(value, dict):
        return {k: _clip(v, n) for k, v in value.items()}
    if isinstance(value, list):
        return [_clip(v, n) for v in value]
    return value
