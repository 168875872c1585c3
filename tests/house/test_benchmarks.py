"""Every benchmark runs, in a smoke size: a benchmark that reads a removed option or calls a changed function dies here,
not at the next measurement (the probes benchmark once died in its first phase, the dashboard benchmark at its first
load). The smoke runs prove that a benchmark still runs to its end, never a figure; they are slow-lane tests (each
starts its own process, most start servers or encode clips). Every module of ``benchmarks/`` is either run here or
named with the reason it is not.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from support.paths import ROOT

#: (benchmark, its smoke-size arguments): the smallest inputs that still pass through every phase it has
SMOKE: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ab_blinding", ("--seconds", "0.5", "--repeats", "1", "--sizes", "160x90")),
    ("ab_body_memory", ("--mb", "2")),
    ("ab_dashboard", ("--records", "40", "--raters", "4", "--repeats", "1", "--inflated", "2")),
    ("ab_file_limit", ("--runs", "1", "--flood", "20", "--header-timeout", "1")),
    ("ab_judge_calls", ("--pairs", "1")),
    ("ab_load", ("--raters", "2", "--samples", "4", "--judgements", "20", "--resamples", "20")),
    ("ab_load", ("--fair", "--clip-mb", "0.1", "--downloads", "1", "--fair-seconds", "1", "--stuck-seconds", "1")),
    ("ab_range_evidence", ("--requests", "5", "--ranges", "10", "--submits", "2")),
    ("batch", ("--sizes", "10", "--prompts", "2")),
    ("compare_speed", ("--tests", "200")),
    ("embeddings_compare", ("minilm",)),
    ("filmability_bulk", ("--narrations", "4", "--per-process", "1")),
    ("filmability_cache", ("--rounds", "1")),
    ("gecko_calls", ("--videos", "1")),
    ("library_probes", ("--clips", "4", "--frames", "12")),
    ("media_resolver", ("--mb", "1", "--repeat", "1")),
    ("probes", ("--seconds", "1", "--seconds-4k", "0.25", "--repeat", "1")),
    ("probes_corpus", ("--variants", "0")),
    ("probes_textures", ("--split", "test")),
    ("relevance", ("--split", "test")),
    ("relevance_labellers", ()),
    ("relevance_off_topic", ("--split", "test")),
    ("term_accuracy", ()),
    ("warm_path", ("--tests", "5", "--concurrency", "1")),
)

#: benchmark modules not run here, and why
NOT_RUN: dict[str, str] = {
    "ab_fair_share": "the clients of ab_load --fair, which runs them (a module without a main)",
    "off_topic_set": "the cases of relevance_off_topic, which runs them (a module without a main)",
    "install_weight": "builds a wheel and installs it with uv into fresh folders: minutes, and a package index",
    "setup_install": "clones the repository and runs set-up from an empty package cache: minutes, and a package index",
}


def benchmark_modules() -> set[str]:
    """The modules of benchmarks/ (its package files left out)."""
    return {p.stem for p in (ROOT / "benchmarks").glob("*.py") if p.stem not in ("__init__", "__main__")}


def test_every_benchmark_is_run_in_a_smoke_size_or_named_with_the_reason_it_is_not() -> None:
    smoked = {name for name, _ in SMOKE}
    assert not smoked & NOT_RUN.keys()
    assert sorted(benchmark_modules() - smoked - NOT_RUN.keys()) == [], "a benchmark neither run nor named in NOT_RUN"
    assert sorted((smoked | NOT_RUN.keys()) - benchmark_modules()) == [], "a benchmark named here that is not in benchmarks/"


@pytest.mark.slow  # each starts its own process; most start servers, encode clips or load the offline judge
@pytest.mark.parametrize(("name", "args"), SMOKE, ids=[" ".join((name, *args)) for name, args in SMOKE])
def test_the_benchmark_runs_to_its_end_in_a_smoke_size(name: str, args: tuple[str, ...]) -> None:
    proc = subprocess.run([sys.executable, "-m", f"benchmarks.{name}", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert proc.stdout.strip(), f"benchmarks.{name} printed no figure"
