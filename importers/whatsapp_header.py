"""Header lines of a WhatsApp "Export chat" text: layouts, dates, clocks and invisible marks.

A header starts every message. Three layouts exist, in any app language:

    12/31/20, 11:59 PM - Anna Berg: text        Android ("dash")
    [31.12.20, 23:59:07] Anna Berg: text        iOS ("bracket")
    31/12/2020 23:59: Anna Berg: text           older exports ("colon")

The parts are read from first principles rather than from a list of locales: digits of any
script (Arabic-Indic `١٨/٣/٢٠٢٢`, Devanagari, Thai...), any one separator between the date
parts, the time before the date (Vietnamese `09:15, 18/03/2022 - `), a word before the time
(`à`, `um`, `klo`, or a 12-hour marker such as `오후`, `下午`, `du.`) or after it (`PM`, `p. m.`,
`م`, `ค.`...), Thai Buddhist-era years (`2565`, `2565 BE`) and Japanese era years (`R4`, `H31`).
Which words are 12-hour markers is learned from the file (`infer_clock`): a token that takes
two values and flips around noon. The date order is a property of the whole file
(`infer_date_orders`). When even that finds nothing, `learn_layout` derives a header pattern
from the file's own repeated line prefixes, and `--date-format` can spell one out
(`custom_layout`).

    >>> h = match_header("[8/15/23, 9:12:33\u202fPM] Dr. Feather: hi")
    >>> (h.layout, h.a, h.b, h.c, h.hour, h.minute, h.second, h.rest)
    ('bracket', 8, 15, 23, 21, 12, 33, 'Dr. Feather: hi')
    >>> h = match_header(for_matching("٩:١٥ م، ١٨/٣/٢٠٢٢ - x: y"))
    >>> (h.time_first, h.a, h.b, h.c, h.hour, h.minute)
    (True, 18, 3, 2022, 21, 15)
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

# Direction marks, isolates, the BOM and zero-width spaces: WhatsApp sprinkles them around
# headers, names and phone numbers. They are dropped for matching only.
INVISIBLE = (
    "\ufeff\u200b\u200e\u200f\u061c\u2060"
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# Spaces that are not U+0020 (U+202F sits before "PM" in new exports, U+00A0 inside "p. m.").
ODD_SPACES = "\u00a0\u202f\u2007\u2009\u200a\u3000"


class _MatchTable(dict):
    """`str.translate` table: invisible marks out, odd spaces to " ", any decimal digit to ASCII.

    Digits of other scripts are looked up once (`unicodedata.decimal`) and cached, so the
    table covers every script Unicode knows without listing them.
    """

    def __missing__(self, code: int) -> int | str:
        value = unicodedata.decimal(chr(code), None)
        out: int | str = code if value is None else str(value)
        self[code] = out
        return out


_MATCH_TABLE = _MatchTable(
    {**str.maketrans({**dict.fromkeys(INVISIBLE), **dict.fromkeys(ODD_SPACES, " ")})}
)

# Japanese era letters (and names) -> the Gregorian year of the era's first year.
JAPANESE_ERAS = {"M": 1868, "T": 1912, "S": 1926, "H": 1989, "R": 2019,
                 "明治": 1868, "大正": 1912, "昭和": 1926, "平成": 1989, "令和": 2019}
BUDDHIST_OFFSET = 543  # Thai solar calendar: 2565 BE is 2022 CE

# A header can only start with one of these (checked before running the regex); any other
# script's digit is let through too (`may_start_header`).
HEADER_START = frozenset("0123456789[MTSHR明大昭平令" + INVISIBLE)

# 12-hour markers whose meaning is known, keyed by `marker_key` ("p. m." -> "pm"). Other
# tokens beside the time are learned from the file (see `infer_clock`). Sources: SOURCES.md.
AM_KEYS = frozenset({
    "am", "vorm", "vm", "fm", "πμ", "öö", "午前", "上午", "오전", "ص", "قظ", "sa", "pg", "ap",
    "dop", "de", "пробо", "ก่อนเที่ยง", "पूर्वाह्न", "পূর্বাহ্ণ", "قبلدوپہر", "לפנהצ",
    "לפנה״צ", "முற்பகல்", "paradites", "eparadites",
})
PM_KEYS = frozenset({
    "pm", "nachm", "nm", "em", "μμ", "ös", "午後", "下午", "오후", "م", "بظ", "ch", "ptg", "ip",
    "odp", "du", "слоб", "หลังเที่ยง", "अपराह्न", "অপরাহ্ণ", "بعددوپہر", "אחהצ", "אחה״צ",
    "பிற்பகல்", "pasdites", "epasdites",
})

# One date part: digits, or a Japanese era and its year ("R4", "平成31").
_PART_Y = r"(?:[MTSHR]|明治|大正|昭和|平成|令和)?\d{1,4}"
_DATE = (
    r"(?P<a>" + _PART_Y + r")(?P<sep>[^\w\s\[\]:|])\s?(?P<b>\d{1,2})(?P=sep)\s?"
    r"(?P<c>" + _PART_Y + r")\.?(?:\s?(?P<be>B\.?E\.?|พ\.ศ\.))?"
)
# A word (or two) before the time: glue ("à", "a las", "klo") or a 12-hour marker ("오후").
_PRE = r"(?:(?P<pre>[^\W\d_][^\s\d:,،，]{0,11}(?: [^\W\d_][^\s\d:,،，]{0,7})?) ?)?"
_TIME = r"(?P<H>\d{1,2})[:.](?P<M>\d{2})(?:[:.](?P<S>\d{2}))?"
# Up to three short words after the time: "PM", "p. m.", "nachm.", "م", "e pasdites".
_POST = (
    r"(?:[\s_]?(?P<post>[^\W\d_][^\s\d\[\]:,،，]{0,9}"
    r"(?: [^\W\d_][^\s\d\[\]:,،，\-–]{0,9}){0,2}))?"
)
_DT_SEP = r"(?:\s*[,،，]\s*|\s+)"
_END = r"\.?(?(open)\s?\]\s?|(?:(?P<dash>\s[-–—](?:\s|$))|(?P<colon>:\s)))"
_OPEN = r"(?P<open>\[)?\s?"

HEADER_RE = re.compile(_OPEN + _DATE + _DT_SEP + _PRE + _TIME + _POST + _END)
# The time first, then the date (Vietnamese: "09:15, 18/03/2022 - ").
TIME_FIRST_RE = re.compile(_OPEN + _PRE + _TIME + _POST + _DT_SEP + _DATE + _END)

DMY, MDY, YMD = "DMY", "MDY", "YMD"
ORDER_NAMES = {DMY: "day-first (D/M/Y)", MDY: "month-first (M/D/Y)", YMD: "year-first (Y/M/D)"}
MIN_YEAR, MAX_YEAR = 1970, 2100  # a phone with a reset clock writes 1970


def for_matching(text: str) -> str:
    """`text` without invisible marks, with odd spaces as plain spaces and digits as ASCII.

    >>> for_matching("\u200e[1/2/23, 3:04\u202fPM]"), for_matching("١٨/٣/٢٠٢٢")
    ('[1/2/23, 3:04 PM]', '18/3/2022')
    """
    return text if text.isascii() else text.translate(_MATCH_TABLE)


def may_start_header(ch: str) -> bool:
    """Cheap test on a line's first character before a header regex runs."""
    return ch in HEADER_START or (not ch.isascii() and ch.isdecimal())


