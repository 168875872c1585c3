"""The built artifacts are the product: the wheel and sdist hold every run-time data file (the copies
of rubrics/ and protocols/ equal to the files authors edit), the npm tarball holds the one warm
client, and no product code finds its data by walking up to a repository root."""

from __future__ import annotations

import re
import tarfile
import zipfile

from reeljudge.package_data import protocols_folder, rubrics_folder, warm_client_path
from support.user_project import ROOT, artifacts  # noqa: F401 - the session fixture that builds them

EDITED = {"rubrics": "reeljudge/data/rubrics", "protocols": "reeljudge/data/protocols"}
SHIPPED = ("reeljudge/ab/page/static", "reeljudge/warm/client.js", "reeljudge/data/init",
           "reeljudge/data/background_narrations.txt")


def expected_data() -> dict[str, bytes]:
    """Every data file the wheel must hold, by its path in the wheel, with the bytes it must have."""
    files = {f"{inside}/{path.name}": path.read_bytes() for top, inside in EDITED.items() for path in (ROOT / top).iterdir()
             if path.is_file()}
    for shipped in SHIPPED:
        source = ROOT / shipped
        for path in ([source] if source.is_file() else sorted(p for p in source.rglob("*") if p.is_file())):
            files[path.relative_to(ROOT).as_posix()] = path.read_bytes()
    return files


def test_the_wheel_holds_every_data_file_equal_to_its_source(artifacts):  # noqa: F811
    expected = expected_data()
    assert {"reeljudge/data/rubrics/filmability.md", "reeljudge/data/protocols/ab-v1.yaml", "reeljudge/ab/page/static/rater.html",
            "reeljudge/data/init/workflow.yml", "reeljudge/data/background_narrations.txt"} <= set(expected)
    with zipfile.ZipFile(artifacts.wheel) as wheel:
        names = set(wheel.namelist())
        assert sorted(set(expected) - names) == []
        drifted = [name for name, data in expected.items() if wheel.read(name) != data]
    assert drifted == []


def test_the_wheel_holds_no_test_code(artifacts):  # noqa: F811
    with zipfile.ZipFile(artifacts.wheel) as wheel:
        modules = [n for n in wheel.namelist() if n.endswith(".py")]
    assert "reeljudge/synth/clips.py" in modules and "reeljudge/ab/study/gold.py" in modules
    test_code = [n for n in modules if is_test_code(n)]
    assert test_code == []


def is_test_code(name: str) -> bool:
    """Whether a wheel member is test code: under a tests/testing/support folder, a test module, a conftest or a fake."""
    parts = name.split("/")
    stem = parts[-1].removesuffix(".py")
    return (any(p in {"tests", "testing", "support"} for p in parts[:-1])
            or stem == "conftest" or stem.startswith(("test_", "fake_")) or stem.endswith("_test"))


def test_the_test_code_check_sees_what_used_to_ship():
    shipped_before = ["reeljudge/testing/corpus.py", "reeljudge/testing/__init__.py",
                      "tests/support/fake_gemini.py", "reeljudge/x/test_y.py"]
    assert all(is_test_code(n) for n in shipped_before)
    assert not any(is_test_code(n) for n in ("reeljudge/synth/clips.py", "reeljudge/probes/api.py", "reeljudge/ab/study/gold.py"))


def test_the_sdist_holds_them_too_so_a_wheel_built_from_it_has_them(artifacts):  # noqa: F811
    with tarfile.open(artifacts.sdist) as sdist:
        prefix = sdist.getnames()[0].split("/")[0]
        members = {m.name.removeprefix(prefix + "/"): m for m in sdist.getmembers()}
        missing = [name for name in expected_data() if name not in members or not members[name].isfile()]
    assert missing == []


def test_the_npm_tarball_is_the_assertions_and_the_one_warm_client(artifacts):  # noqa: F811
    with tarfile.open(artifacts.npm) as npm:
        names = sorted(n.removeprefix("package/") for n in npm.getnames())
        client = npm.extractfile("package/reeljudge/warm/client.js").read()
    assert names == ["README.md", "index.js", "loopback.cjs", "package.json", "reeljudge/warm/client.js"]
    with zipfile.ZipFile(artifacts.wheel) as wheel:
        assert wheel.read("reeljudge/warm/client.js") == client  # one client, in both artifacts


def test_in_a_clone_the_packaged_folders_are_the_ones_authors_edit():
    assert rubrics_folder().resolve() == ROOT / "rubrics" and protocols_folder().resolve() == ROOT / "protocols"
    assert warm_client_path().is_file()


def test_no_product_code_walks_up_from_its_file_to_a_repository_root():
    walking = re.compile(r"__file__\)?(\.resolve\(\))?\.(parents\[[1-9]\]|parent\.parent)")
    found = [f"{p.relative_to(ROOT)}:{n}" for p in (ROOT / "reeljudge").rglob("*.py")
             for n, line in enumerate(p.read_text().splitlines(), 1) if walking.search(line) or "parents[2]" in line]
    assert found == []


def test_the_two_packages_carry_one_version():
    import json
    import tomllib

    import reeljudge

    python = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert json.loads((ROOT / "package.json").read_text())["version"] == python == reeljudge.__version__
