"""WhatsApp "Export chat" importer: `_chat.txt` / `WhatsApp Chat with NAME.txt`, or a .zip.

    >>> from chatmem.records import ImportOptions, Message
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "WhatsApp Chat with Anna Berg.txt"
    >>> _ = p.write_text("31/12/23, 23:59 - Anna Berg: Happy new year\\n5/6 of us made it\\n")
    >>> [(m.sender, m.text) for m in WhatsAppImporter().read(p, ImportOptions())
    ...  if isinstance(m, Message)]
    [('Anna Berg', 'Happy new year\\n5/6 of us made it')]
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Any

from chatmem.errors import ArgumentError, FormatError
from chatmem.records import (
    OWNER,
    RESUME_STATE,
    Attachment,
    Call,
    Chat,
    Estimate,
    ImportOptions,
    Message,
    Problem,
    Record,
    SourceState,
    call_id,
    message_id_from_content,
)

from . import byte_digest
from .whatsapp_events import (
    EDITED_SUFFIX_RE,
    LIVE_LOCATION,
    MIME_TYPES,
    MISSED_CALLS,
    Event,
    body_key,
    classify_event,
    is_deleted,
    location,
    media_placeholder,
    media_type_of,
    poll,
)
from .whatsapp_header import (
    DMY,
    INVISIBLE,
    ODD_SPACES,
    ORDER_NAMES,
    Clock,
    DateOrderStats,
    Header,
    OrderChoice,
    PatternLayout,
    apply_clock,
    choose_date_orders,
    custom_layout,
    date_for,
    for_matching,
    has_valid_date,
    learn_layout,
    match_header,
    may_start_header,
    parse_date_format,
    raw_offset,
)
from .whatsapp_source import (
    ChatText,
    chat_name_from_filename,
    chat_texts,
    decode,
    looks_like_chat,
    zip_has_chat,
)
from .whatsapp_stream import (
    CHECKPOINT_ENTRIES,
    RESUME_VERSION,
    Checkpoint,
    Encoding,
    Scan,
    WindowOccurrences,
    prefix_digest,
    read_lines,
    sig_from_key,
    sig_key,
    text_encoding,
)

PLATFORM = "whatsapp"
GROUP_EVENTS = frozenset({"created", "added", "removed", "left", "subject", "icon", "description"})
DELETED_TOKEN = "\x00deleted"  # id text of a tombstone, whatever its language
MEDIA_TOKEN = "\x00media"  # id text of an attachment, with or without the file in the export
_SOURCE_ID_RE = re.compile(r"^s_[0-9a-f]{16}$")
_PHONE_RE = re.compile(r"^\+?[\d\s().-]{7,}$")
_QUOTES = frozenset("\"“”„«»")
# Media by shape, whatever the language: "<Médias omis>", "Alex.vcf (soubor byl přiložen)".
_ANGLE_PLACEHOLDER_RE = re.compile(r"^<[^<>:/]{2,60}>$")
_NAMED_FILE_RE = re.compile(r"^(?P<name>[^<>:/\\]{1,150}\.[A-Za-z0-9]{1,6}) \((?P<phrase>[^()\d]{2,40})\)$")
E2E_SCAN = 5  # the end-to-end notice heads a chat: look for it among the first records
_TRAILING = " \t" + INVISIBLE + ODD_SPACES


@lru_cache(maxsize=4096)
def name_key(name: str) -> str:
    """A name as compared and as used in chat keys: NFKC, no invisible marks, case-folded.

    >>> name_key("\u202aBook\u00a0Club\u202c "), name_key("Book_Club")
    ('book club', 'book club')
    """
    text = unicodedata.normalize("NFKC", for_matching(name)).replace("_", " ")
    return " ".join(text.casefold().split())


@lru_cache(maxsize=4096)
def _phone_handle(name: str) -> str | None:
    if not _PHONE_RE.match(name):
        return None
    digits = re.sub(r"\D", "", name)
    return ("+" + digits if name.lstrip().startswith("+") else digits) if len(digits) >= 7 else None


class _Restart(Exception):
    """The saved place to resume from no longer holds: read the chat text from the start."""


@dataclass
class _Start:
    """Where a pass starts: the file's start, or a checkpoint of the last import."""

    offset: int = 0
    line: int = 0
    hasher: Any = None  # the digest of the bytes before `offset`, to go on hashing
    scan: dict[str, Any] | None = None
    entries: int = 0
    colon_ok: bool = True
    choices: dict[tuple, OrderChoice] | None = None  # the last import's date orders
    key: str | None = None
    occurrences: dict[str, Any] | None = None

    @classmethod
    def fresh(cls, enc: Encoding) -> _Start:
        return cls(hasher=byte_digest.hasher() if enc.resumable else None)

    def agrees(self, choices: dict[tuple, OrderChoice], key: str, oldest: datetime | None) -> bool:
        """The whole file, new part included, decides as the last import did, and the new
        messages fall inside the window of times whose repeats were saved."""
        if key != self.key or self.choices is None:
            return False
        if {s: (c.order, c.per_line) for s, c in choices.items()} != {
                s: (c.order, c.per_line) for s, c in self.choices.items()}:
            return False
        horizon = (self.occurrences or {}).get("horizon")
        return horizon is None or oldest is None or oldest >= datetime.fromisoformat(horizon)