@lru_cache(maxsize=256)
def marker_key(token: str) -> str:
    """A token beside the time as compared: case-folded, without dots and spaces.

    >>> marker_key("p.\u00a0m."), marker_key("Nachm."), marker_key("오후")
    ('pm', 'nachm', '오후')
    """
    return "".join(unicodedata.normalize("NFC", token).casefold().replace(".", "").split())


def raw_offset(raw: str, norm_pos: int) -> int:
    """Index in `raw` just after the character that is `norm_pos - 1` in `for_matching(raw)`.

    Invisible marks that follow that character belong to what comes after.
    """
    if norm_pos <= 0:
        return 0
    kept = 0
    for i, ch in enumerate(raw):
        if ch not in INVISIBLE:
            kept += 1
            if kept == norm_pos:
                return i + 1
    return len(raw)


@dataclass(slots=True)
class Header:
    """One header line, parsed but with the date order (and unknown markers) not yet applied."""

    layout: str  # bracket | dash | colon | learned | custom
    sep: str  # date separator
    a: int  # the three date parts as written, in order (era years already Gregorian)
    b: int
    c: int
    a_digits: int
    c_digits: int
    hour: int  # 0-23, known 12-hour markers applied (see `apply_clock` for learned ones)
    minute: int
    second: int | None  # None when the layout has no seconds
    end: int  # where the header ends in the matched (normalized) line
    rest: str  # the normalized text after the header
    written_hour: int = 0  # the hour as written
    marker: str = ""  # marker_key of the word beside the time ("" when none)
    time_first: bool = False

    @property
    def signature(self) -> tuple:
        """Headers with the same signature share one date order (a file may mix layouts)."""
        return (self.layout, self.sep, self.a_digits > 2, self.c_digits > 2, self.time_first)


