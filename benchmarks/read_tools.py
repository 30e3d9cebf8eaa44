"""Every read tool at a million messages: in-process and through the MCP server (issue 17).

    python benchmarks/read_tools.py --prepare           # copy the 1M stores, add calls (once)
    flock /work/wt/bench.lock python benchmarks/read_tools.py --repeat 40 --mcp-calls 3000

Stores (copied once into out/reads/, never written by the timed part):
- `chatdb-1m`: the 1M chat.db store of `search_bench.py --size 1m` (970,201 messages, 300 chats;
  its biggest chat has 117,131 messages).
- `whatsapp-1m`: the 1M WhatsApp store of `import_vs_fts5.py --size 1m` (one chat of 1,000,002
  messages over ten years) with 10,000 calls added to that chat by importing a JSON Lines file
  (`calls.jsonl`, seeded): calls at a message's minute, two in one minute, runs of calls with no
  message between them, so windows and offsets cross calls at every depth.

In-process (`Store.open`, the default seat, the tool functions of `chatmem.tools.api.TOOLS`):
each read tool with arguments at several depths of the biggest chat (history offsets 0, 1k,
10k, 100k; context windows `before` a message at 1%, 10%, 50%, 90% of the chat), `--repeat`
calls per case after one warm-up call; wall (`time.perf_counter`) and CPU
(`time.process_time`) per call, p50/p95.

Through MCP (`--mcp-calls`): `chatmem serve` over stdio, started by the MCP SDK's own client,
one long-lived server per store taking a mix of every case; wall per call as the client sees
it (p50/p95/p99/max), the server's CPU time over the run, and its garbage collections (gen 2
count and the longest pause, from `gc.callbacks` installed by a wrapper around `chatmem`). Each
store's server runs twice in the same run: as shipped (gc frozen after start-up) and with
`gc.freeze` made a no-op by the wrapper (before), so both are taken under the same load.

Writes results/read-tools-1m.json and prints Markdown tables. `uptime`'s load average is taken
before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

OUT = HERE / "out" / "reads"
RESULTS = HERE / "results"
SEED = 17
CHATDB_SRC = Path("/work/wt/lead/benchmarks/out/search/1m")
WHATSAPP_SRC = Path("/work/wt/lead/benchmarks/out/import-vs-fts5/whatsapp-1m")
N_CALLS = 10_000


def log(msg: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def chatmem(home: Path, config: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "chatmem", "--home", str(home), "--config", str(config), *args],
                          capture_output=True, text=True, check=True, cwd=str(ROOT))


# ------------------------------------------------------------------ the stores


def calls_jsonl(path: Path, first: datetime, last: datetime, n: int = N_CALLS) -> None:
    """`n` calls in the WhatsApp store's one chat, spread over its whole time: most alone, some
    at a message's minute (messages are sent on whole minutes), pairs in one minute, runs of five."""
    rng = random.Random(SEED)
    span = (last - first).total_seconds()
    lines, k = [], 0
    while k < n:
        at = first + timedelta(seconds=rng.uniform(0, span))
        shape = rng.random()
        if shape < 0.3:
            at = at.replace(second=0, microsecond=0)  # at a message's minute (or near one)
            times = [at]
        elif shape < 0.4:
            at = at.replace(microsecond=0)
            times = [at, at]  # two calls at the same time
        elif shape < 0.45:
            times = [at + timedelta(minutes=3 * i) for i in range(5)]  # a run of calls
        else:
            times = [at.replace(microsecond=0)]
        for when in times[: n - k]:
            lines.append({"type": "call", "platform": "whatsapp", "chat": "Family and Friends",
                          "chat_key": "family and friends", "id": f"c_bench{k:05d}",
                          "timestamp": f"{when:%Y-%m-%dT%H:%M:%S}+00:00",
                          "direction": ("incoming", "outgoing", "missed")[k % 3], "peer": "Family and Friends",
                          "summary": f"call {k}", "duration": rng.randrange(0, 1800)})
            k += 1
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def prepare() -> None:
    for name, src in (("chatdb-1m", CHATDB_SRC), ("whatsapp-1m", WHATSAPP_SRC)):
        dst = OUT / name
        if (dst / "home" / "chatmem.db").exists():
            log(f"{name}: kept ({dst})")
            continue
        dst.mkdir(parents=True, exist_ok=True)
        log(f"{name}: copying {src}")
        shutil.copytree(src / "home", dst / "home", symlinks=False)
        shutil.copyfile(src / "config.yaml", dst / "config.yaml")
    wa = OUT / "whatsapp-1m"
    done = wa / ".calls-imported"
    if not done.exists():
        import sqlite3

        conn = sqlite3.connect(wa / "home" / "chatmem.db")
        first, last = (datetime.fromisoformat(x) for x in conn.execute(
            "SELECT first_at, last_at FROM chats ORDER BY message_count DESC LIMIT 1").fetchone())
        conn.close()
        calls_jsonl(wa / "calls.jsonl", first, last)
        t = time.perf_counter()
        chatmem(wa / "home", wa / "config.yaml", "import", str(wa / "calls.jsonl"), "--json")
        done.write_text(f"{N_CALLS} calls\n")
        log(f"whatsapp-1m: {N_CALLS:,} calls imported in {time.perf_counter() - t:.1f} s")


