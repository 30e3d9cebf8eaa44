"""What a CLI invocation needs: the config, the seat, and a lazily opened store."""

from __future__ import annotations

from dataclasses import dataclass, field

from chatmem.config import Config, Seat, load_config
from chatmem.store import Store


@dataclass
class AppContext:
    home: str | None = None
    config_path: str | None = None
    seat_name: str | None = None
    _config: Config | None = field(default=None, repr=False)
    _store: Store | None = field(default=None, repr=False)

    def config(self) -> Config:
        if self._config is None:
            self._config = load_config(self.config_path)
        return self._config

    def seat(self) -> Seat:
        return self.config().seat(self.seat_name)

    def store(self, catch_up: bool = True) -> Store:
        if self._store is None:
            self._store = Store.open(self.home, self.config(), catch_up=catch_up)
        return self._store

    def resolve_chat_name(self, chat: str) -> str:
        """`--chat` takes a chat name or a source id; importers want the chat's natural key."""
        if chat.startswith("s_"):
            from sqlalchemy import select

            from chatmem.store.models import Chat

            with self.store().read() as conn:
                row = conn.execute(select(Chat.key).where(Chat.id == chat)).first()
            if row is not None:
                return row.key
        return chat

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
