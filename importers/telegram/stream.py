"""A Telegram Desktop `result.json` read as a stream: a whole-account export runs to several
GB, so it is never loaded whole. ijson (yajl's C parser) gives the file's events; only one
message, or one small top-level block, is ever built at a time.

Telegram Desktop writes every chat as `name`, `type`, `id`, then `messages` (see
importers/SOURCES.md), so a chat's head is known before its first message. `parts` yields, in
file order:

    Block(key, value)           a top-level block of an account export (personal_information, contacts...)
    ChatHead(label, head)       a chat's keys before its messages (label: "chats[3]", "" for a one-chat export)
    ChatMessage(row, value)     one message of the current chat (row: 1-based)
    ChatEnd(label, head)        the chat is over (head: every key but messages, those after them too)
    NotAChat(label, value)      an entry of a chat list that is no object
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import ijson

from chatmem.errors import FormatError

CHAT_LISTS = ("chats", "left_chats")  # account export: {"about": ..., "list": [chat, ...]}
MAX_DEPTH = 200  # a value nested deeper is no Telegram export (and would exhaust the stack)
CONTAINERS = ("start_map", "start_array")


@dataclass
class Block:
    key: str
    value: Any


@dataclass
class ChatHead:
    label: str
    head: dict[str, Any]


@dataclass
class ChatMessage:
    row: int
    value: Any


@dataclass
class ChatEnd:
    label: str
    head: dict[str, Any]


@dataclass
class NotAChat:
    label: str
    value: Any


Part = Block | ChatHead | ChatMessage | ChatEnd | NotAChat


class _Counting:
    """The file, counting the bytes handed to the parser (for where an error is)."""

    def __init__(self, f: BinaryIO) -> None:
        self.f, self.read_bytes = f, 0

    def read(self, n: int = -1) -> bytes:
        data = self.f.read(n)
        self.read_bytes += len(data)
        return data


def parts(path: Path) -> Iterator[Part]:
    """The export's parts in file order; FormatError naming the file (and about where) when it
    is not complete JSON, not UTF-8, or no Telegram export at all."""
    try:
        with path.open("rb") as f:
            counting = _Counting(f)
            events = iter(ijson.basic_parse(counting, use_float=True, buf_size=64 * 1024))
            try:
                yield from _top(events, path)
            except ijson.JSONError as e:
                raise FormatError(f"{path}: not a complete JSON document (near byte {counting.read_bytes:,}: "
                                  f"{_reason(e)}); was the export interrupted?") from e
            except RecursionError as e:
                raise FormatError(f"{path}: nested more than {MAX_DEPTH} deep near byte "
                                  f"{counting.read_bytes:,}: not a Telegram export") from e
    except OSError as e:
        raise FormatError(f"{path}: cannot read ({e})") from e


def _reason(e: Exception) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return text[:200]


def _top(events: Iterator[tuple[str, Any]], path: Path) -> Iterator[Part]:
    first = next(events, None)
    if first is None:
        raise FormatError(f"{path}: empty file, not a Telegram Desktop export")
    if first[0] != "start_map":
        raise FormatError(f"{path}: not a Telegram Desktop export (the file is no JSON object)")
    head: dict[str, Any] = {}
    found = False
    for event, key in events:
        if event == "end_map":
            break
        event, value = next(events)
        if key == "messages" and event == "start_array":  # "Export chat history": the file is the chat
            found = True
            yield ChatHead("", dict(head))
            yield from _messages(events)
            yield from _rest_of_chat(events, head)
            yield ChatEnd("", head)
            return
        if key in CHAT_LISTS and event == "start_map":
            found = True
            yield from _chat_list(events, key)
            continue
        built = _value(events, event, value)
        head[key] = built
        yield Block(key, built)
    if not found:
        raise FormatError(f"{path}: not a Telegram Desktop export (no chats or messages)")


def _chat_list(events: Iterator[tuple[str, Any]], section: str) -> Iterator[Part]:
    """{"about": ..., "list": [chat, ...]}: each chat in turn."""
    for event, key in events:
        if event == "end_map":
            return
        event, value = next(events)
        if key != "list" or event != "start_array":
            _value(events, event, value)
            continue
        index = 0
        for event, value in events:
            if event == "end_array":
                break
            label = f"{section}[{index}]"
            index += 1
            if event != "start_map":
                yield NotAChat(label, _value(events, event, value))
                continue
            yield from _chat(events, label)


def _chat(events: Iterator[tuple[str, Any]], label: str) -> Iterator[Part]:
    head: dict[str, Any] = {}
    for event, key in events:
        if event == "end_map":
            break
        event, value = next(events)
        if key == "messages" and event == "start_array":
            yield ChatHead(label, dict(head))
            yield from _messages(events)
            yield from _rest_of_chat(events, head)
            yield ChatEnd(label, head)
            return
        head[key] = _value(events, event, value)
    yield ChatHead(label, dict(head))  # a chat without a message list
    yield ChatEnd(label, head)


def _messages(events: Iterator[tuple[str, Any]]) -> Iterator[Part]:
    row = 0
    for event, value in events:
        if event == "end_array":
            return
        row += 1
        yield ChatMessage(row, _value(events, event, value))


def _rest_of_chat(events: Iterator[tuple[str, Any]], head: dict[str, Any]) -> Iterator[Part]:
    """Keys after `messages` (Telegram writes none): kept in the head, read to the chat's end."""
    for event, key in events:
        if event == "end_map":
            return
        event, value = next(events)
        head[key] = _value(events, event, value)
    return
    yield  # a generator, for `yield from`


def _value(events: Iterator[tuple[str, Any]], event: str, value: Any, depth: int = 0) -> Any:
    """The whole JSON value that starts with (event, value)."""
    if event == "start_map":
        if depth > MAX_DEPTH:
            raise RecursionError
        obj: dict[str, Any] = {}
        for ev, key in events:
            if ev == "end_map":
                return obj
            ev, val = next(events)
            obj[key] = _value(events, ev, val, depth + 1) if ev in CONTAINERS else val
        return obj
    if event == "start_array":
        if depth > MAX_DEPTH:
            raise RecursionError
        arr: list[Any] = []
        for ev, val in events:
            if ev == "end_array":
                return arr
            arr.append(_value(events, ev, val, depth + 1) if ev in CONTAINERS else val)
        return arr
    return value
