"""The offline filmability judge in bulk: same verdicts as the assertion, model loaded once per worker,
narrations files in three formats, bad rows reported, resume."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml

from reeljudge.cli import main as cli_main
from reeljudge.filmability import embeddings
from reeljudge.assertions.filmability import get_assert
from reeljudge.filmability.bulk import judge_narrations_file
from reeljudge.library.engines import LocalEngine, SerialEngine
from reeljudge.library.jsonl import read_results

pytestmark = pytest.mark.usefixtures("offline_judge_data")  # judges offline: norms and bank vectors made once per run

ROWS = [
    {"id": "redis-fast", "narration": "Redis stores everything in memory, making it blazingly fast",
     "terms": ["server room", "computer RAM", "data center lights", "fast motion blur"]},
    {"id": "closures", "narration": "You need to understand how closures work",
     "terms": ["developer coding", "computer screen code", "programmer thinking"]},
    {"id": "redis-abstract", "narration": "Redis stores everything in memory",
     "terms": ["performance", "efficiency", "caching", "fast database"]},
    {"id": "pasta", "narration": "Add fresh basil just before serving the pasta",
     "terms": "basil leaves, pasta plate, chef hands"},
]


def write_yaml(path: Path, rows: list[dict]) -> Path:
    path.write_text(yaml.safe_dump(rows, sort_keys=False))
    return path


def assertion_result(narration: str, terms: list[str]) -> dict:
    """What the promptfoo assertion returns for these terms with the local judge."""
    context = {"vars": {"narration": narration}, "config": {"judge": "local", "cache": "off", "findability": "off"},
               "test": {"description": "bulk-vs-assert"}}
    return get_assert(json.dumps(terms), context)


@pytest.mark.slow  # a process pool, each worker loads the model
def test_bulk_verdicts_equal_the_assertions(tmp_path: Path) -> None:
    records, stats = judge_narrations_file(write_yaml(tmp_path / "n.yaml", ROWS), tmp_path / "out.jsonl",
                                           engine=LocalEngine(workers=2))
    assert stats.written == 4 and stats.errors == 0
    assert [r["id"] for r in records] == [r["id"] for r in ROWS]
    for record in records:
        result = assertion_result(record["narration"], record["terms"])
        assert record["score"] == result["score"] and record["passed"] == result["pass"]
        meta = result["metadata"]
        assert (record["points"], record["level"], record["capped"]) == (meta["points"], meta["level"], meta["capped_at_0_8"])
        assert record["unfilmable_terms"] == meta["unfilmable_terms"] and record["terms"] == meta["terms"]
        named = result["namedScores"]
        assert named["film_relevance"] == record["breakdown"]["relevance"] / 3
        assert named["film_filmability"] == record["breakdown"]["filmability"] / 3
        assert named["film_variety"] == record["breakdown"]["variety"]
        # the offline judge's own summary is kept beside the line, which does not restate it
        # the verdict's reason is the assertion's verdict line (after PASS/FAIL); its criteria are criterion_reasons
        verdict_line = result["reason"].splitlines()[0]
        assert verdict_line == f"{'PASS' if record['passed'] else 'FAIL'} {record['reason']}" and "\n" not in record["reason"]
        assert record["judge_reason"].startswith("Offline judge: relevance")
        for metric, line in result["metadata"]["breakdown"].items():
            assert record["criterion_reasons"][metric.removeprefix("film_")] in line
    by_id = {r["id"]: r for r in records}
    assert (by_id["redis-fast"]["score"], by_id["closures"]["score"], by_id["redis-abstract"]["score"]) == (1.0, 0.8, 0.3)
    assert by_id["pasta"]["terms"] == ["basil leaves", "pasta plate", "chef hands"]


@pytest.mark.slow  # a process pool, each worker loads the model
def test_the_model_loads_once_per_worker_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loads: list[int] = []
    real_init = embeddings.MiniLMOnnxEmbedder.__init__

    def counting_init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        loads.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(embeddings.MiniLMOnnxEmbedder, "__init__", counting_init)
    monkeypatch.setattr(embeddings, "_LOADED", {})
    rows = [dict(r, id=f"{r['id']}-{i}", narration=r["narration"] + "!" * i) for i in range(2) for r in ROWS]
    records, _ = judge_narrations_file(write_yaml(tmp_path / "n.yaml", rows), tmp_path / "serial.jsonl", engine=SerialEngine())
    assert len(records) == 8 and len(loads) == 1
    pooled, _ = judge_narrations_file(write_yaml(tmp_path / "n.yaml", rows), tmp_path / "pool.jsonl",
                                      engine=LocalEngine(workers=2), config={"cache": "off"})
    assert not any(r["cache_hit"] for r in pooled)
    instances: dict[int, set[str]] = {}
    for record in pooled:
        instances.setdefault(record["worker_pid"], set()).add(record["model_instance"])
    assert 1 <= len(instances) <= 2 and all(len(models) == 1 for models in instances.values())


def test_yaml_jsonl_and_csv_files_give_the_same_records(tmp_path: Path) -> None:
    jsonl = tmp_path / "n.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    with open(tmp_path / "n.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["id", "narration", "terms"])
        writer.writeheader()
        for row in ROWS:
            terms = row["terms"] if isinstance(row["terms"], str) else "; ".join(row["terms"])
            writer.writerow({**row, "terms": terms})
    results = []
    for source in (write_yaml(tmp_path / "n.yaml", ROWS), jsonl, tmp_path / "n.csv"):
        records, _ = judge_narrations_file(source, tmp_path / f"{source.suffix[1:]}.jsonl", engine=SerialEngine())
        results.append([{k: v for k, v in r.items() if k not in ("timings", "worker_pid", "model_instance", "cache_hit")}
                        for r in records])
    assert results[0] == results[1] == results[2]


@pytest.mark.slow  # a process pool, each worker loads the model
def test_bad_rows_are_listed_and_the_rest_judged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "n.jsonl"
    lines = [
        json.dumps(ROWS[0]),
        json.dumps({"id": "no-narration", "terms": ["a dog"]}),
        json.dumps({"id": "typo", "narration": "Dogs run", "term": ["a dog"]}),
        json.dumps({"id": "no-terms", "narration": "Dogs run in the park"}),
        json.dumps({"id": "empty-terms", "narration": "Dogs run", "terms": "  ,  ,"}),
        json.dumps({"id": "too-long", "narration": "word " * 1000, "terms": ["a dog"]}),
        json.dumps(dict(ROWS[1], id="redis-fast")),
        "{broken",
        json.dumps(ROWS[1]),
    ]
    source.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    assert cli_main(["filmability", "bulk", str(source), "-o", str(out), "-j", "1", "--no-progress"]) == 1
    printed = capsys.readouterr().out
    errors = {r["ref"]: r["error"]["message"] for r in read_results(out) if r["status"] == "error"}
    assert "field 'narration' is missing" in errors["no-narration"]
    assert "unknown field 'term' (did you mean 'terms'?)" in errors["typo"]
    assert "no terms" in errors["no-terms"]
    assert "holds no search terms" in errors["empty-terms"]
    assert "5000 characters" in errors["too-long"]
    assert "duplicate id 'redis-fast'" in errors["n.jsonl line 7"]
    assert "not valid JSON" in errors["n.jsonl line 8"]
    judged = [r for r in read_results(out) if r["status"] == "ok"]
    assert sorted(r["id"] for r in judged) == ["closures", "redis-fast"]
    assert "could not be judged (7)" in printed and "judged 2: mean score 0.900" in printed
    # each listed once with where it is: the id and its line, or the line alone (not "line 8: line 8: …")
    assert "  typo: n.jsonl line 3: unknown field 'term'" in printed
    assert "  n.jsonl line 8: n.jsonl line 8" not in printed and "  n.jsonl line 8: " in printed
    # resumed: nothing is judged or recorded twice
    assert cli_main(["filmability", "bulk", str(source), "-o", str(out), "--no-progress"]) == 1
    assert "this run: 0 judged, 2 already done" in capsys.readouterr().out
    assert len(read_results(out)) == 9


@pytest.mark.slow  # a process pool, each worker loads the model
def test_a_generator_makes_terms_for_rows_without_any(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from reeljudge.filmability.generators.visual import visual_terms

    rows = [{"id": "t", "narration": ROWS[0]["narration"]}, dict(ROWS[1])]
    out = tmp_path / "out.jsonl"
    assert (cli_main(["filmability", "bulk", str(write_yaml(tmp_path / "n.yaml", rows)), "-o", str(out), "--generator", "visual",
                      "-j", "1", "--no-progress"]) == 0)
    records = {r["id"]: r for r in read_results(out)}
    assert records["t"]["terms_source"] == "generator:visual" and records["t"]["terms"] == visual_terms(ROWS[0]["narration"])
    assert records["closures"]["terms_source"] == "given" and records["closures"]["terms"] == ROWS[1]["terms"]
    assert cli_main(["filmability", "bulk", str(tmp_path / "n.yaml"), "-o", str(out), "--generator", "visul"]) == 2
    assert "unknown term generator 'visul'" in capsys.readouterr().err
