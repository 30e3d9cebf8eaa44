"""What a command of either face (the CLI, `chatmem serve`) needs: the config, the seat, a
lazily opened store, and one way of turning a ChatmemError into a message and an exit status."""

from __future__ import annotations

import functools
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import click

from chatmem.errors import ChatmemError

if TYPE_CHECKING:
    from chatmem.config import Config, Seat
    from chatmem.store import Store
    from chatmem.store.quick import Entries
    from chatmem.store.report import Report


def handle_errors(fn):
    """Turn ChatmemError into `chatmem: error: ...` and exit status, not a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ChatmemError as e:
            app = next((a for a in args if isinstance(a, AppContext)), None)
            words = app.error_words(str(e)) if app is not None and app.error_words else str(e)
            click.echo(f"chatmem: error: {words}", err=True)
            sys.exit(e.exit_code)
        except KeyboardInterrupt:
            app = next((a for a in args if isinstance(a, AppContext)), None)
            note = app.interrupt_note() if app is not None else "interrupted"
            click.echo(f"\nchatmem: {note}", err=True)
            sys.exit(130)

    return wrapper


json_option = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")


@dataclass
class AppContext:
    home: str | None = None
    config_path: str | None = None
    seat_name: str | None = None
    # shows the index catching up (a terminal's progress line), or None
    on_progress: Callable[..., None] | None = field(default=None, repr=False)
    # puts a tool's error in this face's own words (the CLI names its options), or None
    error_words: Callable[[str], str] | None = field(default=None, repr=False)
    _config: Config | None = field(default=None, repr=False)
    _store: Store | None = field(default=None, repr=False)

    def config(self) -> Config:
        if self._config is None:
            from chatmem.config import load_config

            self._config = load_config(self.config_path)
        return self._config

    def seat(self) -> Seat:
        return self.config().seat(self.seat_name)

    def store(self, catch_up: bool = True, write: bool = False) -> Store:
        """The store: for a read (the default) only an existing one, opened without waiting
        for an import; `write` creates it when missing and may wait for the write lock."""
        if self._store is None:
            from chatmem.store import Store

            self._store = Store.open(self.home, self.config(), catch_up=catch_up, create=write,
                                     on_progress=self.on_progress)
            clear = getattr(self.on_progress, "close", None)
            if clear is not None:  # the catch-up's progress line goes before the command's output
                clear()
            for warning in self._store.warnings:  # e.g. other users can read the store
                click.echo(f"chatmem: warning: {warning}", err=True)
        return self._store

    def unchanged_imports(self, paths: Iterable[Path], platform: str | None, zone: object | None,
                          date_format: str | None, entries: Entries) -> list[Report] | None:
        """The reports of importing `paths` when each is a source the store imported and
        none changed, told without opening the store (store/quick.py); None otherwise. Only
        for a SQLite store that no other face has opened in this process."""
        if self._store is not None or os.environ.get("CHATMEM_DATABASE_URL") or self.config().database:
            return None
        from chatmem.config import resolve_home
        from chatmem.store.permissions import permission_warnings
        from chatmem.store.quick import option_record, unchanged_imports

        config = self.config()
        home = resolve_home(self.home)
        options = option_record(zone or config.timezone, date_format, None, config.owner_names)
        reports = unchanged_imports(home, paths, platform, options, entries)
        if reports is not None:
            for warning in permission_warnings(home):  # as opening the store would say
                click.echo(f"chatmem: warning: {warning}", err=True)
        return reports

    def refuse_if_importing(self) -> None:
        """`--no-wait`: stop at once, with a clear message, when another import is running
        (before opening anything that could wait for it)."""
        from chatmem.config import resolve_home
        from chatmem.errors import StoreBusy
        from chatmem.store.quick import IMPORT_LOCK, FileLock

        home = resolve_home(self.home)
        if not (home / IMPORT_LOCK).exists():
            return
        lock = FileLock(home / IMPORT_LOCK)
        if not lock.acquire(wait=False):
            raise StoreBusy(f"another chatmem import is running on {home}; try again when it ends "
                            "(without --no-wait, chatmem waits for it)")
        lock.release()

    def interrupt_note(self) -> str:
        return self._store.interrupt_note() if self._store is not None else "interrupted"

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
    store.catch_up_index(wait=False)
    store.index.refresh()


def catch_up_in_background(store: Store, catching_up: threading.Lock, face: str) -> None:
    """Before a call in a long-running face: see what another process imported since the last
    call (cheap when nothing did). The indexing runs in a thread of its own, one at a time
    (`catching_up` is held while it runs), and no call waits for it (the documents of a big
    import take minutes to index): calls answer from what is indexed already, and see the rest
    as it is committed."""
    if not catching_up.acquire(blocking=False):
        return

    def work() -> None:
        try:
            refresh_for_reads(store)
        except Exception:  # noqa: BLE001 - a read must not fail for it; the next call tries again
            logging.getLogger(f"chatmem.{face}").exception("catching the search index up failed")
        finally:
            catching_up.release()

    try:
        threading.Thread(target=work, name="chatmem-index-catch-up", daemon=True).start()
    except BaseException:
        catching_up.release()
        raise
