"""How text becomes index terms, for documents and for queries alike.

One regular expression splits text into tokens (C speed); each token then becomes a few terms:

- the exact form, lower-cased and folded: accents dropped, transliterations spelled out
  (``Müller`` → ``mueller``, ``Straße`` → ``strasse``, ``Søren`` → ``soeren``);
- its stem, marked with ``~`` and only where it differs (``running`` → ``~run``), by the Snowball
  stemmer of the chat's language (a cheap guess from its function words);
- compounds whole and by parts: ``end-to-end``, ``don't``, ``maps.google.com``, e-mail addresses
  and URLs (a URL also by its host and path words, and whole without its scheme);
- Chinese, Japanese and Korean as overlapping character pairs (``咖啡店`` → ``咖啡``, ``啡店``),
  and in a document also each character alone, so that a one-character word (``猫``, ``駅``,
  ``밥``) is found inside a longer run; a query of two or more characters asks for its pairs;
- each emoji as a term of its own (skin tones and variation selectors dropped).

Phrases are found by their words and checked on the text (no word-pair terms).

>>> sorted(doc_terms("Meet at the coffee-shop, Müller!", "en"))
['at', 'coffee', 'coffee-shop', 'meet', 'mueller', 'shop', 'the', '~coffe']
>>> sorted(doc_terms("我喜欢喝咖啡 ☕️", "en"))
['☕', '咖', '咖啡', '啡', '喜', '喜欢', '喝', '喝咖', '我', '我喜', '欢', '欢喝']
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import cache

from whoosh.lang import stemmer_for_language, stopwords_for_language

DEFAULT_LANGUAGE = "en"
# languages we guess and stem; each has a Snowball stemmer and a stop list in Whoosh
LANGUAGES = ("en", "de", "es", "fr", "it", "nl", "pt", "sv", "da", "no", "fi", "ru", "tr")
STEM_MARK = "~"
PAIR_SEP = "|"
MIN_STEM_CHARS = 3

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_EMOJI = ("\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\u2300-\u23FF\u3030\u303d"
          "\u3297\u3299\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u21aa")
_SKIN_AND_SELECTORS = re.compile("[\ufe0e\ufe0f\U0001F3FB-\U0001F3FF\u200d]")
# URL | word with inner joiners (- . ' ’ @ / _ +) | one emoji
TOKEN = re.compile(
    r"(?P<url>(?:https?://|www\.)[^\s<>\"'’()\[\]{}]+)"
    r"|(?P<word>\w+(?:[-.'’@/+&]\w+)*)"
    rf"|(?P<emoji>[{_EMOJI}])",
)
# the same ranges as numbers: whether a word has such a character is asked without a regex,
# whose class of ~40,000 characters takes ~10 ms to compile (paid only by a text that has one)
_CJK_RANGES = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF))
_JOINERS = re.compile(r"[-.'’@/+&]+")
_URL_PARTS = re.compile(r"[^\W_]+")
_URL_TRAILING = ".,;:!?"

_FOLD = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "ẞ": "ss", "ø": "oe",
                       "æ": "ae", "œ": "oe", "þ": "th", "ð": "d", "ł": "l", "đ": "d",
                       "ı": "i", "’": "'", "ʼ": "'"})

# English forms Snowball cannot reach (it stems suffixes, not irregular words)
IRREGULAR_EN = {
    "children": "child", "men": "man", "women": "woman", "people": "person", "feet": "foot",
    "teeth": "tooth", "mice": "mouse", "geese": "goose", "went": "go", "gone": "go",
    "ran": "run", "ate": "eat", "eaten": "eat", "bought": "buy", "brought": "bring",
    "thought": "think", "taught": "teach", "caught": "catch", "came": "come", "saw": "see",
    "seen": "see", "took": "take", "taken": "take", "gave": "give", "given": "give",
    "wrote": "write", "written": "write", "drove": "drive", "driven": "drive", "left": "leave",
    "felt": "feel", "kept": "keep", "slept": "sleep", "met": "meet", "paid": "pay",
    "said": "say", "told": "tell", "found": "find", "made": "make", "sent": "send",
    "spent": "spend", "built": "build", "lost": "lose", "won": "win", "sold": "sell",
    "flew": "fly", "flown": "fly", "knew": "know", "known": "know", "began": "begin",
    "begun": "begin", "sang": "sing", "sung": "sing", "swam": "swim", "drank": "drink",
    "drunk": "drink", "broke": "break", "broken": "break", "chose": "choose", "chosen": "choose",
    "forgot": "forget", "forgotten": "forget", "got": "get", "gotten": "get", "had": "have",
    "was": "be", "were": "be", "been": "be", "did": "do", "done": "do", "better": "good",
    "best": "good", "wives": "wife", "knives": "knife", "lives": "life", "leaves": "leaf",
}


def fold(word: str) -> str:
    """Lower-cased, accents dropped, transliterations spelled out.

    >>> [fold(w) for w in ("Müller", "Straße", "Søren", "café", "São")]
    ['mueller', 'strasse', 'soeren', 'cafe', 'sao']
    """
    word = word.lower()
    if word.isascii():
        return word
    word = word.translate(_FOLD)
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@cache
def _stemmer(lang: str) -> Callable[[str], str]:
    stem = stemmer_for_language(lang)
    cache: dict[str, str] = {}

    def cached(word: str) -> str:
        s = cache.get(word)
        if s is None:
            if len(cache) > 500_000:
                cache.clear()
            if lang == "en":
                word_ = IRREGULAR_EN.get(word, word)
                s = stem(word_)
            else:
                s = stem(word)
            cache[word] = s
        return s

    return cached


def stem_term(word: str, lang: str) -> str | None:
    """The marked stem of a lower-cased word, or None when stemming changes nothing."""
    if len(word) < MIN_STEM_CHARS or not word.isalpha():
        return None
    s = fold(_stemmer(lang)(word))
    if s == fold(word):
        return None
    return STEM_MARK + s


def _is_cjk(ch: str) -> bool:
    """Whether a character is Chinese, Japanese (kana) or Korean (hangul), as `_CJK` says.

    >>> [_is_cjk(c) for c in "a猫ねé한"]
    [False, True, True, False, True]
    """
    o = ord(ch)
    return o >= 0x3040 and any(lo <= o <= hi for lo, hi in _CJK_RANGES)


def _has_cjk(word: str) -> bool:
    return not word.isascii() and any(_is_cjk(ch) for ch in word)


@cache
def _cjk_runs() -> re.Pattern:
    """Runs of CJK characters and runs of others (compiled the first time a word has one)."""
    return re.compile(f"[{_CJK}]+|[^{_CJK}]+")


def _cjk_bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i:i + 2] for i in range(len(run) - 1)]


class Token:
    """One token of a text: `key` is its exact term (the unit of phrases); `terms` are all the
    terms it adds to the index; `start`/`end` are character offsets (for snippets)."""

    __slots__ = ("key", "terms", "start", "end")

    def __init__(self, key: str | None, terms: list[str], start: int, end: int):
        self.key, self.terms, self.start, self.end = key, terms, start, end


def tokens(text: str, lang: str = DEFAULT_LANGUAGE, stems: bool = True) -> Iterable[Token]:
    """The tokens of `text` with their terms (without stems when `stems` is False: only the
    keys are wanted)."""
    for mt in TOKEN.finditer(text):
        kind = mt.lastgroup
        raw = mt.group()
        start, end = mt.span()
        if kind == "emoji":
            e = _SKIN_AND_SELECTORS.sub("", raw)
            if e:
                yield Token(e, [e], start, end)
        elif kind == "url":
            url = raw.rstrip(_URL_TRAILING)
            end = start + len(url)
            low = fold(url)
            whole = re.sub(r"^(?:https?://)?(?:www\.)?", "", low).rstrip("/")
            terms = [whole] + [p for p in _URL_PARTS.findall(whole) if p != whole]
            yield Token(whole, terms, start, end)
        elif _has_cjk(raw):
            for part in _cjk_runs().finditer(raw):
                seg = part.group()
                s0 = start + part.start()
                if _is_cjk(seg[0]):
                    yield Token(None, _cjk_bigrams(seg), s0, s0 + len(seg))
                else:
                    for tok in tokens(seg, lang, stems):
                        tok.start += s0
                        tok.end += s0
                        yield tok
        else:
            low = raw.lower()
            key = fold(low)
            if not stems:
                terms = [key]
            elif _JOINERS.search(low):
                terms = [key]
                for p in _JOINERS.split(low):
                    if p:
                        fp = fold(p)
                        terms.append(fp)
                        st = stem_term(p, lang)
                        if st:
                            terms.append(st)
            else:
                st = stem_term(low, lang)
                terms = [key, st] if st else [key]
            yield Token(key, terms, start, end)


def doc_terms(text: str, lang: str = DEFAULT_LANGUAGE) -> dict[str, int]:
    """term -> frequency of a document's text: the terms of its tokens (`tokens`), counted.

    What a token adds depends only on its own characters and the language, so each distinct
    token's terms are worked out once and remembered (chat vocabulary repeats: at 100k
    messages nine tokens in ten are found in the memory). Links are not remembered: most are
    written once, and the memory of every one (~500 bytes: the link, its parts, their tuple)
    grew with the archive (~10 MB at a million messages, in the import's peak).
    """
    memo = _TOKEN_TERMS.get(lang)
    if memo is None or len(memo) > _MEMO_LIMIT:
        memo = _TOKEN_TERMS[lang] = {}
    freqs: dict[str, int] = {}
    get = freqs.get
    for raw in _RAW_TOKEN.findall(text):
        terms = memo.get(raw)
        if terms is None:
            terms = tuple(t for tok in tokens(raw, lang) for t in _doc_token_terms(tok))
            if not raw.startswith(_LINK_STARTS):
                memo[raw] = terms
        for t in terms:
            freqs[t] = get(t, 0) + 1
    return freqs


def _doc_token_terms(tok: Token) -> list[str]:
    """What one token adds to a document: its terms; a CJK run of two or more characters also
    each of its characters (a query of one character asks for it, one of several for pairs)."""
    if tok.key is None and len(tok.terms) > 1:
        chars = [pair[0] for pair in tok.terms] + [tok.terms[-1][1]]
        return tok.terms + chars
    return tok.terms


# the tokens' whole texts, without the groups (findall then gives strings, in C)
_RAW_TOKEN = re.compile(re.sub(r"\(\?P<\w+>", "(?:", TOKEN.pattern))
_TOKEN_TERMS: dict[str, dict[str, tuple[str, ...]]] = {}
_MEMO_LIMIT = 300_000
_LINK_STARTS = ("https://", "http://", "www.")  # how TOKEN's `url` tokens start


def phrase_keys(text: str) -> list[str]:
    """The exact terms of `text` in order (one per word, a compound whole)."""
    out: list[str] = []
    for tok in tokens(text, stems=False):
        if tok.key is not None:
            out.append(tok.key)
        else:
            out.extend(tok.terms)
    return out


def phrase_parts(text: str) -> list[str]:
    """The words of `text` in order as a phrase is matched: a compound ("draft.pdf", "e-mail")
    as its parts, each a term the index holds ("plan draft" is in "the plan draft.pdf"); a
    link stays whole."""
    out: list[str] = []
    for tok in tokens(text, stems=False):
        if tok.key is None:
            out.extend(tok.terms)
        elif len(tok.terms) == 1 and _JOINERS.search(tok.key):  # a word's terms: its key alone
            out.extend(p for p in _JOINERS.split(tok.key) if p)
        else:
            out.append(tok.key)
    return out


# ---------------------------------------------------------------------- language guess
@cache
def _stopwords(lang: str) -> frozenset[str]:
    return frozenset(fold(w) for w in stopwords_for_language(lang))


def stop_words(lang: str) -> frozenset[str]:
    """The stop words of a language we guess, folded (empty for one we do not know)."""
    return _stopwords(lang) if lang in LANGUAGES else frozenset()


def guess_language(texts: Iterable[str]) -> str:
    """The language whose function words are most frequent in `texts` (default English).

    >>> guess_language(["ich habe das nicht gesehen, und du?", "wir sind auf dem Weg"])
    'de'
    >>> guess_language(["we are on the way", "did you see it?"])
    'en'
    """
    counts = dict.fromkeys(LANGUAGES, 0)
    for text in texts:
        for w in re.findall(r"\w+", text.lower()):
            w = fold(w)
            for lang in LANGUAGES:
                if w in _stopwords(lang):
                    counts[lang] += 1
    best = max(LANGUAGES, key=lambda lang: (counts[lang], lang == DEFAULT_LANGUAGE))
    return best if counts[best] > 0 else DEFAULT_LANGUAGE


# words that ask rather than say, in every language we guess (folded when the set is built)
QUESTION_WORDS = frozenset(fold(w) for w in """
what when where who whom whose why how which did does do was were is are can could
would should tell me about remember know find show anything something someone said say
mentioned talked talk message messages chat
was wann wo wer wen wem warum wieso weshalb wie wieviel welche welcher welches welchen welchem
woher wohin
qué cuándo dónde quién quiénes por porqué cómo cuál cuáles cuánto cuánta cuántos cuántas
quand où qui quoi comment pourquoi quel quelle quels quelles combien lequel laquelle
cosa quando dove chi perché come quale quali quanto quanta quanti quante
o que quando onde quem porque como qual quais quanto quanta quantos quantas
wat wanneer waar wie waarom hoe hoeveel welke welk
vad när var vem varför hur vilken vilket vilka hvad hva hvornår hvor hvem hvorfor hvordan
hvilken hvilket hvilke
mitä milloin missä kuka miksi miten kuinka mikä
ne nerede kim neden nasıl hangi kaç
что когда где кто почему зачем как какой какая какое какие сколько
""".split())


@cache
def _function_words(lang: str) -> frozenset[str]:
    return QUESTION_WORDS | _stopwords(lang) | _stopwords(DEFAULT_LANGUAGE)


def function_words(text: str) -> frozenset[str]:
    """The words that carry little meaning in the query `text`: the stop words of its language
    (guessed from the query itself, English by default) and English's, and the question words
    of every language we guess. Only the query's own language counts: "dog" is a Danish stop
    word but a content word in "the dog ate a sock".

    >>> sorted(w for w in ("dog", "the", "ate") if w in function_words("the dog ate a sock"))
    ['the']
    >>> sorted(w for w in ("que", "veterinario", "farofa") if w in function_words("O que disse o veterinário sobre a Farofa?"))
    ['que']
    """
    return _function_words(guess_language([text]))


def matched_spans(text: str, terms: frozenset[str] | set[str]) -> list[tuple[int, int]]:
    """Character spans of the tokens of `text` that produce any of `terms` (for highlighting).

    >>> t = "Running late, grab a coffee-shop seat"
    >>> [t[a:b] for a, b in matched_spans(t, {"~run", "shop"})]
    ['Running', 'coffee-shop']
    """
    if not terms:
        return []
    out: list[tuple[int, int]] = []
    for tok in tokens(text):
        if not terms.isdisjoint(tok.terms):
            out.append((tok.start, tok.end))
        elif tok.key is None:  # a CJK run holding a one-character word: that character
            out.extend((i, i + 1) for i in range(tok.start, tok.end) if text[i] in terms)
    return out
