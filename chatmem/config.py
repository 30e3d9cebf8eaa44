"""Configuration: a YAML file, found by --config, then CHATMEM_CONFIG, then the per-user
config folder. A missing file means sensible defaults.

Example (every key optional):

    owner:
      names: ["Sam Rivera"]          # how the owner appears in exports
      handles: ["+15550100000", "sam@example.com"]
    timezone: Europe/Berlin          # for exports without a zone (WhatsApp)
    region: DE                       # default phone number region
    database: postgresql+psycopg://localhost/chatmem   # default: SQLite in the home folder
    retention_days: 90               # agent sessions expire after this
    seats:
      assistant:
        token: "a-random-string-of-32-or-more-characters"  # for `chatmem serve --http`
        platforms: [whatsapp, signal]
        include_chats: []            # names or source ids; empty = all
        exclude_chats: ["Family"]
        write: false
        memory: true
        reveal_secrets: false
        attachments: false           # may read attachment content (read_attachment)
      owner:                         # optional: the owner's own settings
        reveal_secrets: true         # let assistants (MCP) see secrets too; the CLI always does
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from datetime import tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from platformdirs import user_config_dir, user_data_dir

from chatmem.errors import ConfigError

APP = "chatmem"
DEFAULT_SEAT = "owner"
MIN_TOKEN_LENGTH = 32  # a seat token is a bearer secret: long enough not to be guessed
TOKEN_HINT = 'python3 -c "import secrets; print(secrets.token_urlsafe(32))" makes one'


@dataclass
class Seat:
    """One client of the store, and what it may see and do."""

    name: str = DEFAULT_SEAT
    token: str | None = None
    platforms: list[str] = field(default_factory=list)  # empty = all
    include_chats: list[str] = field(default_factory=list)  # empty = all
    exclude_chats: list[str] = field(default_factory=list)
    write: bool = True
    memory: bool = True
    reveal_secrets: bool = True
    # what an assistant (MCP, the web page) may see: None = as `reveal_secrets`. The owner
    # sees everything on the CLI, but over MCP only when the config says `reveal_secrets: true`.
    reveal_to_assistants: bool | None = False
    retention_days: int = 90  # agent sessions older than this are gone from every tool
    attachments: bool = True  # may read attachment content; names and types are always listed

    @property
    def unrestricted(self) -> bool:
        return not (self.platforms or self.include_chats or self.exclude_chats)

    def for_assistants(self) -> Seat:
        """This seat as an MCP client gets it: secrets masked unless configured to reveal."""
        reveal = self.reveal_secrets if self.reveal_to_assistants is None else self.reveal_to_assistants
        return replace(self, reveal_secrets=reveal, reveal_to_assistants=None)


@dataclass
class Config:
    path: Path | None = None
    owner_names: list[str] = field(default_factory=list)
    owner_handles: list[str] = field(default_factory=list)
    timezone_name: str | None = None
    region: str | None = None
    database: str | None = None
    retention_days: int = 90
    seats: dict[str, Seat] = field(default_factory=lambda: {DEFAULT_SEAT: Seat()})

    @property
    def timezone(self) -> tzinfo:
        return load_timezone(self.timezone_name) if self.timezone_name else local_timezone()

    def seat(self, name: str | None) -> Seat:
        name = name or DEFAULT_SEAT
        if name not in self.seats:
            raise ConfigError(f"no seat named {name!r} in {self.path or 'the config'}; "
                              f"known seats: {', '.join(sorted(self.seats))}")
        seat = self.seats[name]
        seat.retention_days = self.retention_days
        return seat

    def seat_for_token(self, token: str) -> Seat | None:
        import hmac

        found = None
        for seat in self.seats.values():
            if seat.token and hmac.compare_digest(seat.token.encode(), token.encode()):
                found = seat
        if found is not None:
            found.retention_days = self.retention_days
        return found


def load_timezone(name: str) -> tzinfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as e:
        raise ConfigError(f"unknown time zone {name!r} (use an IANA name like Europe/Berlin)") from e


def local_timezone() -> tzinfo:
    """The machine's zone (TZ, /etc/localtime), else UTC."""
    tz_env = os.environ.get("TZ")
    if tz_env:
        try:
            return ZoneInfo(tz_env.lstrip(":"))
        except (ZoneInfoNotFoundError, ValueError):
            pass
    from datetime import datetime

    return datetime.now().astimezone().tzinfo or ZoneInfo("UTC")


def default_config_path() -> Path:
    return Path(user_config_dir(APP)) / "config.yaml"


def default_home() -> Path:
    return Path(user_data_dir(APP))


def resolve_home(home: str | os.PathLike | None) -> Path:
    if home:
        return Path(home).expanduser()
    if os.environ.get("CHATMEM_HOME"):
        return Path(os.environ["CHATMEM_HOME"]).expanduser()
    return default_home()


