"""Every error chatmem raises on purpose derives from ChatmemError.

The CLI prints one line for these and exits non-zero; the MCP server turns them into tool
errors the model can read. Anything else reaching the user is a bug.
"""

from __future__ import annotations

import re

_LINE_BREAKS = re.compile(r"\s*[\r\n]+\s*")


class ChatmemError(Exception):
    """Base of every error chatmem raises for a user's input or environment."""

    exit_code = 1

    def __str__(self) -> str:
        # always one line: a message may quote a damaged file's text or SQLite's error (which
        # can hold a CREATE TABLE statement over several lines)
        return _LINE_BREAKS.sub(" ", super().__str__())


class FormatError(ChatmemError, ValueError):
    """An export is not in a format we can read (names the file, and line or row)."""


class ArgumentError(ChatmemError, ValueError):
    """A tool argument is missing or outside its allowed range."""

    exit_code = 2


class QueryError(ArgumentError):
    """A search query the parser cannot read."""


class NotFound(ChatmemError, LookupError):
    """An id or conversation that does not exist (or is outside the seat's scope)."""


class ConfigError(ChatmemError, ValueError):
    """The YAML config file is unreadable or has a wrong value."""


class StoreError(ChatmemError, RuntimeError):
    """The store cannot be opened or written (locked, read-only, disk full, corrupt)."""


class StoreBusy(StoreError):
    """Another chatmem process holds the import lock."""

    exit_code = 3


class NoStore(StoreError):
    """A read asked of a store that does not exist (reads never create one)."""


class PermissionDenied(ChatmemError, PermissionError):
    """The seat may not do this (write, reveal secrets)."""
