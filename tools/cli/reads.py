"""CLI commands for the read and write tools: each calls one tool function and prints it."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import click

from chatmem.errors import NotFound
from chatmem.records import PLATFORMS

from ..app import AppContext, handle_errors, json_option
from .output import emit, highlight, table


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("words", nargs=-1, required=False)
@click.option("--platform", default=None, help=f"Only this platform ({', '.join(PLATFORMS)}).")
@click.option("--source", default=None, help="Only this chat (its source id, from `chatmem chats`).")
@click.option("--sender", default=None, help="Only messages from this sender (name or handle; `me` for you).")
@click.option("--person", default=None,
              help="Only messages from this person on every platform (name, number, e-mail or person id).")
@click.option("--group/--no-group", default=None, help="Only group chats / only one-to-one chats.")
@click.option("--since", default=None, help="Only from this date or time on (ISO 8601).")
@click.option("--until", default=None, help="Only up to this date or time (ISO 8601).")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 50),
              help="Results per page, 1-50 (--offset for the next pages).")
@click.option("--offset", default=0, show_default=True, type=click.IntRange(0),
              help="Skip this many results: the next page starts at --offset plus --limit.")
@click.option("--sort", type=click.Choice(["relevance", "newest", "oldest"]), default=None,
              help="Order of the results (default: relevance; by date, newest first, without words).")
@click.option("--mode", type=click.Choice(["keyword", "semantic", "hybrid"]), default=None,
              help="keyword: the words as written; semantic: close in meaning; hybrid: both, fused. "
                   "Default: hybrid with search by meaning installed (chatmem[semantic]), else keyword.")
@click.option("--type", "attachment_type",
              type=click.Choice(["image", "video", "audio", "document", "other"]), default=None,
              help="Only messages with a file of this type (same as has:TYPE); WORDS may be left out.")
@json_option
@click.pass_obj
@handle_errors
def search(app: AppContext, words, platform, source, sender, person, group, since, until, limit,
           offset, sort, mode, attachment_type, as_json):
    """Search what was said: all words must match; "a phrase" (in quotes inside the argument),
    a OR b, prefix*, and -word to leave out (`chatmem search tea -coffee`, or after `--`).

    With search by meaning installed, messages that say the same in other words or another
    language are found too (--mode). With --person, --sender, --source or --type, WORDS may be
    left out to list everything they wrote (or every file of that type), newest first.
    """
    from ..search import search_memory

    typos = [w for w in words if w.startswith("--")]
    if typos:
        raise click.NoSuchOption(typos[0].split("=", 1)[0])
    if not any(w.strip() for w in words) and not (person or sender or source or attachment_type):
        raise click.UsageError("give WORDS to search for, or --person, --sender, --source or --type "
                               "to list what they wrote")
    if sort is None:
        sort = "relevance" if words else "newest"
    result = search_memory(app.store(), app.seat(), " ".join(words), platform=platform, source=source,
                           sender=sender, group=group, since=since, until=until, limit=limit, sort=sort,
                           person=person, offset=offset, mode=mode, attachment_type=attachment_type)
    if as_json:
        emit(result, True)
        return
    rows = [(r["date"], r["platform"], r["chat"], r["id"],
             f"{r['sender']}: {r['snippet']}" if r["sender"] else r["snippet"])
            for r in result["results"]]
    click.echo(table(rows, ["date", "platform", "chat", "id", "message"], style=highlight))
    shown = f"{offset + 1:,}-{offset + len(rows):,} of " if rows and (offset or result["has_more"]) else ""
    more = f"; next page: --offset {offset + len(rows)}" if result["has_more"] else ""
    click.echo(f"{shown}{result['total']:,} matches{more}")


@click.command()
@click.option("--platform", default=None, help="Only this platform.")
@click.option("--query", "-q", default=None, help="Match chat and participant names.")
@click.option("--limit", default=50, show_default=True, type=int, help="Chats to show, 1-500.")
@json_option
@click.pass_obj
@handle_errors
def chats(app: AppContext, platform, query, limit, as_json):
    """The chats in the store, newest activity first, with their source ids."""
    from ..chats import list_chats

    result = list_chats(app.store(), app.seat(), platform=platform, query=query, limit=limit)
    if as_json:
        emit(result, True)
        return
    rows = [(c["last"][:10] if c["last"] else "", c["platform"], c["messages"], c["source"],
             c["chat"] + (" (group)" if c["group"] else "")) for c in result["chats"]]
    click.echo(table(rows, ["last", "platform", "messages", "source", "chat"]))


@click.command()
@click.argument("memory_id")
@click.option("--before", "-B", default=5, show_default=True, type=int, help="Messages before it, 0-50.")
@click.option("--after", "-A", default=5, show_default=True, type=int, help="Messages after it, 0-50.")
@json_option
@click.pass_obj
@handle_errors
def context(app: AppContext, memory_id, before, after, as_json):
    """The messages around one message (an id from `chatmem search`), oldest first."""
    from ..neighbours import get_context

    result = get_context(app.store(), app.seat(), memory_id, before=before, after=after)
    if as_json:
        emit(result, True)
        return
    rows = [(">" if m["hit"] else "", m["date"], m["id"], m["content"]) for m in result["messages"]]
    if result["messages"]:
        first = result["messages"][0]
        click.echo(f"{first['chat']} ({first['platform']}, {first['source']})")
    click.echo(table(rows, ["", "date", "id", "message"]))


@click.command()
@click.argument("conversation_id")
@click.option("--budget", "token_budget", default=2000, show_default=True, type=int,
              help="Approximate token cap, 50-100000 (characters / 4).")
@click.option("--query", "-q", default=None, help="Also include older messages that match these words.")
@click.option("--since", default=None, help="Leave out items older than this date or time (ISO 8601).")
@click.option("--before", default=None,
              help="Only items older than this item id or ISO time (the next older window).")
@click.option("--memory", "include_memory", is_flag=True, help="Add the conversation's saved memory.")
@json_option
@click.pass_obj
@handle_errors
def conversation(app: AppContext, conversation_id, token_budget, query, since, before, include_memory, as_json):
    """One conversation assembled for a model: the newest items that fit the budget."""
    from ..conversation import get_conversation_context

    result = get_conversation_context(app.store(), app.seat(), conversation_id, token_budget=token_budget,
                                      query=query, since=since, include_memory=include_memory, before=before)
    if as_json:
        emit(result, True)
        return
    rows = [(i["timestamp"][:16].replace("T", " "), i.get("id") or i.get("call_id"),
             i.get("sender") or f"{i.get('direction')} call", i["text"]) for i in result["items"]]
    click.echo(table(rows, ["time", "id", "from", "text"]))
    click.echo(f"{result['items_included']} items, about {result['approx_tokens']} tokens; "
               f"{result['items_omitted']} left out" + (" (older ones exist)" if result["has_more_older"] else ""))
    if "memory" in result:
        _print_memory(result["memory"])


@click.command()
@click.argument("conversation_id")
@click.option("--turns", "max_turns", default=10, show_default=True, type=int, help="Most recent turns, 1-50.")
@click.option("--offset", default=0, show_default=True, type=int, help="Skip this many of the newest turns.")
@json_option
@click.pass_obj
@handle_errors
def history(app: AppContext, conversation_id, max_turns, offset, as_json):
    """The most recent turns of a conversation (or agent session), oldest first."""
    from ..history import get_conversation_history

    result = get_conversation_history(app.store(), app.seat(), conversation_id, max_turns=max_turns, offset=offset)
    if as_json:
        emit(result, True)
        return
    if result["subject"] is None and not result["turns"]:
        raise NotFound(f"no conversation with id {conversation_id!r} (`chatmem chats` lists them)")
    state = " (expired)" if result["isExpired"] else ""
    click.echo(f"{result['subject']}{state}: {result['totalTurns']} turns")
    rows = [(t["turnNumber"], t["timestamp"][:16].replace("T", " "), t["role"], t["content"])
            for t in result["turns"]]
    click.echo(table(rows, ["#", "time", "role", "content"]))


@click.command()
@click.argument("record_id")
@click.option("--max-chars", default=0, show_default=True, type=int,
              help="Only the first N characters (0 = everything).")
@json_option
@click.pass_obj
@handle_errors
def raw(app: AppContext, record_id, max_chars, as_json):
    """The full original text of one record: a message, call, attachment, turn or memory."""
    from ..raw import read_raw_data

    result = read_raw_data(app.store(), app.seat(), record_id, max_chars=max_chars)
    if as_json:
        emit(result, True)
        return
    if not result["ok"]:
        raise NotFound(result["error"])
    click.echo(f"{result['type']}: {result['title']} ({result['size_bytes']:,} bytes"
               + (", truncated" if result["truncated"] else "") + ")")
    click.echo(result["content"])
    rel = {k: v for k, v in result["relations"].items() if v}
    if rel:
        click.echo("--- relations ---")
        for key, value in rel.items():
            click.echo(f"{key}: {', '.join(value) if isinstance(value, list) else value}")


@click.group()
def memory():
    """A conversation's saved memory: show, save a new version, pause or unpause it."""