def _part(text: str) -> tuple[int, int]:
    """(value, digit count) of a date part; an era year becomes a 4-digit Gregorian year."""
    if text[0].isdigit():
        return int(text), len(text)
    m = re.match(r"(\D+)(\d+)$", text)
    if m is None or m.group(1) not in JAPANESE_ERAS:
        return int(re.sub(r"\D", "", text) or 0), len(text)
    return JAPANESE_ERAS[m.group(1)] + int(m.group(2)) - 1, 4


def _clock(hour: int, marker: str) -> int:
    if marker in PM_KEYS:
        return hour + 12 if hour < 12 else hour
    if marker in AM_KEYS and hour == 12:
        return 0
    return hour


def match_header(norm: str) -> Header | None:
    """Parse a header at the start of an already-normalized line, or None."""
    m = HEADER_RE.match(norm)
    time_first = False
    if m is None:
        m = TIME_FIRST_RE.match(norm)
        if m is None:
            return None
        time_first = True
    opened, a, sep, b, c, _be, pre, hh, mm, sec, post, dash, _colon = m.group(
        "open", "a", "sep", "b", "c", "be", "pre", "H", "M", "S", "post", "dash", "colon")
    hour, minute = int(hh), int(mm)
    second = int(sec) if sec is not None else None
    if hour > 23 or minute > 59 or (second is not None and second > 59):
        return None
    marker = marker_key(post or pre) if (post or pre) else ""
    layout = "bracket" if opened else ("dash" if dash else "colon")
    if layout == "colon" and post and marker not in AM_KEYS and marker not in PM_KEYS:
        return None  # "13. 6. 2018. 21:25:15 Anna: hi": a name, not a marker
    if a.isdigit():
        a_val, a_digits = int(a), len(a)
    else:
        a_val, a_digits = _part(a)
    if c.isdigit():
        c_val, c_digits = int(c), len(c)
    else:
        c_val, c_digits = _part(c)
    end = m.end()
    return Header(
        layout, sep, a_val, int(b), c_val, a_digits, c_digits,
        _clock(hour, marker) if marker else hour, minute, second, end, norm[end:], hour, marker,
        time_first,
    )


# ----------------------------------------------------------------------------- 12-hour clock

@dataclass
class Clock:
    """What the words beside the time mean in one file."""

    pm: set[str] = field(default_factory=set)  # learned PM markers (known ones need no entry)
    am: set[str] = field(default_factory=set)
    glue: set[str] = field(default_factory=set)  # constant words ("klo", "à"): no meaning
    rare: set[str] = field(default_factory=set)  # unknown words seen once: not a header
    notes: list[str] = field(default_factory=list)


