"""One rule for what a promptfoo results file is, held by every reader: ``reeljudge compare``, ``calibrate``'s
judge scores, ``ab import``, the Gecko report and ``gecko check-pairs`` all read the rows at
``results.results`` (what ``promptfoo eval -o`` writes) and all refuse a bare ``results`` list with the
same message (promptfoo writes no such file; it is the shape of an ``afterAll`` hook's context)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from reeljudge.ab.store.imports import read_promptfoo
from reeljudge.calibration.inputs import read_judge_scores
from reeljudge.cli import main
from reeljudge.errors import BadInputError
from reeljudge.gates.results import parse_results, read_results
from reeljudge.gecko.pairs import check_results_file
from reeljudge.gecko.report import build_report
from reeljudge.promptfoo.results_file import document_rows, hook_rows
from support.gecko_results import gecko_result, results_row


def _rows() -> list[dict[str, Any]]:
    """Two providers' Gecko rows for one test (a match above its mismatch), each with a one-line clip output."""
    rows = []
    for provider in ("alpha", "beta"):
        for expect, verdict in (("match", "A"), ("mismatch", "B")):
            graded = gecko_result([("object", "A", verdict)] * 2, expect=expect)
            graded["metadata"].update(media={"sha256": f"sha-{provider}", "name": f"{provider}.mp4"}, prompt=expect)
            row = results_row(f"kite-{expect}", provider, graded, index=0 if expect == "match" else 1)
            row["response"] = {"output": f"clips/{provider}-{expect}.mp4"}
            rows.append(row)
    return rows


def _write(path: Path, results: Any) -> Path:
    path.write_text(json.dumps({"evalId": "eval-rule", "results": results, "config": {"description": "rule"},
                                "metadata": {"promptfooVersion": "0.121.20"}}), encoding="utf-8")
    return path


def _compare(path: Path) -> Any:
    return read_results(path)


def _calibrate(path: Path) -> Any:
    return read_judge_scores(path, ["gecko"], "{provider} {description}")


def _ab_import(path: Path) -> Any:
    return read_promptfoo(path)


def _gecko_report(path: Path) -> Any:
    return build_report([path])


def _check_pairs(path: Path) -> Any:
    return check_results_file(path)


READERS: dict[str, Callable[[Path], Any]] = {"compare": _compare, "calibrate": _calibrate, "ab import": _ab_import,
                                             "gecko report": _gecko_report, "gecko check-pairs": _check_pairs}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_every_reader_reads_the_rows_promptfoo_writes(tmp_path, reader):
    path = _write(tmp_path / "results.json", {"version": 3, "results": _rows()})
    found = READERS[reader](path)
    counts = {"compare": lambda r: len(r.cells), "calibrate": lambda r: len(r.items), "ab import": len,
              "gecko report": lambda r: sum(len(s.tests) + s.counter_prompts for s in r.series),
              "gecko check-pairs": lambda r: r.checked_pairs}
    assert counts[reader](found) == {"compare": 4, "calibrate": 4, "ab import": 2, "gecko report": 4,
                                     "gecko check-pairs": 2}[reader]


@pytest.mark.parametrize("reader", sorted(READERS))
def test_every_reader_refuses_a_bare_results_list_with_the_same_message(tmp_path, reader):
    path = _write(tmp_path / "flat.json", _rows())
    with pytest.raises(BadInputError) as refused:
        READERS[reader](path)
    assert refused.value.message == (f"{path}: not a promptfoo results file (results is a bare list; promptfoo eval -o "
                                     "writes the rows at results.results)")


def test_the_cli_refuses_it_too_and_exits_2(tmp_path, capsys):
    good = _write(tmp_path / "good.json", {"version": 3, "results": _rows()})
    flat = _write(tmp_path / "flat.json", _rows())
    assert main(["compare", str(good), str(flat), "-q"]) == 2
    assert "flat.json: not a promptfoo results file (results is a bare list" in capsys.readouterr().err


@pytest.mark.parametrize(("document", "says"), [
    ([1, 2], "the top level is a list, not an object"),
    ({"name": "x"}, "no results.results list; top-level keys: name"),
    ({"results": {"results": [{"testCase": {}}]}}, "results.results[0] is not a promptfoo test result"),
])
def test_parsed_documents_meet_the_same_rule(document, says):
    with pytest.raises(BadInputError) as refused:
        document_rows(document, "doc")
    assert refused.value.message.startswith("doc: ") and says in refused.value.message
    with pytest.raises(BadInputError) as gate:
        parse_results(document, "doc")
    assert gate.value.message == refused.value.message


def test_an_after_all_hook_keeps_its_own_bare_list():
    """An afterAll hook's context is not a file: its ``results`` is the bare list, read as such."""
    assert [r.description for r in hook_rows({"results": _rows()})] == ["kite-match", "kite-mismatch"] * 2
