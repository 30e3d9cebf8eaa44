"""Figures a test run reports (fuzz mutants run, secret masking precision and recall...).

A test calls `report("...")`; conftest.py prints every line in the terminal summary, so the
figures show in a plain `pytest -q` run without `-s`.
"""

from __future__ import annotations

FIGURES: list[str] = []


def report(line: str) -> None:
    FIGURES.append(line)
    print(line)