# ------------------------------------------------------------------ the cases


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    xs = sorted(values)
    return round(xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))], 2)


def stats(values: list[float], qs: tuple[int, ...] = (50, 95)) -> dict[str, Any]:
    return {"n": len(values), **{f"p{q}": percentile(values, q) for q in qs},
            "max": round(max(values), 2) if values else None}


def cases(home: Path, repeat: int) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    """(what the store is, {case: [tool arguments, one per call]}) for the store's biggest chat."""
    import sqlite3

    rng = random.Random(SEED)
    conn = sqlite3.connect(f"file:{home / 'chatmem.db'}?mode=ro", uri=True)
    chat, n = conn.execute("SELECT id, message_count FROM chats ORDER BY message_count DESC LIMIT 1").fetchone()
    n_calls = conn.execute("SELECT count(*) FROM calls WHERE chat_id = ?", (chat,)).fetchone()[0]

    def at(depth: float, k: int) -> list[str]:
        """`k` message ids around `depth` (0 = newest, 1 = oldest) of the chat, from its index."""
        first = int(depth * (n - 1))
        rows = conn.execute("SELECT id FROM messages WHERE chat_id = ? ORDER BY sent_at DESC, ordinal DESC "
                            "LIMIT ? OFFSET ?", (chat, k * 50, max(0, first - k * 25))).fetchall()
        return [r[0] for r in rng.sample(rows, min(k, len(rows)))]

    ids = at(0.5, repeat) + at(0.05, repeat // 2) + at(0.95, repeat // 2)
    call_ids = [r[0] for r in conn.execute("SELECT id FROM calls WHERE chat_id = ? ORDER BY random() LIMIT ?",
                                           (chat, repeat))]
    attachments = [r[0] for r in conn.execute("SELECT id FROM attachments ORDER BY random() LIMIT ?", (repeat,))]
    out: dict[str, list[dict[str, Any]]] = {
        "get_context": [{"memory_id": i} for i in rng.sample(ids, min(repeat, len(ids)))],
        "read_raw_data": [{"record_id": i} for i in rng.sample(ids, min(repeat, len(ids)))],
        "list_chats": [{"limit": rng.choice((20, 50))} for _ in range(repeat)],
        "get_conversation_history": [{"conversation_id": chat, "max_turns": rng.choice((10, 50))}
                                     for _ in range(repeat)],
    }
    for depth in (1_000, 10_000, 100_000):  # 100,000 is the deepest offset the tool takes
        out[f"get_conversation_history offset ~{depth:,}"] = [
            {"conversation_id": chat, "max_turns": 20, "offset": min(n, depth - rng.randrange(0, 500))}
            for _ in range(repeat)]
    out["get_conversation_context"] = [{"conversation_id": chat, "token_budget": rng.choice((2000, 8000))}
                                       for _ in range(repeat)]
    for depth in (0.01, 0.1, 0.5, 0.9):
        out[f"get_conversation_context before {depth:.0%}"] = [
            {"conversation_id": chat, "token_budget": 2000, "before": i} for i in at(depth, repeat)]
    if call_ids:
        out["get_context (a call)"] = [{"memory_id": i} for i in call_ids]
        out["get_conversation_context before a call"] = [
            {"conversation_id": chat, "token_budget": 2000, "before": i} for i in call_ids]
    if attachments:
        out["read_attachment"] = [{"attachment_id": i} for i in attachments]
    conn.close()
    return {"chat": chat, "chat_messages": n, "chat_calls": n_calls}, out


def tool_name(case: str) -> str:
    return case.split(" ")[0]


def in_process(home: Path, config: Path, repeat: int) -> dict[str, Any]:
    """Every case through the tool functions in this process: wall and CPU per call."""
    from chatmem.config import load_config
    from chatmem.store import Store
    from chatmem.tools.api import TOOLS

    about, todo = cases(home, repeat)
    store = Store.open(home, config=load_config(str(config)), create=False, catch_up=False)
    seat = store.config.seat(None)
    out: dict[str, Any] = dict(about)
    for case, calls in todo.items():
        fn = TOOLS[tool_name(case)]
        fn(store, seat, **calls[-1])  # warm: a server has compiled its statements
        wall, cpu = [], []
        for kw in calls:
            t0, c0 = time.perf_counter(), time.process_time()
            fn(store, seat, **kw)
            cpu.append((time.process_time() - c0) * 1000)
            wall.append((time.perf_counter() - t0) * 1000)
        out[case] = {"wall": stats(wall), "cpu": stats(cpu)}
        log(f"  {case}: wall p50 {out[case]['wall']['p50']} p95 {out[case]['wall']['p95']} ms, "
            f"CPU p50 {out[case]['cpu']['p50']} p95 {out[case]['cpu']['p95']} ms")
    store.close()
    return out


# ------------------------------------------------------------------ through the MCP server

# the server as `chatmem serve` runs it, with its garbage collections recorded (gc.callbacks)
# and written at exit; BEFORE=1 makes gc.freeze a no-op (the server as it was)
WRAPPER = """
import atexit, gc, json, os, resource, sys, time
if os.environ.get("BENCH_GC_BEFORE") == "1":
    gc.freeze = lambda: None
pauses, started = [], {}
def watch(phase, info):
    if phase == "start":
        started["t"], started["c"] = time.perf_counter(), time.thread_time()
    else:  # wall and CPU (of the collecting thread: a loaded machine stretches the wall)
        pauses.append((time.time(), info["generation"], (time.perf_counter() - started["t"]) * 1000,
                       (time.thread_time() - started["c"]) * 1000))
gc.callbacks.append(watch)
def report():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["BENCH_GC_OUT"], "w") as f:
        json.dump({"cpu_s": ru.ru_utime + ru.ru_stime, "peak_rss_mb": ru.ru_maxrss // 1024,
                   "pauses": pauses, "frozen": gc.get_freeze_count(),
                   "tracked": len(gc.get_objects())}, f)
atexit.register(report)
sys.argv = ["chatmem"] + sys.argv[1:]
if os.environ.get("BENCH_PROFILE"):
    import cProfile
    prof = cProfile.Profile()
    atexit.register(lambda: prof.dump_stats(os.environ["BENCH_PROFILE"]))
    prof.enable()
from chatmem.tools.cli import main
main()
"""


async def mcp_run(home: Path, config: Path, todo: dict[str, list[dict[str, Any]]], n_calls: int,
                  before: bool, gc_out: Path) -> dict[str, Any]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {k: v for k, v in os.environ.items() if not k.startswith("CHATMEM_")}
    env.update(PYTHONUNBUFFERED="1", BENCH_GC_OUT=str(gc_out), BENCH_GC_BEFORE="1" if before else "0",
               BENCH_PROFILE=os.environ.get("BENCH_PROFILE", ""))
    params = StdioServerParameters(command=sys.executable, env=env, cwd=str(ROOT),
                                   args=["-c", WRAPPER, "--home", str(home), "--config", str(config), "serve"])
    rng = random.Random(SEED)
    mix = [(case, kw) for case, calls in todo.items() for kw in calls]
    per: dict[str, list[float]] = {}
    every: list[float] = []
    errors = 0
    async with Client(params) as client:
        for case, calls in todo.items():  # warm: one call of each case
            await client.call_tool(tool_name(case), calls[-1])
        pid = server_pid()
        cpu0, since = process_cpu(pid), time.time()
        for _ in range(n_calls):
            case, kw = rng.choice(mix)
            t0 = time.perf_counter()
            r = await client.call_tool(tool_name(case), kw)
            ms = (time.perf_counter() - t0) * 1000
            errors += bool(r.is_error)
            per.setdefault(case, []).append(ms)
            every.append(ms)
        cpu = process_cpu(pid) - cpu0
    for _ in range(50):  # the server writes its report as it exits
        if gc_out.exists() and gc_out.stat().st_size:
            break
        time.sleep(0.1)
    server = json.loads(gc_out.read_text()) if gc_out.exists() else {}
    pauses = [(g, ms, c) for t, g, ms, c in server.pop("pauses", []) if t >= since]
    full = sorted((ms, c) for g, ms, c in pauses if g == 2)
    server.update(calls_cpu_s=round(cpu, 2), collections=len(pauses), gc_ms=round(sum(p[1] for p in pauses), 1),
                  gc_cpu_ms=round(sum(p[2] for p in pauses), 1),
                  full=len(full), full_max_ms=round(full[-1][0], 1) if full else 0,
                  full_max_cpu_ms=round(max(c for _, c in full), 1) if full else 0,
                  full_ms=[(round(w, 1), round(c, 1)) for w, c in full[-10:]],
                  young_max_ms=round(max((p[1] for p in pauses if p[0] < 2), default=0), 2),
                  young_max_cpu_ms=round(max((p[2] for p in pauses if p[0] < 2), default=0), 2))
    return {"calls": n_calls, "errors": errors, "all": stats(every, (50, 95, 99)),
            "per_case": {c: stats(v, (50, 95, 99)) for c, v in per.items()}, "server": server}


def server_pid() -> int:
    """The `chatmem serve` this process started (its only child running the wrapper)."""
    me = os.getpid()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            return int(stat.parent.name)
    raise RuntimeError("no server process found")


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of a process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def through_mcp(home: Path, config: Path, repeat: int, n_calls: int) -> dict[str, Any]:
    import anyio

    _, todo = cases(home, repeat)
    out = {}
    for label, before in (("gc not frozen (before)", True), ("gc frozen after start-up", False)):
        gc_out = OUT / f"gc-{home.parent.name}-{int(before)}.json"
        gc_out.unlink(missing_ok=True)
        out[label] = anyio.run(mcp_run, home, config, todo, n_calls, before, gc_out)
        r, srv = out[label], out[label]["server"]
        log(f"  MCP, {label}: {n_calls} calls, p50 {r['all']['p50']} p95 {r['all']['p95']} "
            f"p99 {r['all']['p99']} max {r['all']['max']} ms; server CPU {srv.get('calls_cpu_s', 0):.1f} s, "
            f"{srv.get('full')} full collections, longest {srv.get('full_max_ms')} ms ({srv.get('full_max_cpu_ms')} ms CPU), "
            f"errors {r['errors']}")
    return out

def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prepare", action="store_true", help="copy the 1M stores and add the calls, then stop")
    ap.add_argument("--repeat", type=int, default=40, help="calls per case in-process (default 40)")
    ap.add_argument("--mcp-calls", type=int, default=3000,
                    help="calls to each long-lived MCP server (0: skip the MCP part)")
    ap.add_argument("--stores", default="chatdb-1m,whatsapp-1m")
    ap.add_argument("--skip-in-process", action="store_true")
    args = ap.parse_args(argv)
    if args.prepare:
        prepare()
        return
    result: dict[str, Any] = {"commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                                       text=True, cwd=ROOT).stdout.strip(),
                              "started": f"{datetime.utcnow():%Y-%m-%d %H:%M} UTC", "load_before": load()}
    for name in args.stores.split(","):
        home, config = OUT / name / "home", OUT / name / "config.yaml"
        log(f"{name}")
        result[name] = {}
        if not args.skip_in_process:
            result[name]["in_process"] = in_process(home, config, args.repeat)
            result[name]["load_after_in_process"] = load()
        if args.mcp_calls:
            result[name]["mcp"] = through_mcp(home, config, args.repeat, args.mcp_calls)
            result[name]["load_after_mcp"] = load()
    result["load_after"] = load()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "read-tools-1m.json").write_text(json.dumps(result, indent=1) + "\n")
    print(report(result))