def resolve_config_path(path: str | os.PathLike | None) -> tuple[Path, bool]:
    """(path, explicit): an explicit path that is missing is an error; the default is not."""
    if path:
        return Path(path).expanduser(), True
    if os.environ.get("CHATMEM_CONFIG"):
        return Path(os.environ["CHATMEM_CONFIG"]).expanduser(), True
    return default_config_path(), False


def load_config(path: str | os.PathLike | None = None) -> Config:
    cfg_path, explicit = resolve_config_path(path)
    if not cfg_path.exists():
        if explicit:
            raise ConfigError(f"config file {cfg_path} does not exist")
        return Config()
    import yaml  # here, not at the top: without a config file nothing loads it (~0.01 s)

    try:
        data = yaml.safe_load(cfg_path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{cfg_path}{where}: not valid YAML ({getattr(e, 'problem', e)})") from e
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read config file {cfg_path}: {e}") from e
    return parse_config(data, cfg_path)


def _str_list(value: Any, what: str, where: Path | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, (str, int)) for v in value):
        return [str(v) for v in value]
    raise ConfigError(f"{where}: {what} must be a list of strings")


def _bool(value: Any, default: bool, what: str, where: Path | None) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    raise ConfigError(f"{where}: {what} must be true or false")


def parse_config(data: Any, where: Path | None = None) -> Config:
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: the config must be a mapping of keys to values")
    owner = data.get("owner") or {}
    if not isinstance(owner, dict):
        raise ConfigError(f"{where}: owner must be a mapping with names and handles")
    cfg = Config(path=where)
    cfg.owner_names = _str_list(owner.get("names"), "owner.names", where)
    cfg.owner_handles = _str_list(owner.get("handles"), "owner.handles", where)
    if data.get("timezone") is not None:
        cfg.timezone_name = str(data["timezone"])
        load_timezone(cfg.timezone_name)  # validate now, not mid-import
    cfg.region = str(data["region"]).upper() if data.get("region") else None
    cfg.database = str(data["database"]) if data.get("database") else None
    retention = data.get("retention_days", 90)
    if not isinstance(retention, int) or retention < 1:
        raise ConfigError(f"{where}: retention_days must be a whole number of days >= 1")
    cfg.retention_days = retention
    seats = data.get("seats") or {}
    if not isinstance(seats, dict):
        raise ConfigError(f"{where}: seats must be a mapping of seat names to settings")
    cfg.seats = {DEFAULT_SEAT: Seat(retention_days=retention)}
    for name, s in seats.items():
        s = s or {}
        if not isinstance(s, dict):
            raise ConfigError(f"{where}: seat {name!r} must be a mapping")
        token = s.get("token")
        if str(name) == DEFAULT_SEAT:
            # the owner keeps a seat that sees and may do everything; the config can give it a
            # token, and whether assistants serving it may see secrets
            cfg.seats[DEFAULT_SEAT] = Seat(
                token=str(token) if token else None,
                reveal_to_assistants=_bool(s.get("reveal_secrets"), False,
                                           f"seats.{name}.reveal_secrets", where),
                retention_days=retention)
            continue
        cfg.seats[str(name)] = Seat(
            name=str(name),
            token=str(token) if token else None,
            platforms=_str_list(s.get("platforms"), f"seats.{name}.platforms", where),
            include_chats=_str_list(s.get("include_chats"), f"seats.{name}.include_chats", where),
            exclude_chats=_str_list(s.get("exclude_chats"), f"seats.{name}.exclude_chats", where),
            write=_bool(s.get("write"), False, f"seats.{name}.write", where),
            memory=_bool(s.get("memory"), True, f"seats.{name}.memory", where),
            reveal_secrets=_bool(s.get("reveal_secrets"), False, f"seats.{name}.reveal_secrets", where),
            reveal_to_assistants=None,
            retention_days=retention,
            attachments=_bool(s.get("attachments"), False, f"seats.{name}.attachments", where),
        )
    check_tokens(cfg.seats, where)
    return cfg


def check_tokens(seats: dict[str, Seat], where: Path | None) -> None:
    """ConfigError when a seat's token is shorter than MIN_TOKEN_LENGTH or shared by two seats
    (the server could not tell them apart). The message names the seats, never the token."""
    holders: dict[str, list[str]] = {}
    for seat in seats.values():
        if seat.token is None:
            continue
        if len(seat.token) < MIN_TOKEN_LENGTH:
            raise ConfigError(f"{where or 'the config'}: the token of seat {seat.name!r} has "
                              f"{len(seat.token)} characters; a seat token needs at least "
                              f"{MIN_TOKEN_LENGTH} ({TOKEN_HINT})")
        holders.setdefault(seat.token, []).append(seat.name)
    for names in holders.values():
        if len(names) > 1:
            listed = " and ".join(repr(n) for n in names)
            raise ConfigError(f"{where or 'the config'}: seats {listed} have the same token; give "
                              f"each seat its own ({TOKEN_HINT})")
