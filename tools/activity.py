"""archive_activity: the archive in numbers for pictures — messages per month (by platform and
by person), a weekday-by-hour heat map, the people talked to most each year, and the first and
last message with each person. Times are the owner's local time; a seat sees only its chats."""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from datetime import date, datetime, timedelta, timezone, tzinfo

from typing_extensions import TypedDict

from chatmem.config import Seat
from chatmem.errors import ArgumentError
from chatmem.store import Store
from chatmem.store.activity import (
    messages_per_hour,
    messages_per_person_year,
    person_messages_per_hour,
    person_spans,
)

from .records import timestamp_fields


class PersonCount(TypedDict):
    person_id: str
    name: str
    messages: int


class YearTop(TypedDict):
    year: int
    people: list[PersonCount]


class PersonSpanItem(TypedDict):
    person_id: str
    name: str
    messages: int
    first: str
    last: str


class ActivityResult(TypedDict):
    total: int
    months: list[str]
    by_platform: dict[str, list[int]]
    by_person: dict[str, list[int]]
    weekday_hour: list[list[int]]  # 7 rows (Monday first) x 24 hours, local time
    top_people_per_year: list[YearTop]
    people: list[PersonSpanItem]


WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def _month_range(first: str, last: str) -> list[str]:
    y, m = int(first[:4]), int(first[5:7])
    out = []
    while f"{y:04d}-{m:02d}" <= last:
        out.append(f"{y:04d}-{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


class LocalClock:
    """UTC hours (since the epoch) as the owner's local month, weekday and hour. The zone's
    offset changes are found once for the span asked (a day at a time, then to the second), so
    each of tens of thousands of hours costs a lookup, not a time-zone conversion."""

    def __init__(self, tz: tzinfo, first_hour: int, last_hour: int):
        start = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(hours=first_hour - 24)
        days = (last_hour - first_hour) // 24 + 3

        def offset(t: datetime) -> int:
            off = t.astimezone(tz).utcoffset()
            return int(off.total_seconds()) if off is not None else 0

        self.starts: list[int] = [int(start.timestamp())]
        self.offsets: list[int] = [offset(start)]
        for d in range(1, days + 1):
            t = start + timedelta(days=d)
            off = offset(t)
            if off == self.offsets[-1]:
                continue
            lo, hi = int(t.timestamp()) - 86400, int(t.timestamp())  # offset(lo) is the old one
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if offset(datetime.fromtimestamp(mid, timezone.utc)) == self.offsets[-1]:
                    lo = mid
                else:
                    hi = mid
            self.starts.append(hi)
            self.offsets.append(off)
        self.months: dict[int, str] = {}

    def __call__(self, hour: int) -> tuple[str, int, int]:
        """(local 'YYYY-MM', weekday with Monday 0, local hour) of a UTC hour."""
        seconds = hour * 3600
        local = seconds + self.offsets[max(0, bisect_right(self.starts, seconds) - 1)]
        day, rest = divmod(local, 86400)
        month = self.months.get(day)
        if month is None:
            month = self.months[day] = (date(1970, 1, 1) + timedelta(days=day)).strftime("%Y-%m")
        return month, (day + 3) % 7, rest // 3600


def archive_activity(store: Store, seat: Seat, top: int = 8) -> ActivityResult:
    """Counts behind the archive's pictures, for the chats `seat` may read."""
    if not isinstance(top, int) or isinstance(top, bool) or not 1 <= top <= 50:
        raise ArgumentError("top must be a whole number from 1 to 50")
    tz = store.config.timezone
    per_month: dict[str, Counter[str]] = defaultdict(Counter)
    heat = [[0] * 24 for _ in range(7)]
    total = 0

    with store.reader() as r:
        conn = r.conn
        visible = r.readable_chat_ids(seat)
        names = r.names()
        hours = list(messages_per_hour(conn, visible))
        clock = LocalClock(tz, min((h.hour for h in hours), default=0),
                           max((h.hour for h in hours), default=0))
        for row in hours:
            month, weekday, hour = clock(row.hour)
            per_month[month][row.platform] += row.messages
            heat[weekday][hour] += row.messages
            total += row.messages
        spans = sorted(person_spans(conn, visible), key=lambda s: (s.first, s.person_id))
        per_year: dict[int, Counter[str]] = defaultdict(Counter)
        overall: Counter[str] = Counter()
        for py in messages_per_person_year(conn, visible):
            per_year[py.year][py.person_id] += py.count
            overall[py.person_id] += py.count
        leaders = [pid for pid, _ in overall.most_common(top)]
        person_month: dict[str, Counter[str]] = defaultdict(Counter)
        for pid, row in person_messages_per_hour(conn, visible, leaders):
            person_month[pid][clock(row.hour)[0]] += row.messages

        def name(pid: str) -> str:
            return names[pid] if pid in names else pid

        months = _month_range(min(per_month), max(per_month)) if per_month else []
        platforms = sorted({p for c in per_month.values() for p in c})
        return {
            "total": total,
            "months": months,
            "by_platform": {p: [per_month[mo][p] for mo in months] for p in platforms},
            "by_person": {name(pid): [person_month[pid][mo] for mo in months] for pid in leaders},
            "weekday_hour": heat,
            "top_people_per_year": [
                {"year": year, "people": [{"person_id": pid, "name": name(pid), "messages": n}
                                          for pid, n in per_year[year].most_common(top)]}
                for year in sorted(per_year)],
            "people": [{"person_id": s.person_id, "name": name(s.person_id), "messages": s.count,
                        "first": timestamp_fields(s.first, tz)["timestamp"],
                        "last": timestamp_fields(s.last, tz)["timestamp"]} for s in spans],
        }
