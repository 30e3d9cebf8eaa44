"""Printing: JSON for scripts, plain tables for people, and the import progress line."""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import click


def emit(result: Any, as_json: bool, text: str | None = None) -> None:
    """Print a tool result: JSON with --json, else `text` or a generic readable rendering."""
    if as_json:
        click.echo(json.dumps(result, ensure_ascii=False, indent=2, default=str))
    elif text is not None:
        click.echo(text)
    else:
        click.echo(render(result))


def render(value: Any, indent: int = 0) -> str:
    pad = "  " * indent
    if isinstance(value, dict):
        lines = []
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                lines.append(f"{pad}{k}:")
                lines.append(render(v, indent + 1))
            else:
                lines.append(f"{pad}{k}: {v}")
        return "\n".join(lines)
    if isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value):
            return "\n".join(render(v, indent) + ("\n" if i < len(value) - 1 else "")
                             for i, v in enumerate(value))
        return "\n".join(f"{pad}- {v}" for v in value)
    return f"{pad}{value}"


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str], max_width: int | None = None,
          style: Callable[[str], str] | None = None) -> str:
    """A plain-text table. On a terminal the last column is cut to fit its width (never
    inside a highlighted hit or a [masked …] mark); piped, every cell is written whole.
    `style` turns the last column's cells (hits marked **…**) into what is shown, after the
    cut, so that a cut never falls inside a terminal's escape codes."""
    cut = max_width is not None or sys.stdout.isatty()
    max_width = max_width or shutil.get_terminal_size((120, 20)).columns
    cells = [[("" if c is None else str(c)).replace("\n", " ") for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, c in enumerate(row[:-1]):
            widths[i] = min(max(widths[i], len(c)), 40)
    fixed = sum(widths[:-1]) + 2 * (len(headers) - 1)
    last = max(20, max_width - fixed)
    widths[-1] = min(max([len(headers[-1])] + [_visible(r[-1]) for r in cells] or [0]), last)

    def fmt(row: Sequence[str], styled: bool = False) -> str:
        out = []
        for i, c in enumerate(row):
            w = widths[i]
            if i < len(row) - 1:
                c = c if len(c) <= w else c[: max(0, w - 1)] + "…"
                out.append(c.ljust(w))
            else:
                shown = _fit(c, w) if cut else c
                out.append(style(shown) if style is not None and styled else shown)
        return "  ".join(out).rstrip()

    lines = [fmt(headers), fmt(["-" * w for w in widths])]
    lines += [fmt(r, styled=True) for r in cells]
    return "\n".join(lines)


def _visible(text: str) -> int:
    return len(text.replace("**", ""))


def _fit(text: str, width: int) -> str:
    """`text` cut to `width` visible characters, keeping hit marks (**…**) paired and never
    splitting a [masked …] mark."""
    if _visible(text) <= width:
        return text
    out, seen, i = [], 0, 0
    while i < len(text) and seen < width - 1:
        if text.startswith("**", i):
            out.append("**")
            i += 2
            continue
        out.append(text[i])
        seen += 1
        i += 1
    cut = "".join(out)  # == text[:i]
    for mark in re.finditer(r"\[masked[^\]]*\]", text):
        if mark.start() < i < mark.end():
            cut = text[: mark.start()].rstrip()
    if cut.count("**") % 2:
        cut += "**"
    return cut + "…"


def print_report(r: dict) -> None:
    """The import report in words: one line per source, one per chat that changed."""
    status = r.get("status")
    if status in ("unchanged", "missing", "failed", "skipped"):
        click.echo(f"{r['path']}: {status}")
        for note in r.get("notes", []):
            click.echo(f"  {note}")
        return
    t = r.get("messages", {})
    click.echo(f"{r['path']} ({r['platform']}): {t.get('new', 0):,} new, {t.get('updated', 0):,} updated, "
               f"{t.get('unchanged', 0):,} unchanged messages; {r.get('unparsed', 0):,} unparsed"
               + (f"; calls {r['calls']['new']} new" if r.get("calls", {}).get("new") else "")
               + (f"; {r['contacts']} contacts" if r.get("contacts") else "")
               + f" ({r.get('seconds', 0):.1f}s)")
    chats = r.get("chats", [])
    rows = [(c["chat"] or c["source"], c["new"], c["updated"], c["unchanged"], c["unparsed"])
            for c in chats]
    if rows and len(rows) <= 50:
        click.echo(table(rows, ["chat", "new", "updated", "unchanged", "unparsed"]))
    elif rows:
        click.echo(f"  {len(rows):,} chats (use --json for each)")
    for c in chats:
        for p in c.get("first_problems", []):
            click.echo(f"  could not parse {p['where']} line {p['line']}: {p['reason']}: {p['text'][:80]!r}")
    for p in r.get("problems", []):
        click.echo(f"  could not parse {p['where']} line {p['line']}: {p['reason']}: {p['text'][:80]!r}")
    for note in r.get("notes", []):
        click.echo(f"  note: {note}")


class LineProgress:
    """A one-line progress display on stderr: what is being done, how far, the rate, and the
    time left when the total is known. Clears its line when closed."""

    def __init__(self, label: str):
        self.label = label
        self.start = self.last = time.monotonic()
        self.phase = ""
        self.shown = False

    def __call__(self, n: int, total: int | None = None, phase: str | None = None) -> None:
        now = time.monotonic()
        if phase is not None:  # a new phase: say so at once, and time it from here
            self.phase, self.start, self.last = phase, now, now
            self._write(f"{self.label}: {phase}")
            return
        if now - self.last < 0.2:
            return
        self.last = now
        elapsed = max(now - self.start, 1e-6)
        rate = n / elapsed
        done = f"{n:,} of {total:,}" if total else f"{n:,}"
        left = f", about {_duration((total - n) / rate)} left" if total and rate > 0 and n < total else ""
        what = self.phase or "records"
        self._write(f"{self.label}: {what}: {done}, {rate:,.0f}/s{left}")

    def _write(self, text: str) -> None:
        width = shutil.get_terminal_size((100, 20)).columns - 1
        sys.stderr.write("\r" + text[:width].ljust(min(width, 100)))
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * min(shutil.get_terminal_size((100, 20)).columns - 1, 100) + "\r")
            sys.stderr.flush()
            self.shown = False


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60:02d}s"
    return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"