class ClockStats:
    """What `infer_clock` decides from, gathered one header at a time (the first pass streams)
    and JSON-able (a later import may resume from it)."""

    __slots__ = ("counts", "high", "votes", "noon", "prev")

    def __init__(self) -> None:
        self.counts: Counter = Counter()  # unknown marker -> headers
        self.high: set[str] = set()  # unknown markers seen with an hour above 12
        self.votes: Counter = Counter()  # unknown marker -> times it looked like AM
        self.noon: Counter = Counter()  # unknown marker -> headers at 12:xx
        self.prev: tuple | None = None  # (marker, a, b, c) of the last header with one

    def add(self, h: Header) -> None:
        m = h.marker
        if not m or m in AM_KEYS or m in PM_KEYS:
            return
        self.counts[m] += 1
        if h.written_hour > 12:
            self.high.add(m)
        elif h.written_hour == 12:
            self.noon[m] += 1
        prev = self.prev
        if prev is not None and prev[0] != m:
            same_day = prev[1:] == (h.a, h.b, h.c)
            # Within a day the clock goes from AM to PM; across midnight, back.
            self.votes[prev[0] if same_day else m] += 1
        self.prev = (m, h.a, h.b, h.c)

    def as_json(self) -> list:
        return [dict(self.counts), sorted(self.high), dict(self.votes), dict(self.noon),
                list(self.prev) if self.prev else None]

    @classmethod
    def from_json(cls, data: list) -> ClockStats:
        st = cls()
        counts, high, votes, noon, prev = data
        st.counts, st.high, st.votes, st.noon = Counter(counts), set(high), Counter(votes), Counter(noon)
        st.prev = tuple(prev) if prev else None
        return st

    def choose(self, headers: int) -> Clock:
        """Known markers keep their meaning. Of the other words beside the time, exactly two
        that alternate, with hours never above 12, are a 12-hour pair: the one a day's
        messages go from is AM. A single constant word is glue ("klo" in Finnish); among
        more than three headers, a word seen once is not a header at all."""
        clock = Clock()
        unknown = set(self.counts)
        if not unknown:
            return clock
        if len(unknown) != 2 or self.high:
            if headers > 3:
                clock.rare = {k for k in unknown if self.counts[k] == 1}
                unknown -= clock.rare
        pair = sorted(unknown - self.high)
        if len(pair) != 2:
            clock.glue = unknown
            return clock
        x, y = pair
        if self.votes[x] == self.votes[y]:
            # No flip tells: noon is a busier hour than midnight, so "12:xx" leans PM.
            am = x if self.noon[x] <= self.noon[y] else y
            clock.notes.append(f"12-hour markers {am!r}/{y if am == x else x!r} guessed as AM/PM")
        else:
            am = x if self.votes[x] > self.votes[y] else y
        clock.am, clock.pm = {am}, {y if am == x else x}
        return clock

    @property
    def learned(self) -> bool:
        """True when the file has markers no table knows (their meaning is the file's own)."""
        return bool(self.counts)


def infer_clock(headers: list[Header]) -> Clock:
    """Learn the 12-hour markers of a file from how its headers use them (see `ClockStats`).

    >>> hs = [match_header(f"18/3/22, {t} - A: x") for t in ("9:15 xx", "1:15 yy", "8:00 xx")]
    >>> clock = infer_clock(hs)
    >>> (clock.am, clock.pm)
    ({'xx'}, {'yy'})
    """
    stats = ClockStats()
    for h in headers:
        if h is not None:
            stats.add(h)
    return stats.choose(len(headers))


def apply_clock(h: Header, clock: Clock) -> None:
    """Set `h.hour` from its written hour and the file's learned markers."""
    if h.marker in clock.pm:
        h.hour = h.written_hour + 12 if h.written_hour < 12 else h.written_hour
    elif h.marker in clock.am:
        h.hour = 0 if h.written_hour == 12 else h.written_hour


def _year(value: int, digits: int) -> int:
    """A written year as a Gregorian year: "23" is 2023, Buddhist-era 2565 is 2022."""
    if digits <= 2:
        return 2000 + value
    if value > MAX_YEAR and MIN_YEAR <= value - BUDDHIST_OFFSET <= MAX_YEAR:
        return value - BUDDHIST_OFFSET
    return value


def to_datetime(h: Header, order: str) -> datetime | None:
    """The naive local datetime of `h` read in `order`, or None when it is no valid date.

    >>> to_datetime(match_header("30/6/2023, 16:15 - x: y"), "DMY")
    datetime.datetime(2023, 6, 30, 16, 15)
    """
    if order == DMY:
        day, month, year = h.a, h.b, _year(h.c, h.c_digits)
    elif order == MDY:
        month, day, year = h.a, h.b, _year(h.c, h.c_digits)
    else:
        year, month, day = _year(h.a, h.a_digits), h.b, h.c
    if not (MIN_YEAR <= year <= MAX_YEAR):
        return None
    try:
        return datetime(year, month, day, h.hour, h.minute, h.second or 0)
    except ValueError:
        return None


