"""The package registries of the action's network installs, served from this machine's caches, for tests.

The action installs reeljudge with ``pip install`` (from PyPI, a wheel, a folder or a git URL) and
promptfoo and the project's packages with ``npm install``. Tests run those commands as they are,
offline:

- pip: ``wheelhouse(folder, extra)`` is a ``--find-links`` folder of wheel files holding
  reeljudge's locked run-time dependencies and setuptools (the build back-end of an editable,
  folder or git install), re-packed from the unpacked wheels in uv's cache (which
  ``scripts/setup.sh --test`` primes), plus ``extra`` (the built reeljudge wheel, so
  ``reeljudge==0.1.0`` resolves as from PyPI); ``pip_env(folder)`` makes pip read only it (no
  index, none of the machine's pip configuration);
- npm: ``npm_env()`` makes npm work offline from its own cache (``npm_config_offline``), which
  set-up primed with promptfoo's packages and their registry documents.
"""

from __future__ import annotations

import os
import subprocess
import zipfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.tags import sys_tags
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

from support.paths import ROOT

UV = ROOT / ".tools" / "uv" / "bin" / "uv"
BUILD_BACKEND = "setuptools"  # pyproject.toml's [build-system]


def _uv_wheels() -> Path:
    """uv's folder of cached wheels from PyPI: ``<name>/<version>-<tags>`` links to the unpacked wheels."""
    cache = Path(subprocess.run([str(UV), "cache", "dir"], capture_output=True, text=True, check=True).stdout.strip())
    found = sorted(cache.glob("wheels-v*/pypi"))
    assert found, f"uv's cache ({cache}) has no wheels: run scripts/setup.sh --test"
    return found[-1]


def _locked_pins() -> dict[str, str]:
    """{name: version} of reeljudge's locked run-time dependencies for this interpreter (uv.lock)."""
    text = subprocess.run([str(UV), "export", "--frozen", "--no-emit-project", "--no-dev", "--no-hashes", "--no-header",
                           "--no-annotate", "--quiet"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    pins: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith(("#", "-")):
            continue
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate():
            pins[canonicalize_name(req.name)] = str(req.specifier).removeprefix("==")
    return pins


def _repack(unpacked: Path, version: str, tag: str, folder: Path) -> Path:
    """The wheel file of an unpacked wheel, named for one of its tags that this interpreter installs."""
    dist = next(unpacked.glob("*.dist-info")).name.removesuffix(".dist-info").rsplit("-", 1)[0]  # the wheel's own spelling
    target = folder / f"{dist}-{version}-{tag}.whl"
    parse_wheel_filename(target.name)  # a valid wheel name, or ValueError
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as archive:
        for path in sorted(unpacked.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(unpacked).as_posix())
    return target


def _tags(unpacked: Path) -> list[str]:
    """The tags an unpacked wheel's WHEEL file declares (``cp311-cp311-manylinux_2_28_x86_64``, …)."""
    text = next(unpacked.glob("*.dist-info")).joinpath("WHEEL").read_text()
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:")]


def _cached_wheel(wheels: Path, name: str, version: str | None) -> tuple[Path, str, str]:
    """(the unpacked wheel, its version, a tag this interpreter installs) of ``name`` in uv's cache, the newest such."""
    supported = {str(t) for t in sys_tags()}
    found = []
    for entry in (wheels / name).iterdir():
        if not entry.is_symlink() or (version is not None and not entry.name.startswith(f"{version}-")):
            continue
        tags = [t for t in _tags(entry.resolve()) if t in supported]
        if tags:
            found.append((Version(entry.name.split("-", 1)[0]), entry.resolve(), tags[0]))
    assert found, f"uv's cache has no wheel of {name} {version or ''} for this interpreter: run scripts/setup.sh --test"
    best = max(found, key=lambda f: f[0])
    return best[1], str(best[0]), best[2]


def wheelhouse(folder: Path, extra: list[Path]) -> Path:
    """A ``--find-links`` folder: reeljudge's locked dependencies and its build back-end from uv's cache, and ``extra``."""
    folder.mkdir(parents=True, exist_ok=True)
    wheels = _uv_wheels()
    for name, version in [*_locked_pins().items(), (BUILD_BACKEND, None)]:
        _repack(*_cached_wheel(wheels, name, version), folder)
    for wheel in extra:
        (folder / wheel.name).write_bytes(wheel.read_bytes())
    return folder


def pip_env(folder: Path) -> dict[str, str]:
    """The environment in which pip installs only from ``folder`` (and reads none of the machine's pip configuration)."""
    return {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(folder),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "PIP_NO_CACHE_DIR": "1"}


def npm_env() -> dict[str, str]:
    """The environment in which npm installs offline, from its cache."""
    return {"npm_config_offline": "true", "npm_config_audit": "false", "npm_config_fund": "false",
            "npm_config_update_notifier": "false"}