def _options_key(options: ImportOptions) -> str:
    """What in the options changes records: a resumed import needs the same."""
    return repr((str(options.timezone), options.date_format, options.chat,
                 sorted(options.owner_names)))


class _Entry:
    """One header's record while the chat is parsed (before it becomes a Message/Call)."""

    __slots__ = (
        "line", "lines", "header", "dt", "author", "body_norm", "body_raw", "lrm",
        "kind", "event", "extra", "media", "call", "deleted", "guessed",
    )

    def __init__(self, line: int, header: Header, dt) -> None:
        self.line = line  # 0-based line of the header
        self.lines: list[str] = []  # the header line and its continuation lines, as written
        self.header = header
        self.dt = dt
        self.author: str | None = None  # as written (normalized); None for Android system lines
        self.body_norm = ""
        self.body_raw = ""
        self.lrm = False  # body starts with an invisible mark (iOS system/media lines)
        self.kind = "text"
        self.event: Event | None = None
        self.extra: dict | None = None
        self.media: tuple[str, str | None] | None = None
        self.call: str | None = None
        self.deleted = False
        self.guessed = False  # media recognised by the body's shape, not by its words


class WhatsAppImporter:
    """Reads WhatsApp "Export chat" output from Android and iOS, in any app language.

    Input: a `.txt` (`_chat.txt`, `WhatsApp Chat with NAME.txt` and its translations) or a
    `.zip` holding one (`__MACOSX/` junk ignored, a zip inside a zip opened, members named with
    `..` or an absolute path refused). Detection: a `.txt` whose first non-empty lines hold a
    message header, or a `.zip` with a chat text inside; folders are walked by the caller.

    Options:
    - `timezone`: the zone the export's wall-clock times are read in (they carry none).
    - `owner_names`: names the owner writes under; they, and "You"/"Du"/... in system lines,
      become sender `me`. Without them, in a one-to-one chat named after the other person,
      the one other author is taken to be the owner (and a note says so).
    - `date_format`: `DMY`, `MDY` or `YMD`, or any spelling with d, m and y in that order
      (`dd/mm/yyyy`, `%m/%d/%y`, `Y-M-D`); or a whole header layout with the time
      (`[dd.mm.yy HH:MM:SS]`, `dd/mm/yyyy, hh:mm a - `), then only lines that start so are
      headers. Without it the order is inferred per header layout from the whole file; a
      guess is reported in the SourceState notes. Headers are read in any digits, separators,
      order, 12-hour markers and Gregorian, Buddhist or Japanese-era years (whatsapp_header).
    - `chat`: merge the export into the chat of that name (the name becomes the chat key), or
      into the chat with that source id (`s_` + 16 hex digits).

    Chat key (what the chat id and every message id hang on): `--chat` when given; else a name
    the import state already maps (`chat_aliases`, written to SourceState.state for every name
    the chat was seen under); else, for a group, the earliest name the file knows (the name it
    was created with, or the old name of its first "changed the subject from" event) and
    otherwise the name in the file name; for a one-to-one chat, the name in the file name, or
    the other person's name. Names are compared case-folded, with `_` as a space. So renaming a
    group does not change its id as long as the export shows the rename or the creation, and
    `_chat.txt` in "WhatsApp Chat - X.zip" and "WhatsApp Chat with X.txt" are the same chat.

    Message ids: `message_id_from_content(platform, chat key, local time as written (seconds
    only where the header has them), sender as written, text, occurrence)`. The text is the
    body without the "<This message was edited>" mark, so an export made after an edit and a
    later one agree; an export made before the edit has the old text and so another id (the
    store cannot tell it is the same message). Media placeholders use one token whatever the
    wording or file name (exports with and without media agree), and deleted messages another
    token; a tombstone's id therefore differs from the original message's (the store links a
    deleted or edited message to the one an earlier import had at the same time from the same
    sender).

    Records: a Chat, then Messages (kind text, media, system) and Calls (missed calls, as
    `Call(direction="missed")`, or "outgoing" unanswered when the owner called) in file order,
    Problems for text before the first header, and one SourceState at the end. System events
    carry `extra["event"]` (created, added, removed, left, subject, icon, description,
    security_code, timer, number_changed, e2e, contact, business, unknown); polls
    `extra["poll"]`, locations `extra["location"]`, a body WhatsApp left empty (`Name:.`)
    `extra["placeholder"]`. The words come from `whatsapp_words/` (33 languages); bodies taken
    as media by their shape alone are listed in a SourceState note.
    """

    platform = PLATFORM

    # ------------------------------------------------------------------ detection

    def detect(self, path: Path) -> bool:
        path = Path(path)
        try:
            if not path.is_file():
                return False
            suffix = path.suffix.lower()
            if suffix == ".zip":
                return zip_has_chat(path)
            if suffix != ".txt":
                return False
            with path.open("rb") as fh:
                head = fh.read(16 * 1024)
            text, _ = decode(head, path.name)
            if looks_like_chat(text):
                return True
            # A file named like an export is one even when no header is read: its import then
            # fails with the lines it tried and the way out (--date-format), not "unrecognised".
            return chat_name_from_filename(path.name) is not None or path.name == "_chat.txt"
        except Exception:  # detection never fails: it only says no
            return False

    # ------------------------------------------------------------------ reading

    def read(self, path: Path, options: ImportOptions) -> Iterator[Record]:
        path = Path(path)
        forced = None
        layout = None
        if options.date_format:
            try:
                forced = parse_date_format(options.date_format)
                layout = custom_layout(options.date_format)
            except (ValueError, re.error) as e:
                raise ArgumentError(f"--date-format: {e}") from e
        notes: list[str] = []
        state = options.state or {}
        aliases: dict[str, str] = dict(state.get("chat_aliases") or {})
        resume_in: dict[str, Any] = dict(state.get(RESUME_STATE) or {})
        resume_out: dict[str, Any] = {}
        for chat_text in chat_texts(path):
            notes.extend(chat_text.notes)
            parser = _ChatParser(chat_text, options, forced, notes, aliases, layout)
            yield from parser.records(resume_in.get(chat_text.where))
            if parser.resume is not None:
                resume_out[chat_text.where] = parser.resume
        yield SourceState(state={"chat_aliases": aliases, RESUME_STATE: resume_out}, notes=notes)


