"""A command that needs an optional part of reeljudge says which extra to install when it is missing."""

from __future__ import annotations

import subprocess
import sys
import tomllib

from reeljudge.extras import EXTRA_OF, require
from support.paths import ROOT


HIDDEN = """
import sys
class Hide:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {hidden!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}")
sys.meta_path.insert(0, Hide())
from reeljudge.cli import main
sys.exit(main({argv!r}))
"""


def test_every_extra_module_belongs_to_an_extra_of_pyproject():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for module, extra in EXTRA_OF.items():
        names = " ".join(extras[extra]).lower()
        assert module.replace("_", "-") in names or module in names, (module, extra)


def test_require_passes_when_the_modules_are_installed():
    require("the test", "starlette", "statsmodels", "krippendorff", "uvicorn")  # the test extra brings them


def test_serving_without_the_rating_extra_says_what_to_install(tmp_path):
    code = HIDDEN.format(hidden={"uvicorn", "starlette"}, argv=["ab", "serve", "--data", str(tmp_path / "study")])
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    assert "reeljudge ab serve needs uvicorn, starlette" in run.stderr
    assert "pip install 'reeljudge[rating]'" in run.stderr


def test_statistics_without_the_rating_extra_say_what_to_install():
    code = ("import sys\n" + HIDDEN.split("from reeljudge.cli")[0].format(hidden={"statsmodels"}) +
            "from reeljudge.stats.rankings import wilson_interval\n"
            "from reeljudge.errors import BadInputError\n"
            "try:\n    wilson_interval(3, 10)\nexcept BadInputError as e:\n    print(e.message)\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "the Wilson interval needs statsmodels" in run.stdout and "pip install 'reeljudge[rating]'" in run.stdout, run.stderr