def parse_date_format(value: str) -> str:
    """`--date-format` as one of DMY / MDY / YMD.

    Accepts the three names, any spelling with d/m/y in order ("D/M/Y", "dd.mm.yyyy",
    "%m/%d/%y", "YYYY-MM-DD"), or a whole header layout (see `custom_layout`).

    >>> parse_date_format("%m/%d/%Y"), parse_date_format("dd.mm.yy"), parse_date_format("ymd")
    ('MDY', 'DMY', 'YMD')
    >>> parse_date_format("[dd.mm.yy HH:MM:SS]")
    'DMY'
    """
    date_part = re.split(r"[Hh]|%[HIMS]", value, maxsplit=1)[0]
    letters = [ch for ch in date_part.upper() if ch in "DMY"]
    order = "".join(dict.fromkeys(letters))
    if order not in (DMY, MDY, YMD):
        raise ValueError(
            f"unknown date format {value!r}: use DMY, MDY or YMD (or e.g. dd/mm/yyyy), or a "
            "whole header such as '[dd.mm.yy HH:MM:SS]' or 'dd/mm/yyyy, hh:mm a - '"
        )
    return order


_FORMAT_TOKEN_RE = re.compile(
    r"%[YydmHIMSp]|y{1,4}|Y{1,4}|d{1,2}|D{1,2}|m{1,2}|M{1,2}|H{1,2}|h{1,2}|s{1,2}|S{1,2}"
    r"|AM/PM|am/pm|tt|a|\s+|."
)


class PatternLayout:
    """A header layout given as a pattern: from `--date-format` or learned from the file.

    `match` turns a normalized line into a `Header` whose date parts are in the pattern's
    order (a, b, c as written).
    """

    def __init__(self, pattern: str, layout: str, source: str) -> None:
        self.regex = re.compile(pattern)
        self.layout = layout
        self.source = source  # the format as given, or an example line

    def match(self, norm: str) -> Header | None:
        m = self.regex.match(norm)
        if m is None:
            return None
        g = m.groupdict()
        hour, minute = int(g["H"]), int(g["M"])
        second = int(g["S"]) if g.get("S") is not None else None
        if hour > 23 or minute > 59 or (second is not None and second > 59):
            return None
        marker = marker_key(g.get("p") or "")
        parts = [g["p1"], g["p2"], g["p3"]]
        (a, ad), (c, cd) = _part(parts[0]), _part(parts[2])
        end = m.end()
        return Header(self.layout, "", a, int(parts[1]), c, ad, cd, _clock(hour, marker),
                      minute, second, end, norm[end:], hour, marker)


def custom_layout(value: str) -> PatternLayout | None:
    """The header layout a `--date-format` spells out, or None when it gives only an order.

    Letters: `d`/`dd` day, `m`/`mm` month (minutes after the hour), `y`/`yy`/`yyyy` year,
    `H`/`HH` or `h`/`hh` hour, `MM`/`mm` minutes, `ss` seconds, `a` (or `AM/PM`, `%p`) the
    12-hour marker in any language; strftime's `%d %m %Y %y %H %I %M %S %p` work too. Spaces
    match any run of spaces; everything else is literal. The author and text follow.

    >>> lay = custom_layout("dd.mm.yy klo HH.MM - ")
    >>> h = lay.match("13.06.18 klo 21.25 - Anna: hi")
    >>> (h.a, h.b, h.c, h.hour, h.minute, h.rest)
    (13, 6, 18, 21, 25, 'Anna: hi')
    """
    if not re.search(r"[Hh]|%[HI]", value):
        return None
    out: list[str] = []
    dates = 0
    seen_hour = False
    for tok in _FORMAT_TOKEN_RE.findall(value):
        low = tok.lower()
        if tok.isspace():
            out.append(r"\s*")
        elif not seen_hour and (low in ("%h", "%i") or tok[0] in "Hh"):
            out.append(r"(?P<H>\d{1,2})")
            seen_hour = True
        elif tok in ("%M",) or (seen_hour and low in ("m", "mm")):
            out.append(r"(?P<M>\d{2})")
        elif low in ("%s", "s", "ss"):
            out.append(r"(?P<S>\d{2})")
        elif low in ("%p", "a", "am/pm", "tt"):
            out.append(r"\s?(?P<p>[^\W\d_][^\s\d\]]{0,9}(?: [^\W\d_][^\s\d\]\-]{0,9})?)")
        elif low[-1:] in ("d", "m", "y") and (low.startswith("%") or low.strip(low[-1]) == ""):
            dates += 1
            if dates > 3:
                raise ValueError(f"date format {value!r} names more than three date parts")
            out.append(f"(?P<p{dates}>" + (_PART_Y if low[-1] == "y" else r"\d{1,2}") + ")")
        else:
            out.append(re.escape(tok))
    if dates != 3 or "(?P<M>" not in "".join(out):
        raise ValueError(f"date format {value!r} needs a day, a month, a year, hours and minutes")
    return PatternLayout(r"\[?\s?" + "".join(out).lstrip("\\[") + r"\s?", "custom", value)


