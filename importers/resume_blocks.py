"""Re-imports that give the store only what changed, for sources that must be parsed whole
(issue 17): a Telegram result.json, an SMS Backup & Restore XML.

Such a file is one document: a newer export interleaves new messages with the old ones (per
chat, per thread), so there is no tail to resume from, and the parse has to read every byte. What
can be skipped is the rest: building the store's digests, looking every message up, comparing
it. `only_changed` wraps an importer's records: each chat's messages and calls, in the order the
importer gives them, fall into blocks of BLOCK_SIZE, and the import remembers a digest of every
block (of the records themselves, so that anything that makes a record differ — its bytes, a
renamed sender, a reply link, a file found — makes its block differ). A re-import passes on
the records of the blocks that changed or are new, and for the last block of a chat that only
grew, the records past what it held; the store keeps the rest as it has them.

A block is held back until its digest is known only while it may still turn out unchanged (as
many records as it had last time); chats, problems and everything else pass at once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from chatmem.records import PORTABLE, RESUME_STATE, Call, Message, Record, SourceState

BLOCK_SIZE = 256  # records of one chat per digest block
HELD_LIMIT = 100_000  # records held back at most (then the biggest held block passes as changed)
STATE_VERSION = 1


def record_digest(r: Message | Call) -> bytes:
    """What a record says, hashed (the order and types of its fields as the reader made them;
    the line number is left out: an earlier line added moves it without changing the record)."""
    if isinstance(r, Message):
        text = "\x1f".join((
            r.id, r.chat_id, r.sender or "", r.sender_handle or "", r.text or "", r.kind,
            "d" if r.deleted else "", "e" if r.edited else "", r.reply_to or "", r.guid or "",
            str(r.sent_at), r.raw or ""))
        if r.extra or r.attachments or r.reactions or r.versions:
            text += repr((r.extra, r.attachments, r.reactions, r.versions))
    else:
        line, r.line = r.line, None
        text = repr(r)
        r.line = line
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()


@dataclass
class _Block:
    index: int
    h: Any = field(default_factory=lambda: hashlib.blake2b(digest_size=8))
    n: int = 0
    held: list[Record] = field(default_factory=list)
    was: dict[str, Any] | None = None  # the block as the last import left it
    passing: bool = True  # records pass at once (the block is new, changed or past its old end)


class _Chat:
    def __init__(self) -> None:
        self.blocks = 0
        self.current: _Block | None = None


class OnlyChanged:
    def __init__(self, state: dict[str, Any], kind: str) -> None:
        prev = state.get(RESUME_STATE)
        self.kind = kind
        self.resumed = (isinstance(prev, dict) and prev.get("v") == STATE_VERSION
                        and prev.get("kind") == kind)
        self.prev: dict[str, Any] = prev.get("blocks") or {} if self.resumed else {}  # type: ignore[union-attr]
        self.blocks: dict[str, Any] = {}
        self.chats: dict[str, _Chat] = {}
        self.held = 0
        self.passed = 0
        self.records = 0
        self.changed_blocks = 0
        self.how = "the file was parsed whole"  # what the note says of the reading
        self._prev_by_chat: dict[str, list[str]] | None = None

    def carry(self, chat_id: str) -> int:
        """A chat the reader did not decode (its bytes are those the last import read): its
        blocks stay as the last import left them. How many there are."""
        if self._prev_by_chat is None:
            self._prev_by_chat = {}
            for key in self.prev:
                self._prev_by_chat.setdefault(key.rpartition("/")[0], []).append(key)
        keys = self._prev_by_chat.get(chat_id, [])
        for key in keys:
            self.blocks[key] = self.prev[key]
        return len(keys)

    def resume(self, chat_id: str, blocks: int) -> None:
        """The chat's next records are new ones after `blocks` carried blocks."""
        chat = self.chats.setdefault(chat_id, _Chat())
        chat.blocks = max(chat.blocks, blocks)

    def _key(self, chat_id: str, index: int) -> str:
        return f"{chat_id}/{index}"

    def _open(self, chat_id: str, chat: _Chat) -> _Block:
        block = _Block(chat.blocks)
        chat.blocks += 1
        block.was = self.prev.get(self._key(chat_id, block.index))
        block.passing = block.was is None
        if block.was is not None and not block.was.get("n"):
            block.passing = True
        chat.current = block
        return block

    def _release(self, block: _Block) -> Iterator[Record]:
        """The held records pass: their block changed."""
        if not block.passing:
            self.changed_blocks += 1
        block.passing = True
        self.held -= len(block.held)
        self.passed += len(block.held)
        held, block.held = block.held, []
        yield from held

    def _close(self, chat_id: str, block: _Block) -> Iterator[Record]:
        """The block's last record was read: remember it; records still held (it shrank) pass."""
        if block.held:
            yield from self._release(block)
        self.blocks[self._key(chat_id, block.index)] = {"d": block.h.hexdigest(), "n": block.n}

    def _take(self, r: Message | Call) -> Iterator[Record]:
        chat = self.chats.get(r.chat_id)
        if chat is None:
            chat = self.chats[r.chat_id] = _Chat()
        block = chat.current or self._open(r.chat_id, chat)
        block.h.update(record_digest(r))
        block.n += 1
        self.records += 1
        if block.passing:
            self.passed += 1
            yield r
        else:
            block.held.append(r)
            self.held += 1
            assert block.was is not None
            if block.n == block.was["n"]:  # as many as last time: the same ones?
                if block.h.copy().hexdigest() == block.was["d"]:
                    self.held -= len(block.held)
                    block.held = []
                    block.passing = True  # what comes after in this block is new
                else:
                    yield from self._release(block)
            elif self.held > HELD_LIMIT:
                yield from self._spill()
        if block.n >= BLOCK_SIZE:
            yield from self._close(r.chat_id, block)
            chat.current = None

    def _spill(self) -> Iterator[Record]:
        biggest = max((c.current for c in self.chats.values() if c.current is not None),
                      key=lambda b: len(b.held))
        yield from self._release(biggest)

    def feed(self, records: Iterable[Record]) -> Iterator[Record]:
        state: SourceState | None = None
        for r in records:
            if isinstance(r, (Message, Call)):
                yield from self._take(r)
            elif isinstance(r, SourceState):
                state = r
            else:
                yield r
        for chat_id, chat in self.chats.items():
            if chat.current is not None:
                yield from self._close(chat_id, chat.current)
        gone = sum(1 for k in self.prev if k not in self.blocks)
        state = state or SourceState()
        inner = state.state.get(RESUME_STATE)  # what the reader itself keeps (Telegram's chats)
        state.state[RESUME_STATE] = {**(inner if isinstance(inner, dict) else {}), "v": STATE_VERSION,
                                     "kind": self.kind, "blocks": self.blocks, PORTABLE: True}
        if self.resumed:
            state.notes.append(
                f"re-import: {self.passed:,} of {self.records:,} message(s) and call(s) given to "
                f"the store: the new ones and the blocks of up to {BLOCK_SIZE} that changed "
                f"({self.changed_blocks:,} of {len(self.blocks):,}"
                + (f"; {gone} block(s) of the last import are no longer in the file" if gone else "")
                + f"); {self.how}")
        yield state


def only_changed(records: Iterable[Record], state: dict[str, Any], kind: str) -> Iterator[Record]:
    """`records` without the messages and calls of blocks the last import of this source had
    exactly so (see the module's text); the SourceState carries what the next import compares."""
    return OnlyChanged(state, kind).feed(records)
