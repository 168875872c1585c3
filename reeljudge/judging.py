"""The table of judges: one frozen row per judge, its one name, and every name derived from it.

A judge is named once (``Judge.name``: ``filmability``, ``gecko``, ``video_probes``, ``ab_judge``, the
name its results record as ``judge_identity.judge``). Everything that registers a judge derives its
own name from the row:

- the npm export of ``index.js`` (``package:reeljudge:<npm_export>``): the name in camelCase;
- the root entry files ``assertions/<entry_stem>.py`` and ``.js``: the name;
- the promptfoo adapter ``reeljudge.assertions.<name>``;
- the judge's core package ``reeljudge.<package>``, its options loader ``<package>.options`` and its
  Python face ``reeljudge.<face>`` (defined in ``<package>.api``);
- ``reeljudge init --judges <init_key>`` and the starter's ``promptfooconfig.<init_key>.yaml`` (from the
  template ``<init_key>.yaml``);
- the ``reeljudge`` command the judge adds (``command``, a module of ``cli.COMMANDS`` or of a
  command's ``SUBCOMMANDS``).

``index.js``, the root entry files, ``reeljudge init``, the package's faces and the CLI are derived
from this table or held equal to it by ``tests/verdicts/test_judge_table.py``: adding a judge is one row
here plus its code. This module imports nothing of the package, so every floor can read it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the package of the promptfoo adapters (the top floor)
ADAPTERS = "reeljudge.assertions"


@dataclass(frozen=True)
class Judge:
    """One judge and the names it is registered under.

    Attributes:
        name: the judge's one name (a Python identifier): entry stem, adapter module, identity.
        package: the subpackage of ``reeljudge`` that holds its core (``probes`` for ``video_probes``).
        face: the name of its Python face, ``reeljudge.<face>``.
        command: the module that adds the judge's ``reeljudge`` command.
        init_key: the word ``reeljudge init --judges`` takes for it (users' interface, kept as written
            before the table: ``probes``, ``ab``); the name when not given.
        clips: whether it judges a clip (its starter needs an example clip).
        options: its options classes (in ``options_module``); those of their options declared to change verdicts
            (``option(..., verdict=True)``) are what its results record of how it was configured
            (``reeljudge.options.verdict_options``), so the gate compares like with like and names a change.
    """

    name: str
    package: str
    face: str
    command: str
    init_key: str = ""
    clips: bool = False
    options: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.init_key:
            object.__setattr__(self, "init_key", self.name)

    @property
    def npm_export(self) -> str:
        """Its export of the npm package (``index.js``): the name in camelCase (``videoProbes``)."""
        head, *rest = self.name.split("_")
        return head + "".join(word.capitalize() for word in rest)

    @property
    def entry_stem(self) -> str:
        """The stem of its root entry files, ``assertions/<stem>.py`` and ``assertions/<stem>.js``."""
        return self.name

    @property
    def adapter(self) -> str:
        """Its promptfoo adapter, the module every entry names."""
        return f"{ADAPTERS}.{self.name}"

    @property
    def core(self) -> str:
        """The package of its core."""
        return f"reeljudge.{self.package}"

    @property
    def options_module(self) -> str:
        """Its options loader (``load(config)``)."""
        return f"{self.core}.options"

    @property
    def face_module(self) -> str:
        """The module that defines its Python face."""
        return f"{self.core}.api"

    @property
    def init_template(self) -> str:
        """The file name of its starter config's template (in ``reeljudge/data/init``)."""
        return f"{self.init_key}.yaml"


#: every judge, in the order users meet them (``init``'s default order, ``index.js``'s exports)
JUDGES: tuple[Judge, ...] = (
    Judge("filmability", package="filmability", face="judge_terms", command="reeljudge.filmability.bulk_cli",
          options=("FilmabilityOptions",)),
    Judge("video_probes", package="probes", face="run_probes", command="reeljudge.library.cli", init_key="probes", clips=True,
          options=("ProbeOptions",)),
    Judge("gecko", package="gecko", face="score_gecko", command="reeljudge.gecko.cli", clips=True, options=("GeckoOptions",)),
    Judge("ab_judge", package="ab_judge", face="judge_pair", command="reeljudge.ab_judge.cli", init_key="ab", clips=True,
          options=("ABJudgeOptions",)),
)
FILMABILITY, VIDEO_PROBES, GECKO, AB_JUDGE = JUDGES
#: a judge by its name
BY_NAME: dict[str, Judge] = {j.name: j for j in JUDGES}
#: a judge by its ``init`` word
BY_INIT_KEY: dict[str, Judge] = {j.init_key: j for j in JUDGES}
