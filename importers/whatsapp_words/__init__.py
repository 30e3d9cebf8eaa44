"""The words WhatsApp writes into an export, per app language, as data.

One module per language (`en.py`, `id.py`, ...) holds a `WORDS` dict; `more_languages.py` holds
Android's "<Media omitted>" and the deleted-message text of languages without a full table. Where each entry comes from
is in SOURCES.md beside them. This module merges the tables into the lookups the importer
uses; nothing else here knows a language.

Keys of `WORDS` (all optional but "language"):
- `media`: media type ("unknown" for Android's generic placeholder, "image", "video",
  "audio", "sticker", "gif", "document", "contact", "view_once") -> whole-body placeholders;
- `file_attached`: the phrase in "NAME.ext (file attached)"; `attached`: the label in
  "<attached: NAME.ext>";
- `deleted`: whole bodies of a deleted message (by the sender, by you, by an admin);
  `deleted_prefix`: the start of one that names who deleted it ("... deleted by admin Anna");
- `edited`: the mark "<This message was edited>" carries inside its angle brackets;
- `missed`: "voice" / "video" -> a missed call's body;
- `location`, `live_location`, `poll`, `option`: labels ("location: https://...", "POLL:");
- `you`: how the owner is named as the actor of a system line;
- `events`: (event, template) pairs. A template is the system text with `{actor}` (who did
  it), `{obj}` (to whom), `{old}` / `{new}` (group names, inside any quotes); `*` stands for
  any text, `[[a|b]]` for either spelling, and a leading `!` says the owner did it.

    >>> EVENT_TEMPLATES[0][0] in EVENT_KINDS
    True
    >>> template_regex('{actor} [[added|invited]] {obj}').pattern
    '(?P<actor>.+?)\\\\ (?:added|invited)\\\\ (?P<obj>.+?)$'
"""

from __future__ import annotations

import importlib
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import overload

LANGUAGES = (
    "en", "de", "es", "fr", "pt", "it", "nl", "ru", "tr", "id", "ms", "ja", "th", "uk", "hi",
    "cs", "ar", "vi", "zh", "ko", "pl", "sv", "da", "nb", "fi", "el", "he", "hu", "ro", "fa",
    "ca", "hr", "sk",
)
EVENT_KINDS = (
    "created", "added", "removed", "left", "subject", "icon", "description", "security_code",
    "timer", "number_changed", "e2e", "contact", "business", "unknown",
)
QUOTES = "\"“”„«»‘’'‚‹›「」『』"

TABLES: dict[str, dict] = {
    code: importlib.import_module(f"{__name__}.{code}").WORDS for code in LANGUAGES
}


def _key(text: str) -> str:
    """A phrase as looked up: trimmed, no final dot, case-folded, NFC (as `body_key`)."""
    return unicodedata.normalize("NFC", text.strip().rstrip(".").strip()).casefold()


def _all(field: str) -> list[str]:
    return [w for words in TABLES.values() for w in words.get(field, ())]


def template_regex(template: str) -> re.Pattern:
    """The anchored, case-insensitive regex of one event template (see the module doc)."""
    text = template.lstrip("!")
    out: list[str] = []
    pos = 0
    token = re.compile(r"\{(actor|obj|old|new)\}|\[\[(.*?)\]\]|\*|[" + re.escape(QUOTES) + "]")
    for m in token.finditer(text):
        out.append(re.escape(text[pos:m.start()]))
        pos = m.end()
        if m.group(1) in ("actor", "obj"):
            out.append(f"(?P<{m.group(1)}>.+?)")
        elif m.group(1):  # old/new sit inside quotes that may carry spaces (French « x »)
            out.append(rf"\s?(?P<{m.group(1)}>.*?)\s?")
        elif m.group(2) is not None:
            out.append("(?:" + "|".join(re.escape(alt) for alt in m.group(2).split("|")) + ")")
        elif m.group(0) == "*":
            out.append(".*")
        else:
            out.append("[" + re.escape(QUOTES) + "]")
    out.append(re.escape(text[pos:]))
    pattern = unicodedata.normalize("NFC", "".join(out))
    return re.compile(pattern + ("" if pattern.endswith(".*") else "$"), re.IGNORECASE)


# ---- the merged lookups

