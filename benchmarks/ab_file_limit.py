"""The rating server at its open-files limit (issue 50): ``--runs`` (20) floods in a row.

Each run starts ``reeljudge ab serve`` under an open-files limit (``RLIMIT_NOFILE``, ``--open-files`` 256) right after the
previous run's server stopped (the order that made it fail most), opens ``--flood`` (300) connections from one address that
send nothing, and after 1 s asks for an invited rater's task (timeout: the header deadline plus a second). Per run it prints
the server's open descriptors before the flood (after one task fetch: the store's first files), 1 s into it, the most seen
(sampled every 0.1 s) and at the header deadline plus a second, the rater's status and wait, the "Too many open files"
lines in the server's log, and the server's CPU time beside the wall time. A run is good when the rater got its task, the
descriptors never reached the limit and were back under the cap plus the process's own by the deadline. ``--src`` runs
the server from another source tree (e.g. ``git archive`` of main) to compare in the same conditions.

Usage: ``.venv/bin/python -m benchmarks.ab_file_limit [--runs 20] [--flood 300] [--open-files 256] [--header-timeout 10]
[--max-connections N] [--src DIR]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.ab_load import ROOT, _cpu_seconds, _stop, serve_process

sys.path.insert(0, str(ROOT / "tests"))
from support.silent_flood import open_descriptors, silent_connections  # noqa: E402 (found through the line above)
RESERVED = 128  # limits.RESERVED_FILES on both sides of the comparison


def one_run(data: Path, token: str, log: Path, src: Path, flood: int, open_files: int, header_s: float,
            source: str, extra: tuple[str, ...] = ()) -> dict[str, object]:
    """One server, one flood: what the run measured."""
    import httpx

    from support.ab_study import free_port

    port = free_port()
    server = serve_process(data, port, src, "--gold-every", "0", "--header-timeout", str(header_s), *extra, open_files=open_files,
                           log=log)
    httpx.get(f"http://127.0.0.1:{port}/api/r/{token}/task", timeout=30)  # the store's first worker thread and its files
    base, cap = open_descriptors(server.pid), (open_files - RESERVED) // 2
    cpu0, start = _cpu_seconds(server.pid), time.monotonic()
    socks = silent_connections(port, source, flood)
    peak = 0
    while time.monotonic() - start < 1.0:
        peak = max(peak, open_descriptors(server.pid))
        time.sleep(0.05)
    at_1s = open_descriptors(server.pid)
    peak = max(peak, at_1s)
    asked = time.monotonic()
    try:
        status: object = httpx.get(f"http://127.0.0.1:{port}/api/r/{token}/task", timeout=header_s + 1).status_code
    except httpx.HTTPError as error:
        status = type(error).__name__
    waited = time.monotonic() - asked
    while time.monotonic() - start < header_s + 1:
        peak = max(peak, open_descriptors(server.pid))
        time.sleep(0.1)
    at_deadline = open_descriptors(server.pid)
    cpu = _cpu_seconds(server.pid) - cpu0
    wall = time.monotonic() - start
    for sock in socks:
        sock.close()
    _stop(server)
    emfile = log.read_text(errors="replace").count("Too many open files")
    return {"base": base, "cap": cap, "at_1s": at_1s, "peak": peak, "at_deadline": at_deadline, "status": status,
            "waited_s": round(waited, 2), "emfile": emfile, "cpu_s": round(cpu, 2), "wall_s": round(wall, 1)}


def main() -> None:
    """Run the floods and print one line per run, then the summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--flood", type=int, default=300)
    parser.add_argument("--open-files", type=int, default=256)
    parser.add_argument("--header-timeout", type=float, default=10.0)
    parser.add_argument("--src", type=Path, default=ROOT)
    parser.add_argument("--max-connections", default=None, help="passed to ab serve (e.g. 1000: a cap the limit cannot keep)")
    args = parser.parse_args()
    from support.ab_study import invite, make_study

    with tempfile.TemporaryDirectory() as tmp:
        ws = make_study(Path(tmp) / "study", n_pairs=2)
        token = invite(ws, "ann")
        good = 0
        for run in range(args.runs):
            extra = ("--max-connections", args.max_connections) if args.max_connections else ()
            result = one_run(ws.root, token, Path(tmp) / f"server{run}.log", args.src, args.flood, args.open_files,
                             args.header_timeout, f"127.0.0.{100 + run % 50}", extra)
            ok = (result["status"] == 200 and result["at_deadline"] <= result["base"] + result["cap"]  # type: ignore[operator]
                  and result["peak"] < args.open_files and not result["emfile"])
            good += ok
            print(f"run {run + 1:2d}: {result} {'ok' if ok else 'FAILED'}", flush=True)
        cap = f", --max-connections {args.max_connections}" if args.max_connections else ""
        print(f"file limit [{args.flood} silent connections, RLIMIT_NOFILE {args.open_files}{cap}, header deadline "
              f"{args.header_timeout:g} s]: {good} of {args.runs} runs answered the rater and came back under the cap "
              f"({args.src.name})", flush=True)


if __name__ == "__main__":
    main()
