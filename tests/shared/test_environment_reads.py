"""Our environment variables are read by the options loader (an ``option(env=…)`` of an options class),
so a bad value is an error naming the variable. This lists every direct ``os.environ`` read left in the
package; a new one fails here. Google's and promptfoo's own variables (GOOGLE_*, PROMPTFOO_*) are read
where their owners document them, and writes (``setdefault``, a child's environment) are not reads."""

from __future__ import annotations

import re

from support.paths import ROOT

PACKAGE = ROOT / "reeljudge"
READ = re.compile(r"os\.environ(?:\.get\(|\[)\s*([A-Za-z_\"']+)|os\.getenv\(\s*([A-Za-z_\"']+)")

#: direct reads of our own variables left (none: every one is an option read by the loader)
NOT_YET: dict[str, set[str]] = {}


def direct_reads() -> dict[str, set[str]]:
    """Module path → the variable names (or constants) it reads straight from ``os.environ``."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        if rel == "reeljudge/options.py":
            continue
        for match in READ.finditer(path.read_text(encoding="utf-8")):
            name = match.group(1) or match.group(2)
            if not re.search(r"GOOGLE_|PROMPTFOO_", name):
                found.setdefault(rel, set()).add(name)
    return found


def test_our_variables_are_read_only_through_the_options_loader():
    assert direct_reads() == NOT_YET


def test_the_scan_sees_a_direct_read(tmp_path):
    assert READ.search('x = os.environ.get("REELJUDGE_CACHE") or "readwrite"').group(1) == '"REELJUDGE_CACHE"'
    assert READ.search("os.environ[DATABASE_ENV]").group(1) == "DATABASE_ENV"
    assert READ.search("{**os.environ, 'A': '1'}") is None and READ.search('os.environ.setdefault("HF", "1")') is None


def test_the_study_and_gecko_variables_are_read_by_the_loader(tmp_path, monkeypatch):
    import pytest

    from reeljudge.ab.study.workspace import default_dir
    from reeljudge.environment import gecko_environment, study_environment
    from reeljudge.errors import BadInputError

    monkeypatch.setenv("REELJUDGE_AB_DIR", str(tmp_path / "study"))
    monkeypatch.setenv("REELJUDGE_GECKO_PAIRS_REPORT", str(tmp_path / "pairs.txt"))
    assert default_dir() == tmp_path / "study" and gecko_environment().pairs_report == str(tmp_path / "pairs.txt")
    assert study_environment().ab_log == "warning" and study_environment().ab_database is None
    monkeypatch.setenv("REELJUDGE_AB_LOG", "loud")  # uvicorn would have failed later, without naming the variable
    with pytest.raises(BadInputError, match="REELJUDGE_AB_LOG"):
        study_environment()


DECLARED = re.compile(r"""env\s*=\s*["'](REELJUDGE_\w+)["']""")


def test_each_of_our_variables_is_declared_once():
    """One ``option(env=…)`` per variable: a second options class that needs it uses the first's declaration
    (as the Gemini settings use the cache's ``cache_mode_option`` and ``cache_dir_option``)."""
    places: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for name in DECLARED.findall(path.read_text(encoding="utf-8")):
            places.setdefault(name, []).append(path.relative_to(PACKAGE.parent).as_posix())
    assert len(places) >= 25
    assert {name: where for name, where in places.items() if len(where) > 1} == {}


def test_the_cache_variables_mean_the_same_to_every_class_that_reads_them(monkeypatch, tmp_path):
    import dataclasses

    from reeljudge.cache import CACHE_DIR_ENV, CACHE_MODE_ENV, CacheEnvironment, cache_environment
    from reeljudge.gemini.settings import JudgeSettings, load_settings

    fields = {c: {f.metadata["env"]: f for f in dataclasses.fields(c) if f.metadata.get("env")}
              for c in (CacheEnvironment, JudgeSettings)}
    for env in (CACHE_MODE_ENV, CACHE_DIR_ENV):
        mine, judges = fields[CacheEnvironment][env], fields[JudgeSettings][env]
        assert (mine.default, mine.metadata["doc"]) == (judges.default, judges.metadata["doc"])
    monkeypatch.setenv(CACHE_MODE_ENV, "replay")
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    settings = load_settings({})
    chosen = cache_environment()
    assert (chosen.mode, chosen.cache_dir) == (settings.cache_mode, settings.cache_dir) == ("replay", str(tmp_path))
