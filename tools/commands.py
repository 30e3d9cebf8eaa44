"""CLI commands for the read and write tools: each calls one tool function and prints it."""

from __future__ import annotations

import click

from .cli import cli, handle_errors, json_option
from .context import AppContext
from .output import emit, table


@cli.command()
@click.argument("words", nargs=-1, required=True)
@click.option("--platform", default=None, help="Only this platform (imessage, whatsapp, signal, agent).")
@click.option("--source", default=None, help="Only this chat (its source id, from `chatmem chats`).")
@click.option("--sender", default=None, help="Only messages from this sender (name or handle; `me` for you).")
@click.option("--group/--no-group", default=None, help="Only group chats / only one-to-one chats.")
@click.option("--since", default=None, help="Only from this date or time on (ISO 8601).")
@click.option("--until", default=None, help="Only up to this date or time (ISO 8601).")
@click.option("--limit", default=10, show_default=True, type=int, help="Results to show, 1-50.")
@click.option("--sort", type=click.Choice(["relevance", "newest"]), default="relevance", show_default=True)
@json_option
@click.pass_obj
@handle_errors
def search(app: AppContext, words, platform, source, sender, group, since, until, limit, sort, as_json):
    """Full-text search: words are ANDed; "phrases", OR, -exclude and prefix* work."""
    from .search import search_memory

    result = search_memory(app.store(), app.seat(), " ".join(words), platform=platform, source=source,
                           sender=sender, group=group, since=since, until=until, limit=limit, sort=sort)
    if as_json:
        emit(result, True)
        return
    rows = [(r["date"], r["platform"], r["chat"], r["id"], r["snippet"] and f"{r['sender']}: {r['snippet']}")
            for r in result["results"]]
    click.echo(table(rows, ["date", "platform", "chat", "id", "message"]))
    more = " (more: raise --limit or narrow the search)" if result["has_more"] else ""
    click.echo(f"{result['total']:,} matches{more}")


@cli.command()
@click.option("--platform", default=None, help="Only this platform.")
@click.option("--query", "-q", default=None, help="Match chat and participant names.")
@click.option("--limit", default=50, show_default=True, type=int, help="Chats to show, 1-500.")
@json_option
@click.pass_obj
@handle_errors
def chats(app: AppContext, platform, query, limit, as_json):
    """The chats in the store, newest activity first, with their source ids."""
    from .chats import list_chats

    result = list_chats(app.store(), app.seat(), platform=platform, query=query, limit=limit)
    if as_json:
        emit(result, True)
        return
    rows = [(c["last"][:10] if c["last"] else "", c["platform"], c["messages"], c["source"],
             c["chat"] + (" (group)" if c["group"] else "")) for c in result["chats"]]
    click.echo(table(rows, ["last", "platform", "messages", "source", "chat"]))
