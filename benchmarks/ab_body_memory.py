"""The rating server's memory under large request bodies (issue 19): peak RSS before and after.

Starts ``reeljudge ab serve`` (a real uvicorn process), reads its peak resident memory (VmHWM in
/proc) once it has answered a first request, then sends, to a submit URL with a bogus token:
one 256 MB body with its Content-Length declared, one 256 MB body in chunks without a length, and
four 128 MB chunked bodies at once. After each it reads VmHWM again and prints the growth, the
status the client got and how many bytes it managed to send. ``--src`` runs the server from
another source tree (e.g. ``git archive`` of an older commit) to compare in the same conditions.

Usage: ``.venv/bin/python -m benchmarks.ab_body_memory [--src DIR] [--mb 256]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set size so far (VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def run(src: Path, mb: int) -> None:
    from support.ab_study import free_port, make_study, raw_post
    from benchmarks.ab_load import serve_process

    with tempfile.TemporaryDirectory(prefix="reeljudge-ab-mem-") as tmp:
        ws = make_study(Path(tmp), n_pairs=1)
        port = free_port()
        server = serve_process(ws.root, port, src)
        try:
            base = peak_rss_mb(server.pid)
            print(f"server from {src}: peak RSS after start {base:.0f} MiB")
            for label, jobs, size, chunked in ((f"1 × {mb} MB, Content-Length declared", 1, mb << 20, False),
                                               (f"1 × {mb} MB, chunked", 1, mb << 20, True),
                                               (f"4 × {mb // 2} MB at once, chunked", 4, (mb // 2) << 20, True)):
                start, cpu = time.perf_counter(), time.process_time()
                with ThreadPoolExecutor(jobs) as pool:
                    results = list(pool.map(lambda _: raw_post(port, "/api/r/bogus/submit", size, chunked), range(jobs)))
                wall = time.perf_counter() - start
                peak = peak_rss_mb(server.pid)
                statuses = sorted({status or "closed" for status, _ in results})
                sent = max(s for _, s in results) / 2**20
                print(f"  {label}: peak RSS {peak:.0f} MiB (+{peak - base:.0f} MiB over start); answered {statuses}; "
                      f"the client sent at most {sent:.1f} MiB; {wall:.1f} s wall, client CPU {time.process_time() - cpu:.1f} s")
        finally:
            server.terminate()
            server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--src", type=Path, default=ROOT, help="run the server from this source tree (default: this one)")
    parser.add_argument("--mb", type=int, default=256)
    args = parser.parse_args()
    run(args.src.resolve(), args.mb)


if __name__ == "__main__":
    main()
