"""The exit codes of every ``reeljudge`` command, and the one line an error leaves on stderr.

A command returns 0 or 1 itself (its own work says whether everything was done); an error it raises
ends it with the code ``ERROR_EXITS`` gives the error's class, said on stderr as
``reeljudge <command>: <message>`` by ``run``, which ``reeljudge.cli.main`` wraps around every command.
argparse's own usage errors exit 2 as well (``usage: …`` and ``reeljudge <command>: error: …``).
"""

from __future__ import annotations

import sys
import textwrap
from dataclasses import dataclass
from typing import Any, Callable

from reeljudge.errors import ReelJudgeError

OK, FAILED, COULD_NOT_RUN, INCONCLUSIVE = 0, 1, 2, 3


@dataclass(frozen=True)
class ExitCode:
    """One exit code: its number, its name and when a command ends with it."""

    code: int
    name: str
    when: str


#: every exit code a ``reeljudge`` command ends with, in order (the table ``--help`` and docs/architecture.md show)
EXIT_CODES: tuple[ExitCode, ...] = (
    ExitCode(OK, "done", "the command did its work: everything judged, probed, imported, collected; the gate passed"),
    ExitCode(FAILED, "failed", "it ran, and something it checks failed or was not done (listed): a regression or a failed "
             "suite (compare), clips not probed, rows or pairs not judged, files not imported, batch jobs failed or "
             "unfinished, a reversed Gecko pair, no question sets to export"),
    ExitCode(COULD_NOT_RUN, "could not run", "bad arguments, options or input, a judge or media error, a file, folder or "
             "address the system refused (compare: could not compare); one line on stderr names the command and the "
             "problem"),
    ExitCode(INCONCLUSIVE, "inconclusive", "reeljudge compare only: the data cannot tell (0 with on_inconclusive: warn)"),
)

#: which error ends a command with which exit code; the first class that matches wins, any other error is a bug
#: (its traceback is shown)
ERROR_EXITS: tuple[tuple[type[Exception], int], ...] = (
    (ReelJudgeError, COULD_NOT_RUN),  # BadInputError, MediaError, JudgeError: the message names what is wrong
    (OSError, COULD_NOT_RUN),  # a missing or unwritable file, a port in use, a host that does not resolve
)


def exit_code_of(error: BaseException) -> int | None:
    """The exit code ``ERROR_EXITS`` gives ``error``, or None when it maps none (a bug)."""
    return next((code for kind, code in ERROR_EXITS if isinstance(error, kind)), None)


def error_line(command: str, message: str) -> str:
    """The one form of an error on stderr: ``reeljudge ab serve: <message>``."""
    return f"{command}: {message}"


def run(command: str, func: Callable[[Any], int], args: Any) -> int:
    """Run ``func(args)`` as ``command``: its own exit code, or the code of an error ``ERROR_EXITS`` maps,
    said on stderr in the one form."""
    try:
        return int(func(args))
    except Exception as error:
        code = exit_code_of(error)
        if code is None:
            raise
        message = error.message if isinstance(error, ReelJudgeError) else str(error)
        print(error_line(command, message), file=sys.stderr)
        return code


def help_table(width: int = 100) -> str:
    """The exit codes as the ``--help`` epilog shows them, wrapped at ``width``."""
    rows = (textwrap.fill(f"{e.code}  {e.name}: {e.when}", width, initial_indent="  ", subsequent_indent="     ")
            for e in EXIT_CODES)
    return "exit codes:\n" + "\n".join(rows)
