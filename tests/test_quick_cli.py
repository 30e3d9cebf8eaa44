"""`chatmem --version` and `--help` load no heavy library: each command imports what it needs
when it runs. (How long they take is measured in benchmarks/cli.py, never asserted here.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# what only a command that works on a store, an index, a server or a config may load
HEAVY = ("sqlalchemy", "whoosh", "mcp", "yaml", "pydantic", "phonenumbers", "dateutil", "uvicorn",
         "starlette", "anyio", "httpx", "httpx2", "PIL", "pypdf", "platformdirs", "plotly", "cryptography")

PROBE = r"""
import json, sys
sys.argv = ["chatmem", *json.loads(sys.argv[1])]
from chatmem.tools.cli import main
try:
    main()
except SystemExit as e:
    code = e.code
else:
    code = 0
print(json.dumps({"exit": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def loaded(*args: str) -> tuple[int, set[str], str]:
    result = subprocess.run([sys.executable, "-c", PROBE, json.dumps(list(args))],
                            capture_output=True, text=True, timeout=60)
    report = json.loads(result.stderr.strip().splitlines()[-1])
    return report["exit"], {m.split(".")[0] for m in report["modules"]}, result.stdout


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["search", "--help"], ["serve", "--help"],
                                  ["people", "--help"]])
def test_version_and_help_load_nothing_heavy(args):
    code, modules, out = loaded(*args)
    assert code == 0
    assert out.strip()  # it did print the version or the help
    assert sorted(modules & set(HEAVY)) == []


def test_the_probe_sees_what_a_command_loads(tmp_path):
    # the same probe on a command that opens a store does see the database library
    jsonl = Path(__file__).resolve().parent.parent / "fixtures" / "jsonl" / "notes-from-telegram.jsonl"
    code, modules, _ = loaded("--home", str(tmp_path / "home"), "import", str(jsonl), "--json")
    assert code == 0
    assert "sqlalchemy" in modules