_SHAPE_DIGITS = re.compile(r"\d+")


def learn_layout(lines: list[str]) -> PatternLayout | None:
    """A header layout read from the file's own repeated line prefixes, or None.

    The prefix of a line is what comes before its first letter. Prefixes with five or six
    runs of digits (a date and a time) are reduced to a shape ("99. 9. 9999. 99:99:99 ");
    a shape that starts at least two lines and a third of such lines is the layout. The time
    is the runs joined by ":" (or, without one, the runs after the first three).

    >>> lay = learn_layout(["13. 6. 2018. 21:25:15 Anna: hi", "13. 6. 2018. 21:26:00 Ben: ok"])
    >>> h = lay.match("14. 6. 2018. 08:00:00 Anna: next")
    >>> (h.a, h.b, h.c, h.hour, h.second, h.rest)
    (14, 6, 2018, 8, 0, 'Anna: next')
    """
    shapes: Counter = Counter()
    examples: dict[str, str] = {}
    candidates = 0
    for line in lines:
        norm = for_matching(line).lstrip()
        prefix = re.match(r"[^\w]*(?:\d[^\w]*|[_])*", norm)
        text = prefix.group(0) if prefix else ""
        if not 5 <= len(_SHAPE_DIGITS.findall(text)) <= 6:
            continue
        candidates += 1
        shape = re.sub(r"\s+", " ", _SHAPE_DIGITS.sub("9", text))
        shapes[shape] += 1
        examples.setdefault(shape, text)
    if not shapes:
        return None
    shape, count = shapes.most_common(1)[0]
    if count < 2 or count * 3 < candidates:
        return None
    example = examples[shape]
    runs = list(_SHAPE_DIGITS.finditer(example))
    seps = [example[r.end():n.start()] for r, n in zip(runs, runs[1:])]
    colon = next((i for i, sep in enumerate(seps) if sep.strip() == ":"), None)
    if colon is None:
        time_idx = list(range(3, len(runs)))
    else:
        time_idx = [colon, colon + 1] + ([colon + 2] if colon + 1 < len(seps)
                                         and seps[colon + 1].strip() == ":" else [])
    date_idx = [i for i in range(len(runs)) if i not in time_idx]
    if len(date_idx) != 3 or len(time_idx) not in (2, 3) or len(runs) != 5 + (len(time_idx) == 3):
        return None
    names = {date_idx[0]: "p1", date_idx[1]: "p2", date_idx[2]: "p3",
             time_idx[0]: "H", time_idx[1]: "M"}
    if len(time_idx) == 3:
        names[time_idx[2]] = "S"
    out = [re.escape(example[: runs[0].start()].strip()) + r"\s*"]
    for i, run in enumerate(runs):
        width = r"\d{1,4}" if names[i].startswith("p") else r"\d{1,2}"
        out.append(f"(?P<{names[i]}>{width})")
        tail = example[run.end(): runs[i + 1].start()] if i + 1 < len(runs) else example[run.end():]
        out.append(r"\s*".join(re.escape(piece) for piece in tail.split()) + r"\s*")
    return PatternLayout("".join(out), "learned", example.strip())


@dataclass
class OrderChoice:
    order: str
    guessed: bool = False  # no part above 12 (or conflicting ones) decided it
    reason: str = ""
    per_line: bool = False  # the group mixes orders: decide line by line where a part > 12


