"""Token counts for budgets: the SPEC's estimate, and a closer one used to fill a budget.

`approx_tokens` is the figure results report: ceil(UTF-8 bytes / 4) of an item's compact JSON,
as the client receives it (not ASCII-escaped: a Cyrillic letter is 2 bytes, not `\\u0441`).
Real BPE vocabularies (cl100k, o200k) spend more than that on ids, timestamps, digits,
Cyrillic, CJK and emoji, so a budget filled by the estimate alone comes back 30-50% over in real
tokens. `fill_tokens` weighs each character by its kind (calibrated against both vocabularies
in benchmarks/token_budget.py) and is what a budget is filled by; it is never below the
reported estimate, so `approx_tokens` still never exceeds the budget.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any

# tokens per character, by kind of character (measured: benchmarks/token_budget.py)
LETTER, DIGIT, SPACE, PUNCT = 0.27, 0.45, 0.05, 0.55
LATIN_EXT, CYRILLIC, CJK, EMOJI, OTHER = 0.6, 0.5, 1.05, 1.4, 0.8


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)  # made once, not per call


def compact(value: Any) -> str:
    """The compact JSON a client receives."""
    return _COMPACT.encode(value)


def approx_tokens(text: str) -> int:
    """ceil(UTF-8 bytes / 4): the estimate every reported token figure uses."""
    return math.ceil(len(text.encode("utf-8")) / 4)


def _weight(ch: str) -> float:
    o = ord(ch)
    if o < 128:
        if ch.isalpha():
            return LETTER
        if ch.isdigit():
            return DIGIT
        return SPACE if ch.isspace() else PUNCT
    if o < 0x250:
        return LATIN_EXT
    if 0x400 <= o < 0x530:
        return CYRILLIC
    if 0x2E80 <= o < 0xA000 or 0xAC00 <= o < 0xD7B0 or 0xF900 <= o < 0xFB00 or 0xFF00 <= o < 0xFFF0:
        return CJK
    if o >= 0x1F000 or 0x2600 <= o < 0x27C0 or o in (0x200D, 0xFE0F):
        return EMOJI
    return OTHER


def _hundredths(ch: str) -> int:
    """A character's weight in hundredths of a token: whole numbers add up exactly."""
    return round(_weight(ch) * 100)


_CLASS_WEIGHTS = sorted({_hundredths(chr(i)) for i in range(128)})  # hundredths per class of ASCII byte
_ASCII_CLASS = bytes([_CLASS_WEIGHTS.index(_hundredths(chr(i))) for i in range(128)] + [0] * 128)
_WEIGHTS: dict[str, int] = {}  # non-ASCII characters seen so far -> hundredths


def _weighed(text: str) -> int:
    """The sum of `text`'s character weights in hundredths. ASCII is counted per class of byte
    in C; other text per distinct character."""
    if text.isascii():  # each byte to its class, then count each class
        classes = text.encode("ascii").translate(_ASCII_CLASS)
        return sum(w * classes.count(k) for k, w in enumerate(_CLASS_WEIGHTS))
    total = 0
    for ch, n in Counter(text).items():
        w = _WEIGHTS.get(ch)
        if w is None:
            w = _WEIGHTS[ch] = _hundredths(ch)
        total += w * n
    return total


def fill_tokens(text: str) -> int:
    """A closer guess of real tokens than bytes / 4, never below it."""
    return max(approx_tokens(text), -(-_weighed(text) // 100))


def item_cost(item: Any) -> tuple[int, int]:
    """(reported tokens, tokens to fill a budget by) of one item's compact JSON."""
    text = compact(item)
    reported = -(-len(text.encode("utf-8")) // 4)
    return reported, max(reported, -(-_weighed(text) // 100))
