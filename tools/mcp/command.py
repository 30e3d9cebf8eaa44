"""`chatmem serve`: the MCP face's command. The SDK loads only when it runs."""

from __future__ import annotations

import click

from ..app import AppContext, handle_errors

DEFAULT_PORT = 8765


@click.command()
@click.option("--http", "use_http", is_flag=True,
              help="Serve streamable HTTP (each request needs a seat's token) instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on with --http. Keep it on loopback unless you mean it.")
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=click.IntRange(1, 65535),
              help="Port to listen on with --http.")
@click.option("--seat", "seat_name", default=None,
              help="Serve as this seat from the config (the same as `chatmem --seat NAME serve`).")
@click.pass_obj
@handle_errors
def serve(app: AppContext, use_http: bool, host: str, port: int, seat_name: str | None):
    """Serve the tools to AI assistants over MCP: stdio, or streamable HTTP with --http.

    Over stdio the tools act as --seat (default: the owner). Over HTTP every request carries
    `Authorization: Bearer <token>`, and the token's seat decides what it may see and do;
    --seat then limits the server to that one seat. Logs go to stderr.
    """
    import os

    from chatmem.config import resolve_home
    from chatmem.store.db import SQLITE_FILE
    from chatmem.store.permissions import read_only_file

    from .server import serve_http, serve_stdio, setup_logging

    if seat_name is not None:
        app.seat_name = seat_name
    setup_logging()
    app.seat()  # an unknown seat is an error before anything is opened
    # a store on read-only media (or whose database was made read-only) is served for
    # reading; its write tools say it is read-only
    home = resolve_home(app.home)
    store = app.store(write=not (home.is_dir() and (not os.access(home, os.W_OK)
                                                    or read_only_file(home / SQLITE_FILE))))
    try:
        if use_http:
            serve_http(app, store, host, port)
        else:
            serve_stdio(store, app.seat())
    except KeyboardInterrupt:
        pass