MEDIA: dict[str, str] = {}  # body key -> media type
for _words in TABLES.values():
    for _type, _phrases in _words.get("media", {}).items():
        for _phrase in _phrases:
            MEDIA[_key(_phrase)] = _type
            if not _phrase.startswith("<"):
                MEDIA[_key(f"<{_phrase}>")] = _type  # older iOS wrote them in brackets
from .more_languages import DELETED as _MORE_DELETED  # noqa: E402  (data only)
from .more_languages import MEDIA_OMITTED  # noqa: E402

for _phrases in MEDIA_OMITTED.values():
    MEDIA.update((_key(p), "unknown") for p in _phrases)
for _phrase in list(MEDIA):  # "< Média vynechána >" and "<Média vynechána>" alike
    if _phrase.startswith("<"):
        MEDIA.setdefault("<" + _phrase[1:-1].strip() + ">", MEDIA[_phrase])

DOCUMENT_OMITTED = tuple(_key(w) for words in TABLES.values()
                         for w in words.get("media", {}).get("document", ()))
FILE_ATTACHED = tuple(_all("file_attached"))
ATTACHED_LABELS = frozenset(_key(w) for w in _all("attached"))
DELETED = frozenset(_key(w) for w in _all("deleted")) | frozenset(
    _key(w) for phrases in _MORE_DELETED.values() for w in phrases)
DELETED_PREFIXES = tuple(_key(w) for w in _all("deleted_prefix"))
EDITED = tuple(_all("edited"))
MISSED_CALLS = {_key(w): media for words in TABLES.values()
                for media, phrases in words.get("missed", {}).items() for w in phrases}
LOCATION_WORDS = frozenset(w.casefold() for w in _all("location"))
LIVE_LOCATION = frozenset(_key(w) for w in _all("live_location"))
POLL_WORDS = frozenset(w.casefold() for w in _all("poll"))
OPTION_WORDS = frozenset(w.casefold() for w in _all("option"))
YOU_WORDS = frozenset(w.casefold() for w in _all("you"))


def _literal_length(template: str) -> int:
    """How much fixed text a template has: the more, the more specific, the earlier it is tried
    ("X changed their number ... add the new number" before "X added Y")."""
    return len(re.sub(r"\{\w+\}|\[\[.*?\]\]|\*", "", template))


class LazyPatterns(Sequence[tuple[str, re.Pattern, bool]]):
    """(event, regex, the owner did it) in a fixed order, each regex compiled the first time a
    search gets that far: the hundreds of system-event patterns cost a tenth of a second to
    compile, and a re-import that meets a few system lines (or none) needs only the first ones.
    Iterating yields the same tuples in the same order as a list compiled up front would."""

    def __init__(self, sources: Iterable[tuple[str, Callable[[], re.Pattern], bool]]):
        self.sources = list(sources)  # (event, a call that compiles the regex, the owner did it)
        self._compiled: list[tuple[str, re.Pattern, bool]] = []
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.sources)

    @overload
    def __getitem__(self, i: int) -> tuple[str, re.Pattern, bool]: ...
    @overload
    def __getitem__(self, i: slice) -> list[tuple[str, re.Pattern, bool]]: ...

    def __getitem__(self, i: int | slice) -> tuple[str, re.Pattern, bool] | list[tuple[str, re.Pattern, bool]]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        self._compile_to(i)
        return self._compiled[i]

    def __iter__(self) -> Iterator[tuple[str, re.Pattern, bool]]:
        if len(self._compiled) == len(self.sources):
            return iter(self._compiled)
        return self._compiling()

    def _compiling(self) -> Iterator[tuple[str, re.Pattern, bool]]:
        compiled = self._compiled
        for i in range(len(self.sources)):
            if i >= len(compiled):
                self._compile_to(i)
            yield compiled[i]

    def _compile_to(self, i: int) -> None:
        with self._lock:  # two threads never append the same pattern twice
            while len(self._compiled) <= i:
                event, make, me = self.sources[len(self._compiled)]
                self._compiled.append((event, make(), me))


# (event, template's regex, the owner did it), the most specific first.
EVENT_TEMPLATES = LazyPatterns(
    (event, partial(template_regex, t), t.startswith("!"))
    for event, t in sorted(
        ((event, t) for words in TABLES.values() for event, t in words.get("events", ())),
        key=lambda pair: -_literal_length(pair[1]),
    )
)
