"""Run a command on a stuttering machine: its whole process tree is stopped (SIGSTOP) at random
moments for a random while, then continued, until it ends. A test whose outcome depends on how fast
or loaded the machine is fails here far sooner than on a busy CI runner; a test that does not, passes.

    .venv/bin/python scripts/stutter.py -- .venv/bin/python -m pytest -q -p no:cacheprovider tests/media
    .venv/bin/python scripts/stutter.py --only worker.main -- …   # stop only the processes whose command line has this

Each cycle the tree runs ``--run`` seconds (a random value between the two given), then is stopped
``--freeze`` seconds. Bounded: the stuttering ends after ``--max-s`` seconds (the command then runs
on unhindered), and every process is continued when the command ends, fails, or this is interrupted.
"""

from __future__ import annotations

import argparse
import random
import signal
import subprocess
import sys
import time

import psutil


def main(argv: list[str] | None = None) -> int:
    """Run the command under stutter; its exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", type=float, nargs=2, default=(0.05, 0.4), metavar=("MIN", "MAX"),
                        help="seconds running per cycle")
    parser.add_argument("--freeze", type=float, nargs=2, default=(0.2, 1.5), metavar=("MIN", "MAX"),
                        help="seconds stopped per cycle")
    parser.add_argument("--max-s", type=float, default=1800.0, help="stutter for at most this many seconds (default 1800)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random moments, to repeat a run")
    parser.add_argument("--only", default=None, help="stop only the processes whose command line contains this text")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (put it after --)")
    rng = random.Random(args.seed)
    child = subprocess.Popen(command)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    frozen = _stutter(child, args, rng)
    code = child.wait()
    print(f"stutter: exit {code}, stopped {frozen:.0f} s in all", file=sys.stderr)
    return code


def _stutter(child: subprocess.Popen[bytes], args: argparse.Namespace, rng: random.Random) -> float:
    """Stop and continue ``child``'s tree until it ends or ``--max-s`` pass; seconds it spent stopped."""
    end, frozen, stopped = time.monotonic() + args.max_s, 0.0, []
    try:
        while child.poll() is None and time.monotonic() < end:
            time.sleep(rng.uniform(*args.run))
            stopped = _tree(child.pid, args.only)
            _send(stopped, signal.SIGSTOP)
            pause = rng.uniform(*args.freeze)
            time.sleep(pause)
            frozen += pause
            _send(stopped, signal.SIGCONT)
    finally:
        _send(stopped + _tree(child.pid, None), signal.SIGCONT)
    return frozen


def _tree(pid: int, only: str | None) -> list[psutil.Process]:
    """The process ``pid`` and all its descendants (those whose command line contains ``only``, if given)."""
    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []
    return [p for p in processes if only is None or only in _command_line(p)]


def _command_line(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.Error:
        return ""


def _send(processes: list[psutil.Process], sig: signal.Signals) -> None:
    for process in processes:
        try:
            process.send_signal(sig)
        except psutil.Error:
            pass


if __name__ == "__main__":
    sys.exit(main())