class DateOrderStats:
    """What deciding a header group's date order needs to know, gathered one header at a time
    (so a file is read in one streaming pass), and JSON-able (so a later import of a grown
    export can resume where the last one stopped)."""

    __slots__ = ("first_day", "second_day", "back_dmy", "back_mdy", "change_a", "change_b", "prev")

    def __init__(self) -> None:
        self.first_day = self.second_day = False  # a part above 12 seen first / second
        self.back_dmy = self.back_mdy = 0  # backward steps (plus impossible months) per order
        self.change_a = self.change_b = 0  # how often each part changed within a year
        self.prev: tuple[int, int, int] | None = None

    def add(self, h: Header) -> None:
        a, b, y = h.a, h.b, _year(h.c, h.c_digits)
        self.first_day = self.first_day or a > 12
        self.second_day = self.second_day or b > 12
        self.back_dmy += b > 12
        self.back_mdy += a > 12
        prev = self.prev
        if prev is not None:
            a0, b0, y0 = prev
            self.back_dmy += (y, b, a) < (y0, b0, a0)
            self.back_mdy += (y, a, b) < (y0, a0, b0)
            if y0 == y:
                self.change_a += a0 != a
                self.change_b += b0 != b
        self.prev = (a, b, y)

    def as_json(self) -> list:
        return [self.first_day, self.second_day, self.back_dmy, self.back_mdy, self.change_a,
                self.change_b, list(self.prev) if self.prev else None]

    @classmethod
    def from_json(cls, data: list) -> DateOrderStats:
        st = cls()
        (st.first_day, st.second_day, st.back_dmy, st.back_mdy, st.change_a, st.change_b, prev) = data
        st.prev = tuple(prev) if prev else None
        return st

    def choose(self) -> OrderChoice:
        """A part above 12 is a day. When no part tells, the order under which the dates run
        forward more often wins, then the part that changes more often is taken as the day;
        failing both, day-first."""
        first_day, second_day = self.first_day, self.second_day
        if first_day and not second_day:
            return OrderChoice(DMY)
        if second_day and not first_day:
            return OrderChoice(MDY)
        mixed = first_day and second_day
        if self.back_dmy != self.back_mdy:
            order = DMY if self.back_dmy < self.back_mdy else MDY
            return OrderChoice(order, True, "dates run forward in this order", per_line=mixed)
        if self.change_a != self.change_b:
            order = DMY if self.change_a > self.change_b else MDY
            return OrderChoice(order, True, "the day changes more often", per_line=mixed)
        return OrderChoice(DMY, True, "no part above 12", per_line=mixed)


def choose_date_orders(stats: dict[tuple, DateOrderStats], forced: str | None = None) -> dict[tuple, OrderChoice]:
    """One date order per header signature. Year-first is chosen for 4-digit leading years
    only (or when forced)."""
    choices: dict[tuple, OrderChoice] = {}
    for sig, st in stats.items():
        if forced:
            choices[sig] = OrderChoice(forced, reason="--date-format")
        elif sig[2]:  # 4-digit first part: year-first
            choices[sig] = OrderChoice(YMD)
        else:
            choices[sig] = st.choose()
    return choices


def infer_date_orders(
    headers: list[Header], forced: str | None = None
) -> dict[tuple, OrderChoice]:
    """One date order per header signature, from all headers of that signature (in order)."""
    stats: dict[tuple, DateOrderStats] = {}
    for h in headers:
        st = stats.get(h.signature)
        if st is None:
            st = stats[h.signature] = DateOrderStats()
        st.add(h)
    return choose_date_orders(stats, forced)


def has_valid_date(h: Header) -> bool:
    """True when some date order reads `h` as a real date (else the line is text, whatever
    order the file turns out to use)."""
    return any(to_datetime(h, order) is not None for order in (DMY, MDY, YMD))


def date_for(h: Header, choice: OrderChoice) -> datetime | None:
    """`h`'s datetime under the group's order, falling back to another order line by line."""
    order = choice.order
    if choice.per_line:
        if h.a > 12 >= h.b:
            order = DMY
        elif h.b > 12 >= h.a:
            order = MDY
    dt = to_datetime(h, order)
    if dt is not None:
        return dt
    for other in (DMY, MDY, YMD):
        if other != order:
            dt = to_datetime(h, other)
            if dt is not None:
                return dt
    return None
