"""The optional parts of reeljudge (``pip install 'reeljudge[<extra>]'``) and the one check that
says which to install when a command needs a package that is not there.

- ``rating``: the A/B rating server (starlette, uvicorn) and its statistics (statsmodels,
  krippendorff): ``reeljudge ab serve``, ``ab report``, agreement and rankings;
- ``cluster``: Dask distributed, for ``--engine dask``;
- ``postgres``: psycopg, for an A/B store in PostgreSQL.

The judges themselves (filmability, Gecko, the probes, the A/B judge) need none of them.
"""

from __future__ import annotations

import importlib.util

from reeljudge.errors import BadInputError

#: the extra that brings each optional top-level module
EXTRA_OF: dict[str, str] = {
    "starlette": "rating", "uvicorn": "rating", "statsmodels": "rating", "krippendorff": "rating",
    "distributed": "cluster", "psycopg": "postgres",
}


def require(what: str, *modules: str) -> None:
    """Return when every one of ``modules`` can be imported; else BadInputError saying that
    ``what`` needs them and which ``pip install 'reeljudge[…]'`` brings them."""
    missing = [m for m in modules if not _importable(m)]
    if missing:
        extras = ",".join(sorted({EXTRA_OF[m] for m in missing}))
        raise BadInputError(f"{what} needs {', '.join(missing)}, an optional part of reeljudge that is not installed: "
                            f"pip install 'reeljudge[{extras}]'")


def _importable(module: str) -> bool:
    """Whether ``module`` can be found (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