def report(result: dict[str, Any]) -> str:
    lines = [f"commit {result['commit']}, {result['started']}, load {result['load_before']} -> "
             f"{result['load_after']}", ""]
    for name, r in result.items():
        if not isinstance(r, dict) or not ("in_process" in r or "mcp" in r):
            continue
        ip = r.get("in_process")
        if ip:
            lines += [f"{name}: chat of {ip['chat_messages']:,} messages and {ip['chat_calls']:,} calls", "",
                      "| call | wall p50 / p95 ms | CPU p50 / p95 ms |", "|---|---|---|"]
            for case, v in ip.items():
                if isinstance(v, dict):
                    lines.append(f"| {case} | {v['wall']['p50']} / {v['wall']['p95']} | "
                                 f"{v['cpu']['p50']} / {v['cpu']['p95']} |")
            lines.append("")
        if ip:
            p50s = [v["cpu"]["p50"] for v in ip.values() if isinstance(v, dict)]
            lines += [f"the same mix in-process: mean of the cases' CPU p50 {sum(p50s) / len(p50s):.2f} ms", ""]
        for label, m in (r.get("mcp") or {}).items():
            srv = m["server"]
            lines += [f"{name}, MCP stdio, {label}: {m['calls']} calls, wall p50 / p95 / p99 / max "
                      f"{m['all']['p50']} / {m['all']['p95']} / {m['all']['p99']} / {m['all']['max']} ms; "
                      f"server CPU {srv.get('calls_cpu_s', 0):.1f} s ({1000 * srv.get('calls_cpu_s', 0) / m['calls']:.2f} ms "
                      f"a call), {srv.get('full')} full collections (longest {srv.get('full_max_ms')} ms wall, "
                      f"{srv.get('full_max_cpu_ms')} ms CPU; a young one at most {srv.get('young_max_ms')} ms wall, "
                      f"{srv.get('young_max_cpu_ms')} ms CPU), {srv.get('collections')} in all "
                      f"({srv.get('gc_ms')} ms wall, {srv.get('gc_cpu_ms')} ms CPU), errors {m['errors']}", "",
                      "| call | p50 | p95 | p99 | max |", "|---|---|---|---|---|"]
            for case, v in m["per_case"].items():
                lines.append(f"| {case} | {v['p50']} | {v['p95']} | {v['p99']} | {v['max']} |")
            lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
