"""docs/architecture.md's table of floors is the import-graph test's LAYERS, floor for floor."""

from __future__ import annotations

import re

from support.paths import ROOT

from test_import_graph import LAYERS  # the same folder: tests/house


def documented_floors(text: str) -> dict[int, set[str]]:
    """Floor number → the units its row of the table names (in backticks)."""
    section = text.split("## The floors", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\d+) \| ([^|]+) \|", section, re.M)
    return {int(floor): set(re.findall(r"`([\w.]+)`", units)) for floor, units in rows}


def test_the_architecture_page_shows_the_layers_the_graph_test_enforces():
    floors = documented_floors((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert floors, "no table of floors found"
    assert floors == {level + 1: set(units) for level, units in enumerate(LAYERS)}


def test_the_reader_sees_a_changed_floor():
    text = ("## The floors\n\n| floor | units | what |\n|---|---|---|\n| 2 | `reeljudge.media` | x |\n| 1 | "
            "`reeljudge.errors` | y |\n")
    assert documented_floors(text) == {2: {"reeljudge.media"}, 1: {"reeljudge.errors"}}
