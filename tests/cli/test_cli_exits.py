"""Every ``reeljudge`` command ends the one way when it cannot run (``reeljudge.exits``): exit 2 and, on stderr,
``reeljudge <command>: <what is wrong>``. The commands are read from the CLI itself, so a new command needs its
bad-input case here; ``reeljudge ab serve`` is also run as its own process; the table of exit codes is the one
``--help`` prints and docs/architecture.md shows."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from reeljudge import exits
from reeljudge.cli import build_parser, main
from reeljudge.gates.verdicts import EXIT_CODES as VERDICT_EXITS
from support.paths import ROOT

SCRIPT = Path(sys.executable).parent / "reeljudge"

#: per command, arguments that pass argparse but that the command cannot use, and the words its error line must hold;
#: ``{file}`` is a regular file, ``{missing}`` a path where nothing is, ``{study}`` a small A/B study, ``{tmp}`` a folder
BAD_INPUT: dict[str, tuple[list[str], str]] = {
    "cache stats": (["--dir", "{file}"], "--dir {file}: not a folder"),
    "cache clear": (["--dir", "{file}"], "--dir {file}: not a folder"),
    "gecko export-questions": (["--dir", "{file}"], "--dir {file}: not a folder"),
    "gecko check-pairs": (["{missing}.json"], "{missing}.json: cannot read"),
    "gecko report": (["{missing}.json"], "{missing}.json: cannot read"),
    "ab import": (["--data", "{file}", "{missing}.yaml"], "{file}"),
    "ab gold": (["--data", "{tmp}/new", "--count", "0"], "--count and --frames must be at least 1"),
    "ab invite": (["--data", "{study}", "ann", "not a name"], "rater names may use"),
    "ab serve": (["--data", "{study}", "--min-raters", "1"], "--min-raters must be at least 2"),
    "ab report": (["--data", "{missing}"], "--data {missing}: no A/B study there"),
    "ab export": (["--data", "{missing}"], "--data {missing}: no A/B study there"),
    "ab status": (["--data", "{missing}"], "--data {missing}: no A/B study there"),
    "ab judge": (["--data", "{missing}"], "--data {missing}: no A/B study there"),
    "probes": (["{missing}"], "{missing}: no such folder, clip or manifest"),
    "filmability bulk": (["{missing}.yaml"], "{missing}.yaml: cannot be read"),
    "compare": (["{missing}.json", "{missing}-2.json"], "{missing}.json: cannot read"),
    "calibrate": (["{missing}.json", "{missing}.csv"], "{missing}.csv: no such file"),
    "batch status": (["--cache-dir", "{file}"], "--cache-dir {file}: not a folder"),
    "batch submit": (["--cache-dir", "{file}"], "--cache-dir {file}: not a folder"),
    "batch wait": (["--cache-dir", "{file}"], "--cache-dir {file}: not a folder"),
    "batch collect": (["--cache-dir", "{file}"], "--cache-dir {file}: not a folder"),
    "batch cancel": (["--cache-dir", "{file}"], "--cache-dir {file}: not a folder"),
    "batch run": (["--cache-dir", "{file}", "--promptfoo", "false"], "--cache-dir {file}: not a folder"),
    "init": (["{tmp}/project", "--judges", "filmability,nosuch"], "--judges: unknown judge(s) nosuch"),
}


def commands(parser: argparse.ArgumentParser) -> list[str]:
    """The full name (``ab serve``) of every command that runs, read from the parsers: each parser without
    subcommands, once (an alias names the same parser)."""
    found: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                found += commands(sub)
    return found or [parser.prog.removeprefix("reeljudge").strip()]


@pytest.fixture
def places(tmp_path: Path) -> dict[str, str]:
    """What the ``{…}`` of a bad input stand for."""
    (tmp_path / "a-file.txt").write_text("not a folder\n")
    return {"file": str(tmp_path / "a-file.txt"), "missing": str(tmp_path / "nothing-here"), "tmp": str(tmp_path),
            "study": str(tmp_path / "study")}


def _filled(words: list[str], places: dict[str, str]) -> list[str]:
    return [word.format(**places) for word in words]


def test_every_command_of_the_cli_has_a_bad_input_case():
    assert sorted(commands(build_parser())) == sorted(BAD_INPUT)
    assert len(BAD_INPUT) >= 24  # the walk reached the nested commands (ab judge, batch run, gecko report …)


@pytest.mark.parametrize("command", sorted(BAD_INPUT))
def test_bad_input_exits_2_with_one_line_naming_the_command_and_the_problem(command, places, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a command that did run (none should) finds no promptfoo config or study here
    words, expected = BAD_INPUT[command]
    if "{study}" in words:
        from support.ab_study import make_study

        make_study(tmp_path, n_pairs=1)
    code = main([*command.split(), *_filled(words, places)])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == exits.COULD_NOT_RUN, err
    assert lines and all(line.startswith(f"reeljudge {command}: ") for line in lines), err
    assert expected.format(**places) in err, err


def test_a_file_the_system_refuses_exits_2_with_the_systems_words(tmp_path, capsys):
    """An OSError (here: a folder that is not there) is the command's input, not a crash."""
    target = tmp_path / "no-folder" / "questions.yaml"
    code = main(["gecko", "export-questions", "--dir", str(tmp_path), "-o", str(target)])
    err = capsys.readouterr().err
    assert code == exits.COULD_NOT_RUN
    assert err == f"reeljudge gecko export-questions: [Errno 2] No such file or directory: '{target}'\n"


