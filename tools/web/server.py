"""The page's HTTP side: a small Starlette app over the tool functions.

Security by default:
- bound to loopback; every request's Host must name this server and an Origin, when sent,
  must be this server (no DNS rebinding, no other site's page reading the archive);
- every read needs a key: the owner's one-time key printed at start, or a seat's token from
  the config; the key sets an HttpOnly, SameSite=Strict cookie, so another site's page cannot
  send it (no cross-site requests), and the address loses the key after the first visit;
- GET only: the page has no write actions at all, so there is nothing to forge;
- the seat decides what is seen, secrets masked as for that seat, like every other face.
"""

from __future__ import annotations

import hmac
import inspect
import json
import logging
import secrets
import socket
import sys
import threading
from collections.abc import Callable, MutableMapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatmem.errors import ArgumentError, ChatmemError, NotFound

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from chatmem.config import Config, Seat
    from chatmem.store import Store

    from ..app import AppContext

log = logging.getLogger("chatmem.web")

COOKIE = "chatmem_key"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
STATIC = {"app.js": "text/javascript", "app.css": "text/css", "index.html": "text/html"}
SECURITY_HEADERS = {
    # plotly draws with inline styles; scripts only from this server
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self' "
                               "'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}

# page endpoint -> the tool function it calls ("module:function")
API: dict[str, str] = {
    "chats": "chatmem.tools.chats:list_chats",
    "search": "chatmem.tools.search:search_memory",
    "context": "chatmem.tools.neighbours:get_context",
    "conversation": "chatmem.tools.conversation:get_conversation_context",
    "history": "chatmem.tools.history:get_conversation_history",
    "raw": "chatmem.tools.raw:read_raw_data",
    "activity": "chatmem.tools.activity:archive_activity",
    "people": "chatmem.tools.people:list_people",
    "person": "chatmem.tools.person:get_person",
    "attachment": "chatmem.tools.attachments:read_attachment",
}


def _tool(name: str) -> Callable[..., Any]:
    import importlib

    module, _, fn = API[name].partition(":")
    return getattr(importlib.import_module(module), fn)


def _arguments(fn: Callable[..., Any], params: dict[str, str]) -> dict[str, Any]:
    """Query parameters as the tool's arguments, typed by the tool's own signature."""
    sig = inspect.signature(fn)
    accepted = {n: p for n, p in list(sig.parameters.items())[2:]}  # after (store, seat)
    args: dict[str, Any] = {}
    for key, value in params.items():
        p = accepted.get(key)
        if p is None:
            raise ArgumentError(f"unknown parameter {key!r}; this page takes: "
                                f"{', '.join(accepted) or 'none'}")
        kind = str(p.annotation)
        if "bool" in kind:
            if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ArgumentError(f"{key} must be true or false")
            args[key] = value.lower() in ("true", "1", "yes")
        elif "int" in kind:
            try:
                args[key] = int(value)
            except ValueError:
                raise ArgumentError(f"{key} must be a whole number") from None
        else:
            args[key] = value
    missing = [n for n, p in accepted.items() if p.default is inspect.Parameter.empty and n not in args]
    if missing:
        raise ArgumentError(f"missing parameter {missing[0]!r}")
    return args


class Keys:
    """Which key opens which seat: the owner's one-time key, and every seat token."""

    def __init__(self, config: Config, only_seat: Seat | None):
        self.by_key: dict[str, Seat] = {}
        self.owner_key: str | None = None
        if only_seat is None:
            self.owner_key = secrets.token_urlsafe(32)
            self.by_key[self.owner_key] = config.seat(None)
            for seat in config.seats.values():
                if seat.token:
                    self.by_key[seat.token] = seat
        elif only_seat.token:
            self.by_key[only_seat.token] = only_seat

    def seat(self, key: str | None) -> Seat | None:
        if not key:
            return None
        for known, seat in self.by_key.items():
            if hmac.compare_digest(known.encode(), key.encode()):
                return seat
        return None


def _allowed_hosts(host: str, port: int) -> set[str]:
    names = {host} | (set(LOOPBACK) if host in LOOPBACK else set())
    out = set()
    for n in names:
        shown = f"[{n}]" if ":" in n else n
        out |= {f"{shown}:{port}", shown} if port == 80 else {f"{shown}:{port}"}
    return out


class Cache:
    """Reads that aggregate the whole archive (the pictures), kept per seat and arguments until
    the store changes: the counts take a second per 100k messages, their answer a lookup."""

    CACHED = frozenset({"activity"})

    def __init__(self, store: Store):
        self.store = store
        self.kept: dict[tuple[str, str, tuple], tuple[tuple[int, int], Any]] = {}
        self.counting: dict[tuple[str, str, tuple], threading.Lock] = {}
        self.lock = threading.Lock()

    def version(self) -> tuple[int, int]:
        with self.store.reader() as r:
            return r.data_version()

    def call(self, name: str, seat: Seat, args: dict[str, Any]) -> Any:
        fn = _tool(name)
        if name not in self.CACHED:
            return fn(self.store, seat, **args)
        key = (name, seat.name, tuple(sorted(args.items())))
        with self.lock:
            counting = self.counting.setdefault(key, threading.Lock())
        # one count at a time per question: a visit during the start's counting waits for it
        # instead of counting the same again beside it
        with counting:
            version = self.version()
            kept = self.kept.get(key)
            if kept is not None and kept[0] == version:
                return kept[1]
            result = fn(self.store, seat, **args)
            self.kept[key] = (version, result)
            return result

    def warm(self, seats: list[Seat]) -> None:
        """Count in the background at start, so the first visit to the pictures is quick."""
        def work() -> None:
            for seat in seats:
                try:
                    self.call("activity", seat, {})
                except Exception:  # noqa: BLE001 - a visit will count again and say what is wrong
                    log.debug("warming the pictures failed", exc_info=True)
        threading.Thread(target=work, name="chatmem-web-warm", daemon=True).start()


def build_app(store: Store, config: Config, keys: Keys, host: str, port: int,
              cache: Cache | None = None) -> Starlette:
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
    from starlette.routing import Route
    from starlette.types import ASGIApp, Receive, Scope, Send

    from ..app import catch_up_in_background

    hosts = _allowed_hosts(host, port)
    loopback = host in LOOPBACK
    origins = {f"http://{h}" for h in hosts}
    catching_up = threading.Lock()  # one request at a time catches the index up
    cache = cache or Cache(store)

    class Guard:
        """Host and Origin checks, GET only, and the security headers on every answer."""

        def __init__(self, app: ASGIApp):
            self.app = app

        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await self.app(scope, receive, send)
                return
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            problem = None
            host_header = headers.get("host", "")
            # on loopback, only this server's own names (no DNS rebinding); bound to another
            # address on purpose, whatever name reaches it, still behind the key
            own = host_header in hosts or (not loopback and bool(host_header))
            if not own:
                problem = (421, "this page answers only under its own address")
            elif "origin" in headers and headers["origin"] not in origins | {f"http://{host_header}"}:
                problem = (403, "requests from other sites are refused")
            elif headers.get("sec-fetch-site") == "cross-site":
                problem = (403, "requests from other sites are refused")
            elif scope["method"] not in ("GET", "HEAD"):
                problem = (405, "this page only reads")
            if problem is not None:
                log.warning("refused %s %s: %s", scope["method"], scope["path"], problem[1])
                response: Response = PlainTextResponse(problem[1], status_code=problem[0])
                await self._send_secured(response, scope, receive, send)
                return

            async def secured(message: MutableMapping[str, Any]) -> None:
                if message["type"] == "http.response.start":
                    raw = list(message.get("headers", []))
                    have = {k.lower() for k, _ in raw}
                    raw += [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()
                            if k.encode() not in have]
                    message = {**message, "headers": raw}
                await send(message)

            await self.app(scope, receive, secured)

        async def _send_secured(self, response: Response, scope: Scope, receive: Receive,
                                send: Send) -> None:
            response.headers.update(SECURITY_HEADERS)
            await response(scope, receive, send)

    def seat_of(request: Request) -> Seat | None:
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            return keys.seat(auth[7:].strip())
        return keys.seat(request.cookies.get(COOKIE))

    def static_file(name: str) -> bytes:
        return resources.files("chatmem.tools.web").joinpath("static", name).read_bytes()

    def page(request: Request) -> Response:
        key = request.query_params.get("key")
        if key is not None:
            if keys.seat(key) is None:
                return PlainTextResponse("that key opens nothing here", status_code=401)
            # the key becomes a cookie, and the address loses it (no key in history or logs)
            response = RedirectResponse("/", status_code=303)
            response.set_cookie(COOKIE, key, httponly=True, samesite="strict", path="/")
            return response
        if seat_of(request) is None:
            return PlainTextResponse(
                "Open the address `chatmem web` printed: it carries the key to this page "
                "(or add ?key=<your seat's token>).", status_code=401)
        return Response(static_file("index.html"), media_type="text/html")

    def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name == "plotly.min.js":
            try:
                import plotly
            except ImportError:
                return PlainTextResponse("pictures need the web extra: pip install 'chatmem[web]'",
                                         status_code=404)
            path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
            # 4.6 MB that changes only when plotly is upgraded: the browser may keep it a day
            # (and its compiled code with it), so the pictures do not wait for it every visit
            return Response(path.read_bytes(), media_type="text/javascript",
                            headers={"cache-control": "private, max-age=86400"})
        if name not in STATIC or name == "index.html":
            return PlainTextResponse("not found", status_code=404)
        return Response(static_file(name), media_type=STATIC[name])

    def api(request: Request) -> Response:
        seat = seat_of(request)
        if seat is None:
            return JSONResponse({"error": "open the page with its key first"}, status_code=401)
        name = request.path_params["name"]
        if name == "whoami":
            reads = {n: list(inspect.signature(_tool(n)).parameters)[2:] for n in API}
            return JSONResponse({"seat": seat.name, "owner": seat.unrestricted and seat.write,
                                 "reads": reads})
        if name not in API:
            return JSONResponse({"error": f"no such read: {name}"}, status_code=404)
        fn = _tool(name)
        try:
            args = _arguments(fn, dict(request.query_params))
            # reads run in parallel, each on its own connection, and answer from what is
            # indexed already while a thread of its own indexes what another process imported
            catch_up_in_background(store, catching_up, "web")
            result = cache.call(name, seat, args)
        except NotFound as e:
            return JSONResponse({"error": str(e)}, status_code=404)
        except ChatmemError as e:
            return JSONResponse({"error": str(e)}, status_code=400)
        return Response(json.dumps(result, ensure_ascii=False), media_type="application/json")

    def download(request: Request) -> Response:
        """An attachment's own bytes, as `chatmem attachment --out` gives them (the seat must
        be allowed attachments); always a download, never shown as a page of this site."""
        from urllib.parse import quote

        from ..attachments import attachment_bytes

        seat = seat_of(request)
        if seat is None:
            return PlainTextResponse("open the page with its key first", status_code=401)
        try:
            info, data = attachment_bytes(store, seat, request.path_params["attachment_id"])
        except NotFound as e:
            return PlainTextResponse(str(e), status_code=404)
        except ChatmemError as e:
            return PlainTextResponse(str(e), status_code=403)
        name = (info.name or info.id).replace("/", "_").replace("\\", "_")
        return Response(data, media_type="application/octet-stream", headers={
            "content-disposition": f"attachment; filename*=UTF-8''{quote(name)}",
            # whatever the file is (HTML, SVG...), it never runs as this site
            "content-security-policy": "sandbox; default-src 'none'"})

    return Starlette(routes=[
        Route("/", page, methods=["GET"]),
        Route("/file/{attachment_id}", download, methods=["GET"]),
        Route("/static/{name}", asset, methods=["GET"]),
        Route("/api/{name}", api, methods=["GET"]),
    ], middleware=[Middleware(Guard)])


def run(app_ctx: AppContext, host: str, port: int) -> None:
    """Serve the page until interrupted; print its address (with the key) on stderr."""
    import uvicorn

    from chatmem.errors import ConfigError

    config = app_ctx.config()
    only = app_ctx.seat() if app_ctx.seat_name else None
    if only is not None and not only.token:
        raise ConfigError(f"seat {only.name!r} has no token in {config.path or 'the config'}; "
                          "add `token: <long random string>` to open the page as that seat")
    keys = Keys(config, only)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        raise ConfigError(f"cannot listen on {host}:{port}: {e.strerror}") from None
    port = sock.getsockname()[1]
    store = app_ctx.store()
    if host not in LOOPBACK:
        print(f"chatmem web: listening on {host}: reachable from other machines "
              "(the page still needs a key)", file=sys.stderr)
    shown = f"[{host}]" if ":" in host else host
    if keys.owner_key:
        print(f"chatmem web: open http://{shown}:{port}/?key={keys.owner_key}",
              file=sys.stderr, flush=True)
    else:
        print(f"chatmem web: open http://{shown}:{port}/?key=<the token of seat "
              f"{only.name if only else ''}>", file=sys.stderr, flush=True)
    cache = Cache(store)
    cache.warm([only or config.seat(None)])
    server = uvicorn.Server(uvicorn.Config(build_app(store, config, keys, host, port, cache),
                                           log_level="warning", access_log=False))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