@contextmanager
def progress_printer(show: bool, label: str) -> Iterator[Callable[..., None]]:
    """A progress display on stderr for one import (nothing when not on a terminal)."""
    if not show:
        yield lambda n, total=None, phase=None: None
        return
    progress = LineProgress(label)
    try:
        yield progress
    finally:
        progress.close()


# What the tool functions call things (for MCP clients) -> what the command line calls them.
CLI_WORDS = [
    (r"\bsearch_memory\b", "`chatmem search`"),
    (r"\bget_context\b", "`chatmem context`"),
    (r"\bget_conversation_context\b", "`chatmem conversation`"),
    (r"\bget_conversation_history\b", "`chatmem history`"),
    (r"\bread_raw_data\b", "`chatmem raw`"),
    (r"\bread_attachment\b", "`chatmem attachment`"),
    (r"\blist_chats\b", "`chatmem chats`"),
    (r"\bstart_conversation\b", "an agent session"),
    (r"\btoken_budget\b", "--budget"),
    (r"\bmax_turns\b", "--turns"),
    (r"\bmax_chars\b", "--max-chars"),
    (r"\bmax_bytes\b", "--max-bytes"),
    (r"\binclude_memory\b", "--memory"),
    (r"^(limit|offset|before|after|since|until|platform|source|sender|person|sort|page|query)\b",
     r"--\1"),
]


def cli_words(message: str) -> str:
    """An error from a tool function, in the command line's own words."""
    for pattern, words in CLI_WORDS:
        message = re.sub(pattern, words, message)
    return message


def highlight(snippet: str) -> str:
    """A snippet's **hits**: bold on a terminal, plain text when piped or redirected."""
    if sys.stdout.isatty():
        return re.sub(r"\*\*(.+?)\*\*", lambda m: click.style(m.group(1), bold=True, fg="yellow"), snippet)
    return re.sub(r"\*\*(.+?)\*\*", r"\1", snippet)
