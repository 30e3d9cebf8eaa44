"""Import rate of the newer sources beside the WhatsApp importer's, on generated archives.

    python benchmarks/sources.py --size 100k          # Signal's phone export, Telegram, SMS, WhatsApp
    python benchmarks/sources.py --size 100k --only sms
    python benchmarks/sources.py --size 1m            # the same at 1M (the better part of an hour)

Generates (once, cached under benchmarks/data/<size>/, git-ignored) with the same seeded text
as `generate.py`:

- `signal-export/`: Signal's own export from the phone (main.jsonl + metadata.json + files/):
  300 chats (one-to-one and groups) with standard messages, quotes, reactions, edits, some
  attachments without files and update messages;
- `telegram/result.json`: a Telegram Desktop whole-account export: 300 chats, text as strings and
  entity arrays, replies, reactions, photos not included, edits, service messages;
- `sms/sms-….xml`: an SMS Backup & Restore file: SMS in one-to-one chats, MMS in groups, some
  with a small base64 picture;
- `meta/`: a Meta "Download your information" (the 2025 layout, `your_facebook_activity/
  messages/inbox/<thread>/message_<n>.json`): 300 threads, 10,000 messages a file, newest first,
  text in Meta's Latin-1 escaping, with reactions, photos (files not present), shares, calls
  and unsent messages;

then imports each (and the WhatsApp archive from `generate.py`) into an empty store with
`python -m chatmem import --json` in a subprocess, as `run.py` does, and writes
`results/sources-<size>.json` and a table (messages/s, and the ratio to WhatsApp's).

    python benchmarks/sources.py --telegram-memory 10k,100k

reads the generated Telegram `result.json` of each size with the importer alone (no store) in a
fresh process, and, for comparison, loads it whole with `json.load`: the peak RSS of each
(`ru_maxrss`), to show that the streamed reader's memory stays flat as the file grows.
Writes `results/telegram-memory.json`.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import shutil
import sys
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
from run import CONFIG, OUT, RESULTS, log, machine, run_import  # noqa: E402
from textgen import TextMaker, Vocabulary, person_names  # noqa: E402

SEED = 21  # issue 21
CHATS = 300
GROUP_SHARE = 0.3


def _people(rng: random.Random) -> list[tuple[str, str, str]]:
    """(name, ACI, phone) for everyone the owner writes with."""
    names = person_names(rng, generate.PEOPLE)
    return [(n, str(uuid.UUID(int=rng.getrandbits(128), version=4)), f"+1555{2000000 + i:07d}")
            for i, n in enumerate(names)]


def _chats(rng: random.Random, people: list) -> list[list[int]]:
    """Member indexes per chat: one person, or 3-12 for a group."""
    return [rng.sample(range(len(people)), rng.randint(3, 12)) if rng.random() < GROUP_SHARE
            else [rng.randrange(len(people))] for _ in range(CHATS)]


def _stream(n: int, total: int | None = None) -> Any:
    """(i, chat index, author index or None for the owner, ms since 1970, text, rng) per message;
    with `total`, the same `n` followed by newer ones up to `total` (a later export)."""
    rng = random.Random(SEED)
    people = _people(rng)
    chats = _chats(rng, people)
    maker = TextMaker(Vocabulary())
    span_ms = int(generate.SPAN / timedelta(milliseconds=1))
    start_ms = int(generate.START.timestamp() * 1000)
    for i in range(total or n):
        c = min(int(rng.paretovariate(1.2)) - 1, CHATS - 1)
        members = chats[c]
        author = None if rng.random() < 0.4 else rng.choice(members)
        sent = start_ms + span_ms * i // n + rng.randrange(1000)
        yield i, c, author, sent, maker.text(rng), rng, people, chats


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def write_signal_export(folder: Path, n: int, total: int | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    people = _people(rng)
    chats = _chats(rng, people)
    with (folder / "main.jsonl").open("w", encoding="utf-8") as f:
        def out(frame: dict) -> None:
            f.write(json.dumps(frame, ensure_ascii=False) + "\n")
        out({"account": {"givenName": "Sam", "familyName": "Rivera"}})
        out({"recipient": {"id": "1", "self": {}}})
        for i, (name, aci, phone) in enumerate(people):
            given, _, family = name.partition(" ")
            out({"recipient": {"id": str(100 + i), "contact": {
                "aci": _b64(uuid.UUID(aci).bytes), "e164": phone.lstrip("+"),
                "profileGivenName": given, "profileFamilyName": family}}})
        for c, members in enumerate(chats):
            if len(members) > 1:
                out({"recipient": {"id": str(10_000 + c), "group": {
                    "masterKey": _b64(c.to_bytes(32, "big")), "snapshot": {
                        "title": {"title": f"Group {c}"},
                        "members": [{"userId": _b64(uuid.UUID(people[m][1]).bytes)} for m in members]}}}})
        for c, members in enumerate(chats):
            recipient = 10_000 + c if len(members) > 1 else 100 + members[0]
            out({"chat": {"id": str(c + 1), "recipientId": str(recipient)}})
        last: dict[int, tuple[int, int]] = {}
        for i, c, author, sent, text, r, _, _ in _stream(n, total):
            item: dict[str, Any] = {"chatId": str(c + 1), "dateSent": str(sent)}
            item["authorId"] = "1" if author is None else str(100 + author)
            item["outgoing" if author is None else "incoming"] = {}
            if r.random() < 0.02:
                item["directionless"] = {}
                item["updateMessage"] = {"simpleUpdate": {"type": "IDENTITY_UPDATE"}}
            else:
                std: dict[str, Any] = {"text": {"body": text}}
                if c in last and r.random() < 0.05:
                    std["quote"] = {"targetSentTimestamp": str(last[c][1]), "authorId": str(last[c][0])}
                if r.random() < 0.05:
                    std["reactions"] = [{"emoji": "👍", "authorId": "1", "sentTimestamp": str(sent + 5000)}]
                if r.random() < 0.03:
                    std["attachments"] = [{"pointer": {"contentType": "image/jpeg", "fileName": f"IMG_{i}.jpg",
                                                       "locatorInfo": {"size": 1000 + i}}}]
                if r.random() < 0.01:
                    item["revisions"] = [{"dateSent": str(sent), "standardMessage": {"text": {"body": text[:10]}}}]
                item["standardMessage"] = std
            last[c] = (int(item["authorId"]), sent)
            out({"chatItem": item})
    (folder / "metadata.json").write_text(json.dumps({"version": "1", "backupTimeMs": "0"}))
    (folder / "files").mkdir(exist_ok=True)


def write_telegram(path: Path, n: int, total: int | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    people = _people(rng)
    chats = _chats(rng, people)
    messages: list[list[dict]] = [[] for _ in chats]
    for i, c, author, sent, text, r, _, _ in _stream(n, total):
        who = ("Sam Rivera", "user1") if author is None else (people[author][0], f"user{1000 + author}")
        m: dict[str, Any] = {"id": i + 1, "type": "message", "date_unixtime": str(sent // 1000),
                             "from": who[0], "from_id": who[1]}
        if r.random() < 0.02:
            m.update(type="service", actor=who[0], actor_id=who[1], action="pin_message", message_id=i)
            m.pop("from"), m.pop("from_id")
        if r.random() < 0.2:
            words = text.split(" ", 1)
            m["text"] = [{"type": "bold", "text": words[0]}, " " + words[1] if len(words) > 1 else ""]
        else:
            m["text"] = text
        if messages[c] and r.random() < 0.05:
            m["reply_to_message_id"] = messages[c][-1]["id"]
        if r.random() < 0.05:
            m["reactions"] = [{"type": "emoji", "count": 1, "emoji": "👍",
                               "recent": [{"from": "Sam Rivera", "from_id": "user1"}]}]
        if r.random() < 0.03:
            m["photo"] = "(File not included. Change data exporting settings to download.)"
        if r.random() < 0.01:
            m["edited_unixtime"] = str(sent // 1000 + 60)
        m["text_entities"] = []
        messages[c].append(m)
    result = {"about": "Here is the data you requested (Telegram export, generated)",
              "personal_information": {"user_id": 1, "first_name": "Sam", "last_name": "Rivera"},
              "chats": {"about": "", "list": [
                  {"name": f"Group {c}" if len(members) > 1 else people[members[0]][0],
                   "type": "private_group" if len(members) > 1 else "personal_chat",
                   "id": 5000 + c, "messages": messages[c]} for c, members in enumerate(chats)]}}
    path.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")


def write_sms(path: Path, n: int, total: int | None = None) -> None:
    """An SMS Backup & Restore file: SMS one-to-one, MMS in groups (with a small picture)."""
    from xml.sax.saxutils import quoteattr

    path.parent.mkdir(parents=True, exist_ok=True)
    picture = base64.b64encode(bytes(range(256)) * 2).decode()
    with path.open("w", encoding="utf-8") as f:
        f.write("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n")
        f.write(f'<smses count="{total or n}" backup_set="bench" backup_date="0" type="full">\n')
        for i, c, author, sent, text, r, people, chats in _stream(n, total):
            members = chats[c]
            if len(members) == 1:
                name, _, phone = people[members[0]]
                f.write(f'  <sms protocol="0" address="{phone}" date="{sent}" type="{2 if author is None else 1}" '
                        f'subject="null" body={quoteattr(text)} read="1" status="-1" locked="0" '
                        f'date_sent="0" contact_name={quoteattr(name)} />\n')
                continue
            numbers = "~".join(people[m][2] for m in members)
            names = ", ".join(people[m][0] for m in members)
            sender = "+15550100000" if author is None else people[author][2]
            part = (f'<part seq="0" ct="image/jpeg" name="IMG_{i}.jpg" data="{picture}" />'
                    if r.random() < 0.05 else "")
            f.write(f'  <mms date="{sent}" msg_box="{2 if author is None else 1}" address="{numbers}" '
                    f'contact_name={quoteattr(names)}><parts>{part}<part seq="0" ct="text/plain" '
                    f'text={quoteattr(text)} /></parts><addrs><addr address="{sender}" type="137" '
                    f'charset="106" /></addrs></mms>\n')
        f.write("</smses>\n")


META_FILE_MESSAGES = 10_000  # Meta splits a thread's messages into files of this many


def write_meta(root: Path, n: int, total: int | None = None) -> None:
    """Meta's download: a folder per thread, message_1.json the newest, text mojibake'd; with
    `total`, a later download holding `total - n` newer messages."""
    rng = random.Random(SEED)
    people = _people(rng)
    chats = _chats(rng, people)
    threads: list[list[dict]] = [[] for _ in chats]
    for i, c, author, sent, text, r, _, _ in _stream(n, total):
        who = "Sam Rivera" if author is None else people[author][0]
        m: dict[str, Any] = {"sender_name": who, "timestamp_ms": sent}
        roll = r.random()
        if roll < 0.01:
            m["content"] = f"{who} called you." if author is not None else "You called."
            m["call_duration"] = r.randrange(0, 900)
        elif roll < 0.015:
            m["content"] = f"{who} unsent a message."
            m["is_unsent"] = True
        elif roll < 0.045:
            m["photos"] = [{"uri": f"your_facebook_activity/messages/inbox/t_{c}/photos/{i}_n.jpg",
                            "creation_timestamp": sent // 1000}]
        elif roll < 0.055:
            m["share"] = {"link": f"https://example.org/p/{i}", "share_text": text[:40]}
        else:
            m["content"] = text + (" café ☕" if r.random() < 0.1 else "")
        if r.random() < 0.05:
            m["reactions"] = [{"reaction": "❤", "actor": "Sam Rivera" if author is not None else who}]
        m["is_geoblocked_for_viewer"] = False
        threads[c].append(m)
    base = root / "your_facebook_activity" / "messages" / "inbox"
    for c, members in enumerate(chats):
        names = [people[x][0] for x in members]
        title = f"Group {c}" if len(members) > 1 else names[0]
        newest_first = threads[c][::-1]
        if not newest_first:
            continue  # Meta lists no thread without messages
        folder = base / f"t_{c}"
        folder.mkdir(parents=True, exist_ok=True)
        for k in range(max(1, -(-len(newest_first) // META_FILE_MESSAGES))):
            part = newest_first[k * META_FILE_MESSAGES:(k + 1) * META_FILE_MESSAGES]
            data = {"participants": [{"name": x} for x in [*names, "Sam Rivera"]], "messages": part,
                    "title": title, "is_still_participant": True, "thread_path": f"inbox/t_{c}",
                    "magic_words": []}
            # Meta's escaping: each UTF-8 byte as the code point of the same number, then \u00XX
            text = json.dumps(data, ensure_ascii=False, indent=2)
            text = text.encode("utf-8").decode("latin-1")
            (folder / f"message_{k + 1}.json").write_text(
                json.dumps(json.loads(text), ensure_ascii=True, indent=2), encoding="utf-8")


def ensure(size: str, names: tuple[str, ...] | None = None) -> dict[str, Path]:
    """The archives of one size (all, or only `names`), each generated once."""
    n = generate.SIZES[size]
    d = generate.DATA / size
    out = {"signal-export": d / "signal-export", "telegram": d / "telegram" / "result.json",
           "sms": d / "sms" / "sms-20240302120000.xml", "meta": d / "meta"}
    for name in names or tuple(out):
        if name == "whatsapp" or (d / f".{name}.done").exists():
            continue
        if out[name].is_dir():
            shutil.rmtree(out[name])
        WRITERS[name](out[name], n)
        (d / f".{name}.done").write_text("ok\n")
    if names is None or "whatsapp" in names:
        out["whatsapp"] = generate.ensure(size, "whatsapp", log)[0]
    return out


READ_ONLY = """
import json, resource, sys, time
from pathlib import Path
t = time.perf_counter()
if sys.argv[1] == "stream":
    from chatmem.importers import get_importer
    from chatmem.records import ImportOptions, Message
    n = sum(isinstance(r, Message) for r in get_importer("telegram").read(Path(sys.argv[2]), ImportOptions()))
