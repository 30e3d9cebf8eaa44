"""Where an import's time goes: cProfile one `chatmem import` in this process.

    python benchmarks/profile_import.py --size 100k --format chatdb
    python benchmarks/profile_import.py --size 100k --format whatsapp --top 25

Writes benchmarks/profiles/<format>-<size>.txt: the phase split (parse = time inside the
importer's record generator, index = Store.catch_up_index, database = the rest of the
ingest), then the top functions by cumulative and by own time. The full profile is kept in
benchmarks/out/profiles/ for `python -m pstats` or snakeviz.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
from run import CONFIG, OUT  # noqa: E402

PROFILES = HERE / "profiles"


def phase_seconds(st: pstats.Stats) -> dict[str, float]:
    """Cumulative seconds of the importer's `read` generator(s) and of the index catch-up."""
    parse = index = ingest = 0.0
    for (file, _line, name), (_cc, _nc, _tt, ct, _callers) in st.stats.items():  # type: ignore[attr-defined]
        f = file.replace("\\", "/")
        if "/importers/" in f and name in ("read", "records") and ct > parse:
            parse = max(parse, ct)  # the outermost generator (read wraps records)
        elif f.endswith("store/store.py") and name == "catch_up_index":
            index = max(index, ct)
        elif f.endswith("store/ingest.py") and name == "feed":
            ingest = max(ingest, ct)
    return {"parse": parse, "database": max(0.0, ingest - parse), "index": index, "ingest_feed": ingest}


def top(st: pstats.Stats, key: str, n: int) -> str:
    buf = io.StringIO()
    st.stream = buf  # type: ignore[attr-defined]
    st.sort_stats(key).print_stats(n)
    text = buf.getvalue()
    return text[text.find("   ncalls"):].rstrip() + "\n"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="profile one chatmem import")
    ap.add_argument("--size", choices=list(generate.SIZES), default="100k")
    ap.add_argument("--format", choices=list(generate.FORMATS), default="chatdb")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--plus1pct", action="store_true",
                    help="import the base archive unprofiled, then profile importing its +1%% version")
    args = ap.parse_args(argv)

    from chatmem.config import load_config
    from chatmem.importers import find_sources
    from chatmem.store import Store

    base, ext = generate.ensure(args.size, args.format)
    name = f"{args.format}-{args.size}" + ("-plus1pct" if args.plus1pct else "")
    work = OUT / "profiles" / name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (work / "config.yaml").write_text(CONFIG)
    config = load_config(str(work / "config.yaml"))
    src = work / "src" / base.name
    src.parent.mkdir()
    shutil.copyfile(base, src)
    if args.plus1pct:
        with Store.open(work / "home", config=config) as store:
            store.import_sources(find_sources(src))
        shutil.copyfile(ext, src)
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    store = Store.open(work / "home", config=config)
    reports = store.import_sources(find_sources(src))
    store.close()
    prof.disable()
    wall = time.perf_counter() - t0
    prof.dump_stats(work / "import.prof")
    st = pstats.Stats(prof)
    phases = phase_seconds(st)
    n = sum(r.as_dict()["messages"]["new"] for r in reports)
    total = st.total_tt  # type: ignore[attr-defined]
    what = "adding 1% newer messages to a store of" if args.plus1pct else "importing"
    lines = [f"# chatmem import profile: {what} {args.format}, {args.size} ({n:,} new messages)", "",
             f"wall {wall:.1f} s under cProfile (profiling overhead included; ~{n / wall:,.0f} msgs/s), "
             f"profiled total {total:.1f} s", "",
             "phase     seconds  share"]
    for phase in ("parse", "database", "index"):
        lines.append(f"{phase:<9} {phases[phase]:7.1f}  {phases[phase] / total:5.0%}")
    other = total - phases["parse"] - phases["database"] - phases["index"]
    lines += [f"{'other':<9} {other:7.1f}  {other / total:5.0%}   (startup, schema, locks, report)", "",
              "parse = inside the importer's record generator; database = the rest of Ingest.feed "
              "(ids, reconciliation, SQL); index = Store.catch_up_index (Whoosh)", "",
              f"## top {args.top} by cumulative time", "", top(st, "cumulative", args.top), "",
              f"## top {args.top} by own time", "", top(st, "tottime", args.top)]
    PROFILES.mkdir(exist_ok=True)
    out = PROFILES / f"{name}.txt"
    out.write_text("\n".join(lines))
    print(out.read_text())


if __name__ == "__main__":
    main()
