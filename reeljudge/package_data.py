"""Where reeljudge's run-time data lives: inside the installed package, found through the package.

The one place that knows it. The judge prompts and schemas (``data/rubrics/``), the A/B protocol
(``data/protocols/``), the ``reeljudge init`` templates (``data/init/``), the offline judge's background
narrations (``data/background_narrations.txt``), the rating page's static
files (``ab/page/static/``) and the warm path's JavaScript client (``warm/client.js``) are package data,
declared in ``pyproject.toml`` and shipped in the wheel. In a clone, ``data/rubrics`` and
``data/protocols`` are symbolic links to the top-level ``rubrics/`` and ``protocols/`` (the one
place authors edit); the build copies the files they point to, and a test checks the copies.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE = "reeljudge"
#: the installed package's folder: this module's own. ``importlib.resources.files`` answers the same
#: for a package installed as files, but importing it costs every assertion process ≈ 7 ms
#: (tempfile, shutil, zipfile, random); a zip import has no such folder and is refused below.
PACKAGE_ROOT = Path(os.path.abspath(__file__)).parent


def package_path(*parts: str) -> Path:
    """A file or folder inside the installed ``reeljudge`` package (it need not exist)."""
    if not PACKAGE_ROOT.is_dir():  # a zip import: reeljudge is always installed as files
        raise RuntimeError(f"reeljudge must be installed as files, not imported from {PACKAGE_ROOT}")
    return PACKAGE_ROOT.joinpath(*parts)


def rubrics_folder() -> Path:
    """The packaged judge prompts and reply schemas."""
    return package_path("data", "rubrics")


def protocols_folder() -> Path:
    """The packaged A/B protocols and the judgement record schema."""
    return package_path("data", "protocols")


def init_templates_folder() -> Path:
    """The templates ``reeljudge init`` writes into a user's project."""
    return package_path("data", "init")


def rating_page_folder() -> Path:
    """The rating page's static files (HTML, CSS, JavaScript)."""
    return package_path("ab", "page", "static")


def warm_client_path() -> Path:
    """The warm path's JavaScript client (also the npm package's)."""
    return package_path("warm", "client.js")


def background_narrations_path() -> Path:
    """The offline filmability judge's background narrations (what narrations about other things say)."""
    return package_path("data", "background_narrations.txt")