else:
    with open(sys.argv[2], encoding="utf-8") as f:
        n = sum(len(c["messages"]) for c in json.load(f)["chats"]["list"])
print(json.dumps({"messages": n, "seconds": round(time.perf_counter() - t, 2),
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
"""


def telegram_memory(sizes: list[str]) -> None:
    import subprocess

    rows = []
    for size in sizes:
        path = generate.DATA / size / "telegram" / "result.json"
        if not (generate.DATA / size / ".telegram.done").exists():
            write_telegram(path, generate.SIZES[size])
            (generate.DATA / size / ".telegram.done").write_text("ok\n")
        mb = round(path.stat().st_size / 2**20, 1)
        for how in ("stream", "json.load"):
            out = subprocess.run([sys.executable, "-c", READ_ONLY, how, str(path)], check=True,
                                 capture_output=True, text=True).stdout
            row = {"size": size, "file_mb": mb, "reader": how, **json.loads(out)}
            log(f"telegram {size} ({mb} MB) {how}: {row}")
            rows.append(row)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "telegram-memory.json").write_text(json.dumps({"machine": machine(), "runs": rows}, indent=1) + "\n")
    print("| size | file MB | reader | messages | s | peak RSS MB |\n|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['size']} | {r['file_mb']} | {r['reader']} | {r['messages']} | {r['seconds']} | {r['peak_rss_mb']} |")


WRITERS = {"signal-export": write_signal_export, "telegram": write_telegram, "sms": write_sms,
           "meta": write_meta}


def ensure_plus(size: str, name: str) -> tuple[Path, Path]:
    """The archive `name` (signal-export, telegram, sms, meta) and its later export with 1% newer
    messages (`<size>/plus1pct/...`), generated once."""
    base = ensure(size, (name,))[name]
    d = generate.DATA / size
    ext = d / "plus1pct" / base.relative_to(d)
    if not (d / f".{name}-plus1pct.done").exists():
        n = generate.SIZES[size]
        if ext.is_dir():
            shutil.rmtree(ext)
        WRITERS[name](ext, n, generate.n_extended(n))
        (d / f".{name}-plus1pct.done").write_text("ok\n")
    return base, ext


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=list(generate.SIZES), default="100k")
    ap.add_argument("--only", default=None, help="comma-separated: signal-export,telegram,sms,meta "
                    "(WhatsApp, the yardstick, always runs)")
    ap.add_argument("--telegram-memory", default=None, metavar="SIZES",
                    help="comma-separated sizes, e.g. 10k,100k: peak RSS of reading result.json only")
    args = ap.parse_args(argv)
    if args.telegram_memory:
        telegram_memory(args.telegram_memory.split(","))
        return
    archives = ensure(args.size)
    if args.only:
        keep = {*args.only.split(","), "whatsapp"}
        archives = {k: v for k, v in archives.items() if k in keep}
    results: dict[str, Any] = {"size": args.size, "machine": machine(), "imports": {}}
    for name, src in archives.items():
        work = OUT / args.size / f"sources-{name}"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        (work / "config.yaml").write_text(CONFIG)
        log(f"{args.size} {name}: importing {src}")
        first = run_import(work / "home", work / "config.yaml", src)
        first["messages_per_s"] = round(first["new_messages"] / first["seconds"])
        again = run_import(work / "home", work / "config.yaml", src)
        first["unchanged_reimport_s"] = again["seconds"]
        results["imports"][name] = first
        log(f"{args.size} {name}: {first['new_messages']} in {first['seconds']} s "
            f"({first['messages_per_s']}/s), unchanged re-import {again['seconds']} s")
        shutil.rmtree(work, ignore_errors=True)
    base = results["imports"]["whatsapp"]["messages_per_s"] or 1
    base_cpu = results["imports"]["whatsapp"]["cpu_s"] / max(results["imports"]["whatsapp"]["new_messages"], 1)
    lines = ["| source | messages | import wall (CPU) | msgs/s | × WhatsApp's rate (CPU per message) | "
             "peak RSS MB | unchanged re-import |", "|---|---|---|---|---|---|---|"]
    for name, r in results["imports"].items():
        cpu_ratio = base_cpu / (r["cpu_s"] / max(r["new_messages"], 1)) if r["cpu_s"] else 0
        lines.append(f"| {name} {args.size} | {r['new_messages']} | {r['seconds']:.1f} s ({r['cpu_s']:.1f} s) | "
                     f"{r['messages_per_s']} | {r['messages_per_s'] / base:.2f} ({cpu_ratio:.2f}) | "
                     f"{r['peak_rss_mb']} | {r['unchanged_reimport_s']:.2f} s |")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"sources-{args.size}.json").write_text(json.dumps(results, indent=1) + "\n")
    (RESULTS / f"sources-{args.size}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
