"""`chatmem serve --http`: streamable HTTP on loopback, one MCP server per seat behind a bearer
token check.

Every request must carry `Authorization: Bearer <token>` with the token of a seat from the
config. The token picks the seat, and the seat's own MCP server answers, so a seat only ever
sees the tools and the chats it may use (a session opened with one token is unknown to the
server of another). A missing or wrong token gets 401, and the refusal is logged without the
token.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from mcp.server import MCPServer
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Receive, Scope, Send

from chatmem.config import Config, Seat

log = logging.getLogger("chatmem.server")

MCP_PATH = "/mcp"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def bearer_token(scope: Scope) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    for key, value in scope.get("headers") or []:
        if key == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
            return None
    return None


class SeatRouter:
    """ASGI middleware: find the seat by bearer token and hand the request to its app."""

    def __init__(self, app: ASGIApp, config: Config, apps: Mapping[str, ASGIApp]):
        self.app = app  # the outer Starlette app: runs the lifespan, sees nothing else
        self.config = config
        self.apps = apps

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = bearer_token(scope)
        seat = self.config.seat_for_token(token) if token else None
        if seat is None or seat.name not in self.apps:
            reason = "no bearer token" if token is None else "a token no served seat has"
            client = scope.get("client") or ("?", 0)
            # the token itself is never logged, nor the query string (a token could be there)
            log.warning("refused %s %s from %s: %s", scope.get("method"), scope.get("path"),
                        client[0], reason)
            await _unauthorized(send, "missing bearer token" if token is None else "invalid token")
            return
        await self.apps[seat.name](scope, receive, send)


async def _unauthorized(send: Send, description: str) -> None:
    body = json.dumps({"error": "invalid_token", "error_description": description}).encode()
    await send({"type": "http.response.start", "status": 401, "headers": [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"www-authenticate", f'Bearer realm="chatmem", error="invalid_token", '
                              f'error_description="{description}"'.encode()),
    ]})
    await send({"type": "http.response.body", "body": body})


def http_app(servers: dict[str, MCPServer], config: Config, host: str) -> Starlette:
    """One ASGI app serving each seat's MCP server at /mcp, chosen by bearer token."""
    apps = {name: srv.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
            for name, srv in servers.items()}

    @asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[None]:
        # the seats' apps are called directly, so their session managers run here
        async with AsyncExitStack() as stack:
            for srv in servers.values():
                await stack.enter_async_context(srv.session_manager.run())
            yield

    return Starlette(lifespan=lifespan,
                     middleware=[Middleware(SeatRouter, config=config, apps=apps)])


def http_seats(config: Config, seat_name: str | None) -> list[Seat]:
    """The seats to serve: `--seat` alone when given, else every seat with a token."""
    from chatmem.errors import ConfigError

    if seat_name:
        seat = config.seat(seat_name)
        if not seat.token:
            raise ConfigError(f"seat {seat.name!r} has no token in {config.path or 'the config'}; "
                              "add `token: <long random string>` to serve it over HTTP")
        return [seat]
    seats = [s for s in config.seats.values() if s.token]
    if not seats:
        raise ConfigError(f"no seat in {config.path or 'the config'} has a token; HTTP clients "
                          "authenticate with a seat's token (add `token:` to a seat)")
    return seats


def uvicorn_log_config() -> dict[str, Any]:
    """uvicorn's own messages on stderr; no access log (it would print query strings)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"plain": {"format": "chatmem serve: %(message)s"}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "plain",
                                "stream": "ext://sys.stderr"}},
        "loggers": {"uvicorn": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
                    "uvicorn.error": {"level": "INFO"},
                    "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False}},
    }
