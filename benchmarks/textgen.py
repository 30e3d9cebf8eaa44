"""Deterministic chat text for the benchmark: a Zipf vocabulary, people, emoji and URLs.

Everything is drawn from one `random.Random(seed)`, so the same seed gives the same archive on
every machine and Python version (only `random.Random` methods with a documented stable
sequence are used: random, randrange, choice, getrandbits, choices with cum_weights).

    >>> v = Vocabulary(seed=1)
    >>> v.words[:3]
    ['the', 'to', 'i']
"""

from __future__ import annotations

import itertools
import random
from bisect import bisect_right

# Real high-frequency chat words first (the head of the Zipf curve), then pronounceable
# pseudo-words (the long tail), so searches hit a realistic mix of common and rare terms.
COMMON = """the to i you a and it is that in of for me on my be have so we just but
not at are this can what do with was all get know like if your will no ok yes how good
go up one out about there now see time when they see lol today tomorrow think going
want then back need really here home come love got well make sure night work thanks
day call yeah still later great dinner weekend morning meeting train coffee movie
friday saturday sunday birthday party tonight maybe soon happy sorry please""".split()
SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "bra", "de", "fin", "gu", "ho",
             "ja", "ke", "lu", "ma", "no", "pe", "qui", "re", "so", "tu", "va", "we", "xo",
             "yu", "za", "bel", "cor", "dan", "el", "for", "gar", "hil", "ist", "jor", "kin")
VOCABULARY_SIZE = 4000
ZIPF_EXPONENT = 1.07

FIRST_NAMES = ("Anna", "Ben", "Carla", "David", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas",
               "Kira", "Luca", "Maya", "Noah", "Olga", "Pablo", "Quinn", "Rosa", "Sven", "Tara",
               "Umar", "Vera", "Wim", "Xenia", "Yusuf", "Zoe", "Amélie", "Bjørn", "Chloé", "Dmitri")
LAST_NAMES = ("Berg", "Ortiz", "Nakamura", "Schmidt", "Rossi", "Dubois", "Kowalski", "Silva",
              "Haddad", "Jensen", "Novak", "Okafor", "Papadopoulos", "Quist", "Reyes", "Svensson",
              "Tanaka", "Ueda", "Varga", "Weber", "Yilmaz", "Zhang", "O'Brien", "García")
EMOJI = ("😂", "❤️", "👍", "🙏", "😊", "🎉", "😭", "🔥", "🤔", "👀", "🥳", "😅", "☕", "🍕", "🚆",
         "🇩🇪", "👨‍👩‍👧", "🏳️‍🌈", "✨", "💯")
URL_HOSTS = ("example.com", "news.example.org", "maps.example.net", "shop.example.de",
             "video.example.io", "wiki.example.org")
OWNER_NAME = "Sam Rivera"


def pseudo_word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 2, 3, 3, 4))))


class Vocabulary:
    """Words ranked by frequency; `sentence()` draws from them with Zipf weights."""

    def __init__(self, seed: int = 8, size: int = VOCABULARY_SIZE):
        rng = random.Random(seed)
        words = list(dict.fromkeys(COMMON))
        seen = set(words)
        while len(words) < size:
            w = pseudo_word(rng)
            if w not in seen:
                seen.add(w)
                words.append(w)
        self.words = words
        self.cum_weights = list(itertools.accumulate(1 / (r + 1) ** ZIPF_EXPONENT for r in range(size)))
        self.total = self.cum_weights[-1]

    def rank_word(self, rank: int) -> str:
        return self.words[rank]

    def draw(self, rng: random.Random, k: int) -> list[str]:
        # bisect on our own cum weights: random.choices' sequence is not promised across versions
        cw, total, words = self.cum_weights, self.total, self.words
        last = len(words) - 1
        return [words[min(bisect_right(cw, rng.random() * total), last)] for _ in range(k)]


def message_length(rng: random.Random) -> int:
    """1–40 words, most messages short (chat-like), a long tail of paragraphs."""
    r = rng.random()
    if r < 0.35:
        return 1 + rng.randrange(4)
    if r < 0.85:
        return 4 + rng.randrange(10)
    if r < 0.98:
        return 12 + rng.randrange(18)
    return 30 + rng.randrange(60)


class TextMaker:
    """One message text at a time: words, sometimes an emoji, a URL, a name, a second line."""

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab

    def text(self, rng: random.Random, multiline_ok: bool = True) -> str:
        words = self.vocab.draw(rng, message_length(rng))
        r = rng.random()
        if r < 0.06:
            words.append(rng.choice(EMOJI))
        elif r < 0.08:
            words.append(f"https://{rng.choice(URL_HOSTS)}/{self.vocab.draw(rng, 1)[0]}/{rng.randrange(10**6)}")
        elif r < 0.10:
            words.insert(0, rng.choice(FIRST_NAMES) + ",")
        text = " ".join(words)
        text = text[0].upper() + text[1:]
        if multiline_ok and rng.random() < 0.03:
            text += "\n" + " ".join(self.vocab.draw(rng, 1 + rng.randrange(8)))
        return text


def person_names(rng: random.Random, n: int) -> list[str]:
    """n distinct "First Last" names (a numeral appended once the pairs run out)."""
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n:
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        if name in seen:
            name = f"{name} {len(out)}"
        seen.add(name)
        out.append(name)
    return out


def guid(rng: random.Random) -> str:
    """A GUID in Apple's upper-case 8-4-4-4-12 layout."""
    h = f"{rng.getrandbits(128):032X}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def zipf_index(rng: random.Random, cum: list[float]) -> int:
    return min(bisect_right(cum, rng.random() * cum[-1]), len(cum) - 1)


def zipf_cum(n: int, exponent: float = 0.9) -> list[float]:
    return list(itertools.accumulate(1 / (r + 1) ** exponent for r in range(n)))
