"""What a command of either face (the CLI, `chatmem serve`) needs: the config, the seat, a
lazily opened store, and one way of turning a ChatmemError into a message and an exit status."""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import click

from chatmem.errors import ChatmemError

if TYPE_CHECKING:
    from chatmem.config import Config, Seat
    from chatmem.store import Store


def handle_errors(fn):
    """Turn ChatmemError into `chatmem: error: ...` and exit status, not a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ChatmemError as e:
            click.echo(f"chatmem: error: {e}", err=True)
            sys.exit(e.exit_code)
        except KeyboardInterrupt:
            click.echo("chatmem: interrupted; nothing of the unfinished source was written", err=True)
            sys.exit(130)

    return wrapper


json_option = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")


@dataclass
class AppContext:
    home: str | None = None
    config_path: str | None = None
    seat_name: str | None = None
    _config: Config | None = field(default=None, repr=False)
    _store: Store | None = field(default=None, repr=False)

    def config(self) -> Config:
        if self._config is None:
            from chatmem.config import load_config

            self._config = load_config(self.config_path)
        return self._config

    def seat(self) -> Seat:
        return self.config().seat(self.seat_name)

    def store(self, catch_up: bool = True) -> Store:
        if self._store is None:
            from chatmem.store import Store

            self._store = Store.open(self.home, self.config(), catch_up=catch_up)
        return self._store

    def resolve_chat_name(self, chat: str) -> str:
        """`--chat` takes a chat name or a source id; importers want the chat's natural key."""
        if chat.startswith("s_"):
            with self.store().reader() as r:
                key = r.chat_key(chat)
            if key is not None:
                return key
        return chat

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


def refresh_for_reads(store: Store) -> None:
    """Before a read in a long-running face: see what another process (`chatmem import`,
    `chatmem sync`) added since the last call, cheaply when nothing was. An import indexing
    right now is not waited for: the read answers from what is indexed already."""
    from chatmem.store.store import INDEX_LOCK, FileLock

    indexing = FileLock(store.home / INDEX_LOCK)
    if indexing.acquire(wait=False):
        indexing.release()
        store.catch_up_index()
    store.index.refresh()
