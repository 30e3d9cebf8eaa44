"""CPU seconds of `chatmem import`'s start-up for one export (issue 17).

    python benchmarks/startup.py PATH        # run it several times, take the smallest

A fresh process loads what `chatmem import` loads before reading: the CLI's import command, the
store, and (through `find_sources(PATH)`) the importer that recognises PATH; it prints the CPU of
the whole process so far (user + system), the platform found and the number of modules loaded.
Nothing is written. Compare two installs by running each one's Python on the same PATH.
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path

from chatmem.importers import find_sources
from chatmem.store import store  # noqa: F401  (what `chatmem import` opens)
from chatmem.tools.cli import admin  # noqa: F401  (the import command's module)


def main() -> None:
    found = find_sources(Path(sys.argv[1]))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"{usage.ru_utime + usage.ru_stime:.3f} {found[0][1].platform} {len(sys.modules)}")


if __name__ == "__main__":
    main()
