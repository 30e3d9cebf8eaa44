"""What a command costs a person at the terminal: wall and CPU time of `chatmem --version` and
of a `chatmem search` on the bundled fixtures, each a fresh process (the installed entry point),
as a person or a script runs them.

    python benchmarks/cli.py            # 10 runs each; prints median and worst
    python benchmarks/cli.py --repeat 30

CPU is the child's user + system time (`os.wait4`), so other load on the machine inflates the
wall figure, not the CPU one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHATMEM = Path(sys.executable).parent / "chatmem"


def measure(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of `chatmem ARGS`."""
    started = time.perf_counter()
    proc = subprocess.Popen([str(CHATMEM), *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"chatmem {' '.join(args)} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=10)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CHATMEM_")}
        env.update(CHATMEM_HOME=str(Path(tmp) / "store"), CHATMEM_CONFIG=str(ROOT / "fixtures" / "config.yaml"))
        subprocess.run([str(CHATMEM), "import", str(ROOT / "fixtures"), "--json"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        print(f"| command | wall median | wall max | CPU median | CPU max |  ({opts.repeat} runs each)")
        print("|---|---|---|---|---|")
        for args in (["--version"], ["--help"], ["search", "coffee"], ["search", "coffee", "--json"]):
            measure(args, env)  # warm the file cache
            runs = [measure(args, env) for _ in range(opts.repeat)]
            walls, cpus = [w for w, _ in runs], [c for _, c in runs]
            print(f"| `chatmem {' '.join(args)}` | {statistics.median(walls) * 1000:.0f} ms | "
                  f"{max(walls) * 1000:.0f} ms | {statistics.median(cpus) * 1000:.0f} ms | "
                  f"{max(cpus) * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