def _print_memory(mem: Mapping[str, Any]) -> None:
    click.echo(f"memory: {mem['status']}")
    if "text" in mem:
        fresh = mem["freshness"]
        click.echo(f"version {mem['version']} ({mem['id']}), saved {fresh['saved_at']}, "
                   f"{fresh['messages_since']} newer messages, about {mem['token_count']} tokens")
        click.echo(mem["text"])
        click.echo(f"cites: {', '.join(mem['cites'])}")


@memory.command("show")
@click.argument("conversation_id")
@json_option
@click.pass_obj
@handle_errors
def memory_show(app: AppContext, conversation_id, as_json):
    """The current memory of a conversation and its status."""
    from ..memory import get_memory

    result = get_memory(app.store(), app.seat(), conversation_id)
    if as_json:
        emit(result, True)
    else:
        _print_memory(result)


@memory.command("save")
@click.argument("conversation_id")
@click.argument("text")
@click.option("--cite", "cites", multiple=True, required=True,
              help="An id of a message or call in this conversation that the text rests on (repeat).")
@json_option
@click.pass_obj
@handle_errors
def memory_save(app: AppContext, conversation_id, text, cites, as_json):
    """Save a new version of a conversation's memory (TEXT, use - to read it from stdin)."""
    from ..memory import save_memory

    if text == "-":
        text = sys.stdin.read()
    result = save_memory(app.store(write=True), app.seat(), conversation_id, text, list(cites))
    emit(result, as_json, text=f"saved memory version {result['version']} ({result['id']}) "
                              f"for {result['conversation_id']}")


def _pause(app: AppContext, conversation_id: str, paused: bool, as_json: bool) -> None:
    from ..memory import pause_memory

    result = pause_memory(app.store(write=True), app.seat(), conversation_id, paused)
    emit(result, as_json, text=f"memory {'paused' if paused else 'resumed'} for {result['conversation_id']}")


@memory.command("pause")
@click.argument("conversation_id")
@json_option
@click.pass_obj
@handle_errors
def memory_pause(app: AppContext, conversation_id, as_json):
    """Stop using the memory of one conversation (context calls report `paused`)."""
    _pause(app, conversation_id, True, as_json)


@memory.command("unpause")
@click.argument("conversation_id")
@json_option
@click.pass_obj
@handle_errors
def memory_unpause(app: AppContext, conversation_id, as_json):
    """Use the memory of a conversation again."""
    _pause(app, conversation_id, False, as_json)