class _ChatParser:
    """Parses one chat text into records."""

    def __init__(
        self,
        source: ChatText,
        options: ImportOptions,
        forced: str | None,
        notes: list[str],
        aliases: dict[str, str],
        layout: PatternLayout | None = None,
    ) -> None:
        self.source = source
        self.layout = layout  # --date-format's, or one learned from the file's own lines
        self.match = layout.match if layout is not None else match_header
        self.learned_layout = False
        self.clock = Clock()  # the file's 12-hour markers, once the first pass has seen them all
        self.group_evidence: set[str] = set()  # authors whose lines are the group's own
        self.talkers: set[str] = set()  # authors who write a plain line
        self.e2e_lines: set[int] = set()
        self.guessed: list[tuple[int, str]] = []  # (line, body) taken as media by their shape
        self.options = options
        self.forced = forced
        self.notes = notes
        self.aliases = aliases
        self.owner_keys = {name_key(n) for n in options.owner_names if n.strip()}
        self.resume: dict[str, Any] | None = None  # where the next import may resume
        self.options_key = _options_key(options)

    # ---- pass 1: what only the whole file tells

    def _scan(self, enc: Encoding, start: _Start, colon_ok: bool,
              exact: Scan | None = None) -> tuple[Scan, Checkpoint | None, datetime | None]:
        """One pass over the text from `start`: header statistics, authors, the chat's names.

        Messages are classified as they come, with the authors seen so far; `Scan.stale()`
        says when the whole file would have classified one differently (then the pass is
        repeated with `exact`, the first pass's final knowledge). Returns the scan, the last
        checkpoint, and the oldest message time of this pass under `start.choices` (when
        resuming, to check that the new messages are numbered within the saved window)."""
        scan = Scan.from_json(start.scan) if start.scan else Scan()
        fixed = (set(exact.talkers), Counter(dict(exact.authors))) if exact is not None else None
        hasher = start.hasher.copy() if start.hasher is not None else None
        offset, i = start.offset, start.line
        current: _Entry | None = None
        checkpoint: Checkpoint | None = None
        oldest: datetime | None = None
        for raw, line in read_lines(self.source, enc, offset):
            h = layout = None
            if line and may_start_header(line[0]):
                h = self.match(for_matching(line.rstrip("\r")))
                if h is not None:
                    layout = h.layout
                    if layout == "colon" and not colon_ok:
                        h = None
            if h is not None and has_valid_date(h):
                if current is not None:
                    self._learn(current, scan, fixed)
                if hasher is not None and scan.entries % CHECKPOINT_ENTRIES == 0:
                    checkpoint = Checkpoint(offset, i, byte_digest.marked(hasher), scan.as_json())
                if start.choices is not None:
                    dt = date_for(h, start.choices.get(h.signature) or OrderChoice(DMY))
                    if dt is not None and (oldest is None or dt < oldest):
                        oldest = dt
                current = _Entry(i, h, None)
                current.lines.append(line)
                if scan.first_line is None:
                    scan.first_line = i
            elif current is not None:
                current.lines.append(line)
            if layout is not None:
                scan.layouts[layout] += 1
            if h is not None:
                st = scan.orders.get(h.signature)
                if st is None:
                    st = scan.orders[h.signature] = DateOrderStats()
                st.add(h)
                scan.clock.add(h)
            if hasher is not None:
                hasher.update(raw)
            offset += len(raw)
            i += 1
        if current is not None:
            self._learn(current, scan, fixed)
        return scan, checkpoint, oldest

    def _learn(self, e: _Entry, scan: Scan, fixed: tuple[set[str], Counter] | None) -> None:
        """A whole message seen by the first pass: count its author, classify it, note what
        it says about the chat."""
        self._split(e)
        if e.author is not None:
            scan.authors.add(e.author)
            if not e.lrm:
                set.add(scan.talkers, e.author)
            else:
                self._group_evidence(e, scan)
            if scan.entries < E2E_SCAN and e.body_norm:
                ev = classify_event(e.body_norm.strip())
                if ev is not None and ev.event == "e2e":
                    scan.e2e_lines.add(e.line)
                    scan.group_evidence.add(e.author)
        self.group_evidence, self.talkers, self.e2e_lines = (
            scan.group_evidence, scan.talkers, scan.e2e_lines)
        if fixed is not None:
            self._classify(e, *fixed)
        else:
            self._classify(e, scan.talkers, scan.authors)
        scan.entries += 1
        ev = e.event
        if ev is not None:
            if ev.event in GROUP_EVENTS:
                scan.group = True
            if ev.event == "created" and ev.new:
                scan.created.append(ev.new)
            elif ev.event == "subject" and ev.new:
                scan.subjects.append((ev.old, ev.new))
        if e.kind != "system" and e.author is not None and e.author not in scan.people_seen:
            scan.people_seen.add(e.author)
            scan.people.append(e.author)

    def _first_pass(self, enc: Encoding, start: _Start) -> tuple[Scan, Checkpoint | None, bool,
                                                                   dict[tuple, OrderChoice], datetime | None]:
        colon_ok = start.colon_ok
        scan, checkpoint, oldest = self._scan(enc, start, colon_ok)
        total = sum(scan.layouts.values())
        # "DATE TIME: ..." is also how a continuation line may start; trust that layout only
        # where it is the file's own.
        wanted = not (0 < scan.layouts["colon"] < total / 2)
        if wanted != colon_ok:
            if start.line:  # the new part changed a whole-file decision
                raise _Restart
            colon_ok = wanted
            scan, checkpoint, oldest = self._scan(enc, start, colon_ok)
        if not total and self.layout is None and not start.line:
            learned = learn_layout([line for _, line in islice(read_lines(self.source, enc), 2000)])
            if learned is not None:
                self.layout, self.match, self.learned_layout = learned, learned.match, True
                scan, checkpoint, oldest = self._scan(enc, start, colon_ok)
                total = sum(scan.layouts.values())
                if total:
                    self.notes.append(f"{self.source.where}: header layout learned from the "
                                      f"file's own lines (e.g. {learned.source!r})")
        if not total:
            raise FormatError(self._no_header_message(enc))
        if not scan.entries:
            raise FormatError(f"{self.source.where}: no message header with a valid date")
        if scan.stale():
            if start.line:
                raise _Restart
            scan, checkpoint, oldest = self._scan(enc, start, colon_ok, exact=scan)
        choices = choose_date_orders(scan.orders, self.forced)
        self.clock = scan.clock.choose(scan.entries)
        return scan, checkpoint, colon_ok, choices, oldest

    def _no_header_message(self, enc: Encoding) -> str:
        tried = [(n, line.rstrip("\r")) for n, (_, line)
                 in enumerate(islice(read_lines(self.source, enc), 50), 1) if line.strip()][:3]
        shown = "; ".join(f"line {n}: {t[:80]!r}" for n, t in tried) or "nothing (it is empty)"
        how = ("the --date-format you gave does not match them" if self.layout else
               "if these are message lines, describe their header with --date-format, e.g. "
               "--date-format '[dd.mm.yy HH:MM:SS]' or 'dd/mm/yyyy, hh:mm a - ' "
               "(see the README, 'WhatsApp exports')")
        return (f"{self.source.where}: no WhatsApp message header found (expected lines such as "
                f"'31/12/23, 23:59 - Name: text' or '[31/12/23, 23:59:59] Name: text'); "
                f"tried {shown}; {how}")

    def _group_evidence(self, e: _Entry, scan: Scan) -> None:
        """Note when a line marked as the app's own (iOS: it starts with an invisible mark)
        shows its author to be the group itself: the author is the chat's name (from the file
        name), or the text is a known system text or names another author. A contact whose
        such lines are all placeholders in unknown words stays a person."""
        a = e.author
        if a is None or a in scan.group_evidence or set.__contains__(scan.talkers, a):
            return
        body = e.body_norm.strip()
        hint = self.source.name_hint
        if hint is not None and name_key(a) == name_key(hint):
            scan.group_evidence.add(a)
            return
        key = body_key(body) if len(body) <= 80 else ""
        if key and (is_deleted(key) or media_placeholder(body, key) is not None
                    or MISSED_CALLS.get(key.split(",", 1)[0].strip())):
            return  # a person's placeholder (the common case: keep it cheap)
        if any(body.startswith(o + " ") for o in dict.keys(scan.authors) if o != a):
            scan.group_evidence.add(a)
        elif classify_event(body) is not None:
            scan.group_evidence.add(a)

    # ---- pass 2: authors and bodies

    def _split(self, e: _Entry) -> None:
        raw = e.lines[0].rstrip("\r")
        rest = e.header.rest
        norm_len = e.header.end + len(rest)
        p = rest.find(": ")
        if p > 0:
            e.author = rest[:p].strip()
            body_start = e.header.end + p + 2
        elif rest.endswith(":") and len(rest) > 1:
            e.author = rest[:-1].strip()
            body_start = norm_len
        else:
            body_start = e.header.end
        pos = body_start if len(raw) == norm_len else raw_offset(raw, body_start)
        body_raw = raw[pos:]
        stripped = body_raw.lstrip(INVISIBLE)
        e.lrm = len(stripped) != len(body_raw)
        e.body_raw = stripped.rstrip(INVISIBLE)
        e.body_norm = rest[body_start - e.header.end:] if e.author is not None else rest

    def _continuation(self, e: _Entry) -> list[str]:
        cont = [line.rstrip("\r") for line in e.lines[1:]]
        while cont and not cont[-1].strip():
            cont.pop()
        return cont

    def _classify(self, e: _Entry, talkers: set[str], authors: Counter) -> None:
        first = e.body_norm.strip()
        if e.author is None:
            if ":" in first:  # "John Doe:." -- a known author with a body WhatsApp emptied
                name, _, tail = first.partition(":")
                if name.strip() in authors and " " not in tail[:1]:
                    e.author = name.strip()
                    e.extra = {"placeholder": "empty"}
                    e.body_raw = ""
                    return
            e.kind = "system"
            e.event = classify_event(first) or Event("unknown")
            return
        key = body_key(first) if len(first) <= 80 else ""
        if key and is_deleted(key):
            e.deleted = True
            return
        media = media_placeholder(first, key)
        if media is not None:
            e.kind, e.media = "media", media
            return
        if key == "null":
            e.kind, e.extra = "media", {"placeholder": "null"}
            return
        call = MISSED_CALLS.get(key.split(",", 1)[0].strip()) if key else None
        if call is not None:
            e.call = call
            return
        loc = location(first) if ":" in first[:25] or key in LIVE_LOCATION else None
        if loc is not None:
            e.extra = {"location": loc}
            return
        if first[:1].isupper() and ":" in first[:20]:
            lines = [first] + [for_matching(c) for c in self._continuation(e)]
            found = poll(lines)
            if found is not None:
                e.extra = {"poll": found}
                return
        group = e.author in self.group_evidence and e.author not in talkers
        if e.lrm or group or first.startswith(e.author + " "):
            event = classify_event(first)
            if event is not None and (
                e.lrm or group or (event.strong and event.actor == e.author)
            ):
                e.kind, e.event = "system", event
                return
            if e.lrm and group:  # the group's own line in words we do not know
                e.kind, e.event = "system", Event("unknown")
                return
        if e.line in self.e2e_lines:  # "Pokemon Chat: Messages and calls are end-to-end..."
            e.kind, e.event = "system", Event("e2e")
            return
        guess = self._media_by_shape(first)
        if guess is not None:
            e.kind, e.media, e.guessed = "media", guess, True
            return
        author = e.author
        if (
            len(author) > 30 or author.count(" ") >= 3 or not _QUOTES.isdisjoint(author)
        ) and authors[author] <= 2:  # (the cheap test first: the count is looked up rarely)
            # A system line whose text has ": " inside (a group named "Trip: 2024").
            whole = e.header.rest.strip()
            event = classify_event(whole)
            if event is not None and ": " not in event.actor and len(event.actor) < len(author):
                e.kind, e.event, e.author = "system", event, None
                e.body_norm = whole
                e.body_raw = e.lines[0].rstrip("\r")
                e.body_raw = e.body_raw[raw_offset(e.body_raw, e.header.end):].strip(INVISIBLE)

    @staticmethod
    def _media_by_shape(first: str) -> tuple[str, str | None] | None:
        """Media whose words no table knows, recognised by the shape of the body."""
        if first[:1] == "<" and _ANGLE_PLACEHOLDER_RE.match(first):
            return "unknown", None
        if first[-1:] == ")":
            m = _NAMED_FILE_RE.match(first)
            if m is not None:
                name = m.group("name").strip()
                return media_type_of(name), name
        return None

    # ---- chat metadata

    def _chat_meta(self, scan: Scan) -> tuple[Chat, str]:
        opts, src = self.options, self.source
        people = scan.people
        group = scan.group or len(people) > 2
        created = list(scan.created)
        subjects = [Event("subject", old=old, new=new) for old, new in scan.subjects]
        current = (
            src.name_hint
            or (subjects[-1].new if subjects else None)
            or (created[-1] if created else None)
        )
        if not self.owner_keys.intersection(name_key(p) for p in people):
            self._guess_owner(people, group)
        others = [p for p in people if not self._is_owner(p)]
        if not group and not current and others:
            current = others[0]
        if not current and group and src.stem.strip("_ ").lower() in ("chat", ""):
            current = ", ".join(others[:3]) + (" and others" if len(others) > 3 else "")
        name = current or src.stem or "WhatsApp chat"
        # Every name the chat is known under, earliest first.
        known = created + [ev.old for ev in subjects if ev.old] + [ev.new for ev in subjects]
        if src.name_hint:
            known.append(src.name_hint)
        if not group and others:
            known.append(others[0])
        chat_id = ""
        if opts.chat:
            if _SOURCE_ID_RE.match(opts.chat):
                key = chat_id = opts.chat
            else:
                key = name_key(opts.chat)  # the CLI passes a known chat's key; a name works too
                name = current or opts.chat
        else:
            mapped = [self.aliases[name_key(n)] for n in known if name_key(n) in self.aliases]
            if mapped:
                key = mapped[0]
            elif group and (created or (subjects and subjects[0].old)):
                key = name_key(created[0] if created else subjects[0].old)
            else:
                key = name_key(src.name_hint or (known[0] if known else name))
        for n in known + [name]:
            self.aliases.setdefault(name_key(n), key)
        handles = [h for h in map(_phone_handle, others) if h]
        chat = Chat(
            platform=PLATFORM, key=key, name=name, group=group, participants=others,
            handles=handles, id=chat_id,
        )
        return chat, key

    def _guess_owner(self, people: list[str], group: bool) -> None:
        hint = self.source.name_hint
        if group or not hint or len(people) != 2:
            return
        keys = [name_key(p) for p in people]
        if name_key(hint) in keys:
            owner = people[1 - keys.index(name_key(hint))]
            self.owner_keys.add(name_key(owner))
            self.notes.append(
                f"{self.source.where}: took {owner!r} to be the owner (the other person in the "
                f"chat with {hint!r}); set the owner's names in the config to be sure"
            )

    def _is_owner(self, name: str) -> bool:
        return name_key(name) in self.owner_keys

    # ---- records

    def records(self, resume: dict[str, Any] | None = None) -> Iterator[Record]:
        """The chat's records; from where the last import stopped when `resume` (that import's
        `self.resume`) still matches the text, else from the start."""
        start = self._resume_start(resume) if resume else None
        enc = text_encoding(self.source, valid_prefix=start.offset if start else 0)
        if start is not None and (not enc.resumable or enc.codec != (resume or {}).get("codec")):
            start = None
        try:
            if start is None:
                raise _Restart
            kept = (dict(self.aliases), len(self.notes), set(self.owner_keys))
            scan, checkpoint, colon_ok, choices, oldest = self._first_pass(enc, start)
            chat, key = self._chat_meta(scan)
            if not start.agrees(choices, key, oldest):
                self.aliases.clear()
                self.aliases.update(kept[0])
                del self.notes[kept[1]:]
                self.owner_keys = kept[2]
                raise _Restart
        except _Restart:
            if resume:
                self.notes.append(f"{self.source.where}: changed before the end of what was imported "
                                  "last time: read whole and compared")
            start = _Start.fresh(enc)
            self.notes.extend(enc.notes)
            scan, checkpoint, colon_ok, choices, oldest = self._first_pass(enc, start)
            chat, key = self._chat_meta(scan)
        for choice in choices.values():
            if choice.guessed:
                self.notes.append(
                    f"{self.source.where}: date order guessed as {ORDER_NAMES[choice.order]}"
                    f" ({choice.reason}); use --date-format if dates look wrong"
                )
        yield Estimate(scan.entries - start.entries)
        yield chat
        yield from self._second_pass(enc, start, scan, colon_ok, choices, chat, key, checkpoint)

    def _resume_start(self, resume: dict[str, Any]) -> _Start | None:
        if resume.get("v") != RESUME_VERSION or resume.get("options") != self.options_key:
            return None
        got = prefix_digest(self.source, resume["offset"], str(resume.get("digest") or ""))
        if got is None or got[0] != resume["digest"]:
            return None
        decided = resume["decisions"]
        return _Start(
            offset=resume["offset"], line=resume["line"], hasher=got[1], scan=resume["scan"],
            entries=resume["scan"]["entries"], colon_ok=decided["colon_ok"],
            choices={sig_from_key(k): OrderChoice(o, per_line=p) for k, (o, p) in decided["choices"].items()},
            key=decided["key"], occurrences=resume["occurrences"],
        )

    def _second_pass(self, enc: Encoding, start: _Start, scan: Scan, colon_ok: bool,
                     choices: dict[tuple, OrderChoice], chat: Chat, key: str,
                     checkpoint: Checkpoint | None) -> Iterator[Record]:
        """The records, one message at a time, with the whole file's decisions."""
        where = self.source.where
        authors, talkers = Counter(dict(scan.authors)), set(scan.talkers)
        occurrences = (WindowOccurrences.restore(start.occurrences) if start.occurrences
                       else WindowOccurrences())
        saved_occurrences = None
        tz = self.options.timezone
        current: _Entry | None = None
        i = start.line
        clock = self.clock
        for _raw, line in read_lines(self.source, enc, start.offset):
            h = None
            if line and may_start_header(line[0]):
                h = self.match(for_matching(line.rstrip("\r")))
                if h is not None and h.marker:
                    if h.marker in clock.rare:  # a word beside a time seen once: text
                        h = None
                    else:
                        apply_clock(h, clock)
                if h is not None and h.layout == "colon" and not colon_ok:
                    h = None
            dt = date_for(h, choices[h.signature]) if h is not None else None
            if h is not None and dt is not None:
                if current is not None:
                    yield self._finish(current, talkers, authors, chat, key, occurrences, tz)
                if checkpoint is not None and i == checkpoint.line:
                    saved_occurrences = occurrences.snapshot()
                current = _Entry(i, h, dt)
                current.lines.append(line)
            elif current is not None:
                current.lines.append(line)
            elif line.strip(INVISIBLE + " \t\r"):
                yield Problem(where, i + 1, "text before the first message header",
                              line.rstrip("\r"), chat.id)
            i += 1
        if current is not None:
            yield self._finish(current, talkers, authors, chat, key, occurrences, tz)
        if self.guessed:
            shown = ", ".join(f"line {n}: {b[:60]!r}" for n, b in self.guessed[:5])
            more = f" and {len(self.guessed) - 5} more" if len(self.guessed) > 5 else ""
            self.notes.append(
                f"{where}: {len(self.guessed)} bodies taken as media by their shape "
                f"(their words are in no table): {shown}{more}"
            )
        # Learned markers or a learned layout are the whole file's decisions: a later import
        # reads the file whole rather than resume under a decision its new part might change.
        if self.learned_layout or scan.clock.learned:
            checkpoint = None
        if checkpoint is not None and saved_occurrences is not None:
            self.resume = {
                "v": RESUME_VERSION, "options": self.options_key, "codec": enc.codec,
                "offset": checkpoint.offset, "line": checkpoint.line, "digest": checkpoint.digest,
                "scan": checkpoint.scan, "occurrences": saved_occurrences,
                "decisions": {"colon_ok": colon_ok, "key": key,
                              "choices": {sig_key(s): [c.order, c.per_line] for s, c in choices.items()}},
            }

    def _finish(self, e: _Entry, talkers: set[str], authors: Counter, chat: Chat, key: str,
                occurrences: WindowOccurrences, tz) -> Message | Call:
        self._split(e)
        self._classify(e, talkers, authors)
        if e.guessed:
            self.guessed.append((e.line + 1, e.body_norm.strip()))
        return self._record(e, chat, key, occurrences, tz)

    def _record(self, e: _Entry, chat: Chat, key: str, occurrences: WindowOccurrences,
                tz) -> Message | Call:
        h = e.header
        when = e.dt.isoformat(timespec="seconds" if h.second is not None else "minutes")
        sent_at = e.dt.replace(tzinfo=tz)
        raw = "\n".join(e.lines)
        cont = self._continuation(e)
        text = e.body_raw if not cont else e.body_raw + "\n" + "\n".join(cont)
        id_sender = e.author or ""
        if e.call is not None:
            n = occurrences.next((when, id_sender, "\x00call:" + e.call), e.dt)
            mine = self._is_owner(id_sender)
            return Call(
                id=call_id(PLATFORM, key, when, id_sender, e.call, n), platform=PLATFORM,
                chat_id=chat.id, started_at=sent_at,
                direction="outgoing" if mine else "missed", media=e.call, answered=False,
                peer=None if mine else id_sender, raw=raw, line=e.line + 1,
            )
        extra = dict(e.extra) if e.extra else {}
        edited = False
        attachments: list[Attachment] = []
        if e.kind == "system":
            ev = e.event or Event("unknown")
            extra["event"] = ev.event
            for field in ("obj", "old", "new"):
                if getattr(ev, field):
                    extra[field] = getattr(ev, field)
            if ev.actor_is_you or (ev.actor and self._is_owner(ev.actor)):
                sender = OWNER
            else:
                sender = ev.actor
            id_sender, id_text = "", text
        else:
            sender = OWNER if self._is_owner(id_sender) else id_sender
            if e.deleted:
                text, id_text = "", DELETED_TOKEN
            elif e.kind == "media":
                text = "\n".join(cont)
                if e.media is not None:
                    media_type, name = e.media
                    extra["media_type"] = media_type
                    if media_type == "contact":
                        extra["contact"] = name or True
                    attachments.append(self._attachment(name))
                id_text = MEDIA_TOKEN
            elif e.extra and e.extra.get("placeholder") == "empty":
                text = id_text = ""
            else:
                id_text = text
        if e.kind != "system" and text.endswith(">"):
            m = EDITED_SUFFIX_RE.search(for_matching(text))
            if m is not None:
                edited = True
                text = text[: text.rfind("<")].rstrip(_TRAILING)
                if e.kind == "text":
                    id_text = text
                else:
                    id_text = MEDIA_TOKEN + "\n" + text if text else MEDIA_TOKEN
        elif e.kind == "media" and text:
            id_text = MEDIA_TOKEN + "\n" + text
        n = occurrences.next((when, id_sender, id_text), e.dt)
        return Message(
            id=message_id_from_content(PLATFORM, key, when, id_sender, id_text, n),
            platform=PLATFORM, chat_id=chat.id, sent_at=sent_at, sender=sender, text=text,
            kind=e.kind, sender_handle=_phone_handle(id_sender) if id_sender else None,
            deleted=e.deleted, edited=edited, attachments=attachments, raw=raw, extra=extra,
            line=e.line + 1,
        )

    def _attachment(self, name: str | None) -> Attachment:
        if not name:
            return Attachment(present=False)  # "<Media omitted>": the export left the file out
        ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
        path, size, present = self.source.find_attachment(name) or (None, None, False)
        return Attachment(name=name, mime_type=MIME_TYPES.get(ext), size=size, path=path,
                          present=present)