def test_an_error_the_mapping_does_not_name_is_a_bug_and_keeps_its_traceback():
    def broken(args: object) -> int:
        raise ValueError("a bug")

    with pytest.raises(ValueError, match="a bug"):
        exits.run("reeljudge x", broken, None)
    assert exits.run("reeljudge x", lambda args: 1, None) == exits.FAILED


def _serve(*words: str) -> subprocess.CompletedProcess[str]:
    """``reeljudge ab serve`` as its own process (it never gets to listen: its input is refused first)."""
    return subprocess.run([str(SCRIPT), "ab", "serve", *words], capture_output=True, text=True, timeout=300)


def test_ab_serve_with_a_bad_argument_exits_2_like_every_command(tmp_path):
    from support.ab_study import make_study

    study = make_study(tmp_path, n_pairs=1).root
    done = _serve("--data", str(study), "--burst-per-token", "0", "--port", "0")
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr == "reeljudge ab serve: --burst-per-token and --burst-per-address must be at least 1\n"


def test_ab_serve_without_a_study_exits_2_naming_the_folder(tmp_path):
    done = _serve("--data", str(tmp_path / "nowhere"), "--port", "0")
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr == (f"reeljudge ab serve: --data {tmp_path / 'nowhere'}: no A/B study there (no ab.sqlite); "
                           "`reeljudge ab import` creates one\n")


def test_help_and_docs_show_the_one_table_of_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert exits.help_table() in capsys.readouterr().out
    section = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").split("## Exit codes", 1)[1]
    rows = re.findall(r"^\| \*\*(\d)\*\* \| ([^|]+?) \|", section.split("\n## ", 1)[0], flags=re.M)
    assert [(int(code), name) for code, name in rows] == [(e.code, e.name) for e in exits.EXIT_CODES]
    assert VERDICT_EXITS == {"passed": 0, "failed": 1, "regression": 1, "could not compare": 2, "inconclusive": 3}


def test_the_rubric_tool_that_errors_point_to_ends_a_bad_protocol_the_same_way():
    """``python -m reeljudge.ab_judge.rubric`` is named by the A/B judge's missing-rubric error; it maps errors the one way."""
    done = subprocess.run([sys.executable, "-m", "reeljudge.ab_judge.rubric", "--protocol", "nosuch"],
                          capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr == "python -m reeljudge.ab_judge.rubric: nosuch.yaml: no such protocol (looked in protocols/)\n"
