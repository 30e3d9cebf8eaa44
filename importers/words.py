"""Small wording helpers several importers share (service messages in English)."""

from __future__ import annotations

from typing import Any


def duration_words(seconds: Any) -> str:
    """A timer in seconds as people say it; 'off' for none.

    >>> duration_words(604800), duration_words(3600), duration_words(90), duration_words(0)
    ('1 week', '1 hour', '90 seconds', 'off')
    """
    try:
        n = int(seconds)
    except (TypeError, ValueError):
        return str(seconds)
    if n <= 0:
        return "off"
    for unit, size in (("week", 604800), ("day", 86400), ("hour", 3600), ("minute", 60)):
        if n % size == 0:
            k = n // size
            return f"{k} {unit}{'' if k == 1 else 's'}"
    return f"{n} seconds"
