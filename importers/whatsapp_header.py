"""Header lines of a WhatsApp "Export chat" text: layouts, dates, clocks and invisible marks.

A header starts every message. Three layouts exist, in any app language:

    12/31/20, 11:59 PM - Anna Berg: text        Android ("dash")
    [31.12.20, 23:59:07] Anna Berg: text        iOS ("bracket")
    31/12/2020 23:59: Anna Berg: text           older exports ("colon")

Dates use `/ . -` separators, 2- or 4-digit years, and day-, month- or year-first order. The
order is a property of the whole file (see `infer_date_orders`); clocks are 24 h or 12 h with
many AM/PM spellings (`PM`, `p.m.`, `p. m.`, `vorm.`, `午後`...).

    >>> h = match_header("[8/15/23, 9:12:33\u202fPM] Dr. Feather: hi")
    >>> (h.layout, h.a, h.b, h.c, h.hour, h.minute, h.second, h.rest)
    ('bracket', 8, 15, 23, 21, 12, 33, 'Dr. Feather: hi')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

# Direction marks, isolates, the BOM and zero-width spaces: WhatsApp sprinkles them around
# headers, names and phone numbers. They are dropped for matching only.
INVISIBLE = (
    "\ufeff\u200b\u200e\u200f\u061c\u2060"
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# Spaces that are not U+0020 (U+202F sits before "PM" in new exports, U+00A0 inside "p. m.").
ODD_SPACES = "\u00a0\u202f\u2007\u2009\u200a\u3000"
_MATCH_TABLE = str.maketrans({**dict.fromkeys(INVISIBLE), **dict.fromkeys(ODD_SPACES, " ")})

# A header can only start with one of these (checked before running the regex).
HEADER_START = frozenset("0123456789[" + INVISIBLE)

# 12-hour clock markers after the time, and (CJK) before it. Keys are lower-cased with dots
# and spaces removed: "p. m." -> "pm".
AM_KEYS = frozenset({"am", "vorm", "πμ", "öö", "午前", "上午", "오전", "ص"})
PM_KEYS = frozenset({"pm", "nachm", "μμ", "ös", "午後", "下午", "오후", "م"})
_AMPM_AFTER = r"[ap]\.?\s?m\.?|vorm\.?|nachm\.?|π\.?\s?μ\.?|μ\.?\s?μ\.?|öö|ös|午前|午後|上午|下午|오전|오후|ص|م"
_AMPM_BEFORE = r"午前|午後|上午|下午|오전|오후"
# Words some locales put between the date and the time ("12/03/2021 à 14:35 - ").
_GLUE = r"à|a las|às|um|в|kl\.|om|saat|alle"

HEADER_RE = re.compile(
    r"(?P<open>\[)?\s?"
    r"(?P<a>\d{1,4})(?P<sep>[./-])\s?(?P<b>\d{1,2})(?P=sep)\s?(?P<c>\d{1,4})\.?"
    r"(?:,\s*|\s+)(?:(?:" + _GLUE + r")\s+)?"
    r"(?:(?P<pre>" + _AMPM_BEFORE + r")\s?)?"
    r"(?P<H>\d{1,2})[:.](?P<M>\d{2})(?:[:.](?P<S>\d{2}))?"
    r"(?:[\s_]?(?P<ampm>" + _AMPM_AFTER + r"))?"
    r"\.?"
    r"(?(open)\s?\]\s?|(?:(?P<dash>\s[-–](?:\s|$))|(?P<colon>:\s)))",
    re.IGNORECASE,
)

DMY, MDY, YMD = "DMY", "MDY", "YMD"
ORDER_NAMES = {DMY: "day-first (D/M/Y)", MDY: "month-first (M/D/Y)", YMD: "year-first (Y/M/D)"}
MIN_YEAR, MAX_YEAR = 1970, 2100  # a phone with a reset clock writes 1970


def for_matching(text: str) -> str:
    """`text` without invisible marks and with odd spaces as plain spaces.

    >>> for_matching("\u200e[1/2/23, 3:04\u202fPM]")
    '[1/2/23, 3:04 PM]'
    """
    return text if text.isascii() else text.translate(_MATCH_TABLE)


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
    """One header line, parsed but with the date order not yet applied."""

    layout: str  # bracket | dash | colon
    sep: str  # date separator
    a: int  # the three date parts as written, in order
    b: int
    c: int
    a_digits: int
    c_digits: int
    hour: int  # 0-23, 12-hour markers applied
    minute: int
    second: int | None  # None when the layout has no seconds
    end: int  # where the header ends in the matched (normalized) line
    rest: str  # the normalized text after the header

    @property
    def signature(self) -> tuple:
        """Headers with the same signature share one date order (a file may mix layouts)."""
        return (self.layout, self.sep, self.a_digits > 2, self.c_digits > 2)


def match_header(norm: str) -> Header | None:
    """Parse a header at the start of an already-normalized line, or None."""
    m = HEADER_RE.match(norm)
    if m is None:
        return None
    opened, a, sep, b, c, pre, hh, mm, sec, ampm, dash, _colon = m.groups()
    hour, minute = int(hh), int(mm)
    second = int(sec) if sec is not None else None
    marker = ampm or pre
    if marker is not None:
        key = marker.lower().replace(".", "").replace(" ", "")
        if key in PM_KEYS:
            if hour < 12:
                hour += 12
        elif key in AM_KEYS and hour == 12:
            hour = 0
    if hour > 23 or minute > 59 or (second is not None and second > 59):
        return None
    layout = "bracket" if opened else ("dash" if dash else "colon")
    end = m.end()
    return Header(
        layout, sep, int(a), int(b), int(c), len(a), len(c), hour, minute, second, end, norm[end:]
    )


def _year(value: int, digits: int) -> int:
    return 2000 + value if digits <= 2 else value


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
    "%m/%d/%y", "YYYY-MM-DD").

    >>> parse_date_format("%m/%d/%Y"), parse_date_format("dd.mm.yy"), parse_date_format("ymd")
    ('MDY', 'DMY', 'YMD')
    """
    letters = [ch for ch in value.upper() if ch in "DMY"]
    order = "".join(dict.fromkeys(letters))
    if order not in (DMY, MDY, YMD):
        raise ValueError(f"unknown date format {value!r}: use DMY, MDY or YMD (or e.g. dd/mm/yyyy)")
    return order


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
