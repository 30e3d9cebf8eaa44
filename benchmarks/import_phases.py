"""CPU seconds per phase of one import, inside one process (issue 17).

    python benchmarks/import_phases.py HOME CONFIG SOURCE

Imports SOURCE into the store at HOME (made when missing) and prints the CPU seconds
(`time.process_time`, every thread of the process) of: the imports, the store's open, the whole
`Store.import_sources`, and inside it the index catch-up (`Store.catch_up_index`), the importer's
read with the ingest (`Ingest.feed`), the ingest's batches (`Ingest.flush_messages`),
`Ingest.finish_chats` and `People.link`; then the report's message counts. Run it under
`/usr/bin/time` for the whole process. Untimed set-up (a store to re-import into) is the caller's.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

t0 = time.process_time()
from chatmem.config import load_config  # noqa: E402
from chatmem.importers import find_sources  # noqa: E402
from chatmem.store import Store  # noqa: E402
from chatmem.store import ingest as ingest_mod  # noqa: E402
from chatmem.store import store as store_mod  # noqa: E402
from chatmem.store.people import People  # noqa: E402

spent: dict[str, float] = {}


def timed(owner: Any, name: str, label: str) -> None:
    inner = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.process_time() - start

    setattr(owner, name, wrapper)


def main() -> None:
    home, config, source = (Path(a) for a in sys.argv[1:4])
    timed(store_mod.Store, "catch_up_index", "index")
    timed(ingest_mod.Ingest, "feed", "feed (read + ingest)")
    timed(ingest_mod.Ingest, "flush_messages", "flush_messages")
    timed(ingest_mod.Ingest, "finish_chats", "finish_chats")
    timed(People, "link", "people.link")
    t1 = time.process_time()
    store = Store.open(home, load_config(config))
    t2 = time.process_time()
    reports = store.import_sources(find_sources(source))
    t3 = time.process_time()
    store.close()
    print({"imports": round(t1 - t0, 2), "open": round(t2 - t1, 2), "import_sources": round(t3 - t2, 2),
           **{k: round(v, 2) for k, v in spent.items()},
           "messages": [r.as_dict()["messages"] for r in reports]})


if __name__ == "__main__":
    main()
