"""Apple timestamps: seconds or nanoseconds since 2001-01-01 UTC."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

APPLE_EPOCH = datetime(2001, 1, 1, tzinfo=timezone.utc)
APPLE_EPOCH_UNIX = 978307200  # APPLE_EPOCH as Unix seconds
# chat.db stores seconds before macOS 10.13 / iOS 11 and nanoseconds since. Seconds stay far
# below this for millennia; nanoseconds pass it 100 seconds after the epoch.
NANOSECONDS_THRESHOLD = 100_000_000_000


def apple_time(value: float | int | None) -> datetime | None:
    """Seconds or nanoseconds since 2001 → aware UTC datetime; None for 0 / NULL.

    >>> apple_time(760569924490443648)
    datetime.datetime(2025, 2, 6, 21, 25, 24, 490443, tzinfo=datetime.timezone.utc)
    >>> apple_time(690513474.25)
    datetime.datetime(2022, 11, 19, 1, 17, 54, 250000, tzinfo=datetime.timezone.utc)
    """
    if not value:
        return None
    if isinstance(value, int):
        if abs(value) > NANOSECONDS_THRESHOLD:
            return APPLE_EPOCH + timedelta(microseconds=value // 1000)
        return APPLE_EPOCH + timedelta(seconds=value)
    if abs(value) > NANOSECONDS_THRESHOLD:
        value = value / 1e9
    return APPLE_EPOCH + timedelta(seconds=value)


def to_seconds(value: float | int | None) -> float:
    """A chat.db date column in seconds since 2001 (0 for NULL), whatever its unit."""
    if not value:
        return 0.0
    return value / 1e9 if abs(value) > NANOSECONDS_THRESHOLD else float(value)
