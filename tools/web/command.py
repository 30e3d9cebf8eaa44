"""`chatmem web`: start the local page. The web server loads only when it runs."""

from __future__ import annotations

import click

from ..app import AppContext, handle_errors

DEFAULT_PORT = 8766


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Keep it on loopback unless you mean it.")
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0: any free port).")
@click.option("--seat", "seat_name", default=None,
              help="Serve the page as this seat from the config; it is opened with that seat's token.")
@click.pass_obj
@handle_errors
def web(app: AppContext, host: str, port: int, seat_name: str | None):
    """Browse, search and picture the archive in a local web page.

    As the owner (no --seat) the page is opened with a one-time key that this command prints
    in its address; with --seat, or a seat's token, it shows only what that seat may see. The
    page only reads: nothing in it changes the store.
    """
    from .server import run

    if seat_name is not None:
        app.seat_name = seat_name
    app.seat()  # an unknown seat is an error before anything is opened
    run(app, host, port)
