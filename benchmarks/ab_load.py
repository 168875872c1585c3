"""A/B store and report at scale.

1. Load: ``--raters`` (50) concurrent raters against ``reeljudge ab serve`` (a real uvicorn
   process, embedded SQLite store), each taking a task, loading both clips in full (as the page
   does; the server logs what it sent) and submitting, until every sample has its two raters.
   The clips are one tiny file of 0.02 s, so the server's minimum watching time does not pace the
   raters. Prints submits per second and submit latency percentiles (client-side, HTTP round trip,
   one asyncio client process) and the server's CPU time. ``--src`` runs the server from another
   source tree (e.g. ``git archive`` of an older commit) to compare in the same conditions.
   ``--hostile N`` adds two rows: N (128) hostile clients posting ≈498 KiB bodies of empty objects
   (``{"assignment_id":"x","watch":{"log":[{},{},…]}}``) to ``/api/r/nobody/submit`` without a
   valid token, over and over, (a) beside one rater fetching tasks (its p99) and (b) beside the
   raters' load; each with the server's peak RSS (``VmHWM``) over its RSS before the attack.
2. Fair share (``--fair``, issue 39; ``benchmarks/ab_fair_share.py``): another rater's two ``--clip-mb``
   (8) MB clips and its ``/task`` latency alone, beside one token flooding on 64 connections, and
   beside 64 tokenless connections; 64 connections that pipeline and never read against
   ``--max-connections 64``; 40 raters behind one address. Only these rows run with ``--fair``.
3. Report: ``--judgements`` (10,000) synthetic judgements (2 families × 4 systems, 2 raters per
   sample) → ``build_report`` with 1,000 bootstrap resamples, then HTML; prints time and sizes.

Usage: ``.venv/bin/python -m benchmarks.ab_load [--raters 50] [--samples 1000] [--judgements 10000] [--src DIR] [--skip-report]
[--hostile 128 [--attack-only]]``
or ``.venv/bin/python -m benchmarks.ab_load --fair [--clip-mb 8] [--downloads 3] [--fair-seconds 12] [--stuck-seconds 20] [--src
DIR]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Coroutine
from typing import Any, TypeVar
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
DIMS = ("prompt_adherence", "temporal_consistency", "identity_consistency", "motion_physics")


CLIP_BYTES, CLIP_SECONDS = 4096, 0.02


def fake_study(root: Path, n_samples: int, systems: tuple[str, ...] = ("sys-a", "sys-b"),
               families: tuple[str, ...] = ("text-to-video",)) -> Any:
    """A workspace with ``n_samples`` pair samples whose clips all point at one tiny file (served, never decoded)."""
    from reeljudge.ab.store.samples import Clip, make_sample
    from reeljudge.ab.study.workspace import Workspace

    ws = Workspace(root)
    ws.fix_protocol()
    samples, clips = [], []
    rng = random.Random(5)
    for i in range(n_samples):
        a, b = rng.sample(systems, 2)
        shas = (f"{2 * i:064x}", f"{2 * i + 1:064x}")
        clips += [Clip(s, "shared.mp4", CLIP_BYTES, "video/mp4", CLIP_SECONDS, 24.0, 128, 72) for s in shas]
        samples.append(make_sample(families[i % len(families)], f"prompt {i}", (a, shas[0]), (b, shas[1])))
    ws.store.add_samples(samples, clips)
    ws.clips.root.mkdir(parents=True, exist_ok=True)
    (ws.clips.root / "shared.mp4").write_bytes(bytes(rng.randrange(256) for _ in range(CLIP_BYTES)))
    return ws


T = TypeVar("T")

RETRIED = [0]  # requests sent again after the connection dropped (a keep-alive connection closed under load)


async def _send(client: Any, method: str, url: str, **kwargs: Any) -> Any:
    """One request, sent again (at most twice) when the connection drops; every request here is idempotent."""
    import httpx

    for attempt in range(3):
        try:
            return await client.request(method, url, **kwargs)
        except (httpx.ReadError, httpx.RemoteProtocolError, httpx.WriteError):
            if attempt == 2:
                raise
            RETRIED[0] += 1


async def _rater(client: Any, url: str, token: str, latencies: list[float]) -> int:
    from support.ab_study import full_watch, valid_form

    done = 0
    while True:
        task = (await _send(client, "GET", f"{url}/api/r/{token}/task")).json()["task"]
        if task is None:
            return done
        for side in ("A", "B"):  # the page loads both clips; the server logs what it sent
            assert (await _send(client, "GET", url + task["clips"][side]["url"])).status_code == 200
        await asyncio.sleep(task["min_full_plays"] * CLIP_SECONDS / task.get("max_speed", 2.0))
        body = {"assignment_id": task["assignment_id"], "submission_id": f"bench-{task['assignment_id']}",
                "form": valid_form(random.choice("AB")), "watch": full_watch(seconds=CLIP_SECONDS)}
        start = time.perf_counter()
        response = await _send(client, "POST", f"{url}/api/r/{token}/submit", json=body)  # idempotent: same submission_id
        latencies.append(time.perf_counter() - start)
        assert response.status_code == 200, response.text
        done += 1


async def _load(url: str, tokens: list[str]) -> tuple[int, float, list[float]]:
    import httpx

    latencies: list[float] = []
    limits = httpx.Limits(max_connections=len(tokens))
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        start = time.perf_counter()
        counts = await asyncio.gather(*(_rater(client, url, t, latencies) for t in tokens))
        return sum(counts), time.perf_counter() - start, latencies


def serve_process(data: Path, port: int, src: Path = ROOT, *extra: str, open_files: int | None = None,
                  log: Path | None = None) -> subprocess.Popen:
    """``reeljudge ab serve`` on ``port`` as a process running the code of ``src``, once it answers /healthz; optionally
    under an open-files limit (``RLIMIT_NOFILE``) and with its output in ``log``."""
    import os
    import resource

    import httpx

    def limit() -> None:
        if open_files:
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

    env = {**os.environ, "PYTHONPATH": str(src)}
    out = log.open("wb") if log is not None else subprocess.DEVNULL
    server = subprocess.Popen([sys.executable, "-m", "reeljudge.cli", "ab", "serve", "--data", str(data),
                               "--port", str(port), *extra],
                              cwd=src, env=env, stdout=out, stderr=subprocess.STDOUT if log is not None else None,
                              preexec_fn=limit)
    if log is not None:
        out.close()  # type: ignore[union-attr]  # the server has its own copy
    for _ in range(300):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    return server


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (Linux /proc)."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _memory_kib(pid: int, field: str) -> int:
    """A /proc/<pid>/status memory figure in KiB (VmRSS now, VmHWM the peak so far)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


HOSTILE_BODY = b'{"assignment_id":"x","watch":{"log":[' + b",".join([b"{}"] * 170_000) + b"]}}"  # ≈498 KiB, under the 512 KB cap


async def _hostile(port: int, source: str, stop: asyncio.Event, statuses: dict[str, int]) -> None:
    """One hostile client (from address ``source``): POST the body of empty objects to a token that does not exist, until
    ``stop``."""
    head = (b"POST /api/r/nobody/submit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(HOSTILE_BODY))
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
            writer.write(head + HOSTILE_BODY)
            line = await asyncio.wait_for(reader.readline(), 120)
            statuses[line[9:12].decode() or "closed"] = statuses.get(line[9:12].decode() or "closed", 0) + 1
            writer.close()
        except (OSError, asyncio.TimeoutError):
            statuses["error"] = statuses.get("error", 0) + 1
            await asyncio.sleep(0.05)


async def _fetcher(url: str, token: str, stop: asyncio.Event, latencies: list[float]) -> None:
    """A rater asking for its task once every 0.1 s until ``stop``: the latency of each request."""
    import httpx

    async with httpx.AsyncClient(timeout=60) as client:
        while not stop.is_set():
            start = time.perf_counter()
            try:
                assert (await _send(client, "GET", f"{url}/api/r/{token}/task")).status_code == 200
            except httpx.TimeoutException:
                pass  # counted at the time it took (the timeout)
            latencies.append(time.perf_counter() - start)
            await asyncio.sleep(0.1)


def _attack_process(port: int, hostile: int, stop: Any, out: Any) -> None:
    """In a process of its own (so the attack's client work does not slow the measured rater): attack until ``stop``."""
    async def attack() -> dict[str, int]:
        done = asyncio.Event()
        statuses: dict[str, int] = {}
        # from 127.0.0.2 on, 32 per address: under the server's per-address cap (64), so each body reaches the submit
        # handler; the raters come from 127.0.0.1
        attackers = [asyncio.create_task(_hostile(port, f"127.0.0.{2 + i // 32}", done, statuses)) for i in range(hostile)]
        while not stop.is_set():
            await asyncio.sleep(0.1)
        done.set()
        await asyncio.gather(*attackers)
        return statuses

    out.put(asyncio.run(attack()))


def _under_attack(port: int, hostile: int, main: Coroutine[Any, Any, T]) -> tuple[T, dict[str, int]]:
    """Run the coroutine ``main`` while ``hostile`` clients attack from another process; its result and their answers by
    status."""
    import multiprocessing

    if not hostile:
        return asyncio.run(main), {}
    ctx = multiprocessing.get_context("spawn")
    stop, out = ctx.Event(), ctx.Queue()
    attacker = ctx.Process(target=_attack_process, args=(port, hostile, stop, out))
    attacker.start()
    time.sleep(2)  # let the attack start
    try:
        result = asyncio.run(main)
    finally:
        stop.set()
    statuses = out.get(timeout=300)
    attacker.join(60)
    return result, statuses


def _pct(values: list[float], p: float) -> float:
    """The ``p`` percentile of ``values`` in ms."""
    values = sorted(values)
    return 1000 * values[min(len(values) - 1, int(p * len(values)))]


def bench_load(raters: int, samples: int, src: Path = ROOT, hostile: int = 0, attack_only: bool = False) -> None:
    from support.ab_study import free_port, invite

    with tempfile.TemporaryDirectory(prefix="reeljudge-ab-bench-") as tmp:
        ws = fake_study(Path(tmp) / "study", samples)
        tokens = [invite(ws, f"rater{i:02d}") for i in range(raters)]
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        server = serve_process(ws.root, port, src, "--gold-every", "0", "--max-raters", "2")
        try:
            if hostile:
                lone = invite(ws, "lone-rater")
                bench_attack_alone(url, port, server.pid, lone, 0)  # the same rater without the attack, for reference
                bench_attack_alone(url, port, server.pid, lone, hostile)
            if attack_only:
                return
            rss_before = _memory_kib(server.pid, "VmHWM")
            cpu_start = _cpu_seconds(server.pid)
            load = _load(url, tokens)
            (n, seconds, lat), statuses = _under_attack(port, hostile, load)
            cpu = _cpu_seconds(server.pid) - cpu_start
            peak = _memory_kib(server.pid, "VmHWM") - rss_before
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:  # a graceful shutdown still waiting on hostile connections
                server.kill()
                server.wait()
        stored = len(ws.store.judgements())
    held = ": the lone rater holds one task" if hostile else ""
    beside = f" beside {hostile} hostile clients ({statuses}), server peak RSS +{peak / 1024:.0f} MiB" if hostile else ""
    print(f"load: {raters} raters, {samples} samples{beside} → {n} submits in {seconds:.1f} s = {n / seconds:.0f} submits/s "
          f"(task fetch + submit per rating); submit latency p50 {_pct(lat, 0.5):.0f} ms, p99 {_pct(lat, 0.99):.0f} ms, max "
          f"{1000 * max(lat):.0f} ms; stored {stored} (expected {2 * samples - 1 if hostile else 2 * samples}{held}); server CPU "
          f"{cpu:.1f} s over {seconds:.1f} s wall; {RETRIED[0]} requests resent after a dropped connection ({src})")


def bench_attack_alone(url: str, port: int, pid: int, token: str, hostile: int, seconds: float = 20.0) -> None:
    """One rater fetching tasks for ``seconds`` while ``hostile`` clients attack: its p99 and the server's peak RSS."""
    rss_before = _memory_kib(pid, "VmRSS")

    async def fetch_for_a_while() -> list[float]:
        stop = asyncio.Event()
        latencies: list[float] = []
        fetcher = asyncio.create_task(_fetcher(url, token, stop, latencies))
        await asyncio.sleep(seconds)
        stop.set()
        await fetcher
        return latencies

    lat, statuses = _under_attack(port, hostile, fetch_for_a_while())
    peak = _memory_kib(pid, "VmHWM") - rss_before
    print(f"attack: {hostile} hostile clients for {seconds:.0f} s ({statuses}); one rater's task fetches: {len(lat)}, "
          f"p50 {_pct(lat, 0.5):.0f} ms, p99 {_pct(lat, 0.99):.0f} ms, max {1000 * max(lat):.0f} ms; "
          f"server RSS {rss_before / 1024:.0f} MiB before, peak +{max(0, peak) / 1024:.0f} MiB")


def bench_fair(src: Path, clip_mb: float, downloads: int, seconds: float) -> None:
    """Rows ``fair`` of ``benchmarks/ab_fair_share.py``: another rater's clips and /task alone, beside one token flooding on 64
    connections, beside 64 tokenless connections."""
    from benchmarks.ab_fair_share import FLOODERS, flood_process, measured_rater, with_attack
    from support.ab_study import byte_study, free_port, invite

    with tempfile.TemporaryDirectory(prefix="reeljudge-ab-fair-") as tmp:
        ws = byte_study(Path(tmp) / "study", int(clip_mb * 1_000_000), n_pairs=8)
        rater, greedy = invite(ws, "measured"), invite(ws, "greedy")
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        server = serve_process(ws.root, port, src, "--gold-every", "0")
        rows = [("alone", None, ()),
                (f"one token on {FLOODERS} connections", flood_process, (port, f"/api/r/{greedy}/task", "127.0.0.2")),
                (f"{FLOODERS} tokenless connections", flood_process,
                 (port, f"/api/r/{secrets.token_urlsafe(18)}/task", "127.0.0.3"))]
        alone = None
        try:
            for name, target, args in rows:
                cpu0, rss0 = _cpu_seconds(server.pid), _memory_kib(server.pid, "VmRSS")
                wall0 = time.perf_counter()
                (times, lat, task_statuses), attack = with_attack(target, args,
                                                                  lambda: measured_rater(url, rater, downloads, seconds))
                cpu, wall = _cpu_seconds(server.pid) - cpu0, time.perf_counter() - wall0
                peak = _memory_kib(server.pid, "VmHWM") - rss0
                median = sorted(times)[len(times) // 2]
                alone = alone or median
                ratio = f", {median / alone:.1f}× alone" if target else ""
                print(f"fair [{name}]: two {clip_mb:g} MB clips in {' / '.join(f'{t:.2f}' for t in times)} s (median "
                      f"{median:.2f} s{ratio}); /task p50 {_pct(lat, 0.5):.0f} ms, p99 {_pct(lat, 0.99):.0f} ms ({len(lat)} "
                      f"fetches {task_statuses}); server CPU {cpu:.1f} s over {wall:.1f} s wall, peak RSS "
                      f"+{max(0, peak) / 1024:.0f} MiB (from {rss0 / 1024:.0f}); attack answers {attack} ({src.name})",
                      flush=True)
        finally:
            _stop(server)


def bench_stuck(src: Path, seconds: float) -> None:
    """Row ``stuck`` of ``benchmarks/ab_fair_share.py``: 64 connections pipelining and never reading against --max-connections
    64."""
    import httpx

    from benchmarks.ab_fair_share import FLOODERS, stuck_process, with_attack
    from support.ab_study import free_port, invite

    with tempfile.TemporaryDirectory(prefix="reeljudge-ab-stuck-") as tmp:
        ws = fake_study(Path(tmp) / "study", 4)
        token = invite(ws, "measured")
        port = free_port()
        server = serve_process(ws.root, port, src, "--gold-every", "0", "--max-connections", str(FLOODERS))

        def measure() -> dict[str, int]:
            statuses: dict[str, int] = {}
            for _ in range(int(seconds)):
                start = time.monotonic()
                try:
                    status = str(httpx.get(f"http://127.0.0.1:{port}/api/r/{token}/task", timeout=5).status_code)
                except httpx.HTTPError as error:
                    status = type(error).__name__
                statuses[status] = statuses.get(status, 0) + 1
                time.sleep(max(0.0, start + 1 - time.monotonic()))
            return statuses

        try:
            statuses, attack = with_attack(stuck_process, (port, FLOODERS), measure)
        finally:
            _stop(server)
    print(f"stuck [{FLOODERS} connections pipelining, never reading; --max-connections {FLOODERS}]: "
          f"the rater's task fetches over {seconds:.0f} s {statuses}; {attack} ({src.name})", flush=True)


def bench_nat(src: Path, raters: int = 40) -> None:
    """Row ``nat`` of ``benchmarks/ab_fair_share.py``: raters behind one address, two connections each."""
    from benchmarks.ab_fair_share import nat_raters
    from support.ab_study import free_port, invite

    with tempfile.TemporaryDirectory(prefix="reeljudge-ab-nat-") as tmp:
        ws = fake_study(Path(tmp) / "study", raters)
        tokens = [invite(ws, f"nat{i:02d}") for i in range(raters)]
        port = free_port()
        server = serve_process(ws.root, port, src, "--gold-every", "0")
        try:
            statuses = asyncio.run(nat_raters(f"http://127.0.0.1:{port}", tokens))
        finally:
            _stop(server)
    print(f"nat [{raters} raters behind one address, two connections each]: task fetches {statuses} ({src.name})", flush=True)


def _stop(server: subprocess.Popen) -> None:
    """Stop a server process (killed when a graceful shutdown still waits on hostile connections)."""
    server.terminate()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def synthetic_records(n: int) -> tuple[list, list]:
    """``n`` records: 2 raters per sample, 2 families, 4 systems with different true strengths."""
    from reeljudge.ab.store.records import build_record
    from reeljudge.ab.store.samples import make_sample

    rng = random.Random(7)
    strength = {"sys-a": 1.0, "sys-b": 0.5, "sys-c": 0.0, "sys-d": -0.5}
    raters = [f"rater{i}" for i in range(12)]
    samples, records = [], []
    for i in range(n // 2):
        x, y = rng.sample(list(strength), 2)
        sample = make_sample(("text-to-video", "image-to-video")[i % 2], f"prompt {i}", (x, f"{2 * i:064x}"),
                             (y, f"{2 * i + 1:064x}"))
        samples.append(sample)
        p = 1 / (1 + 2.718 ** (strength[y] - strength[x]))
        for rater in rng.sample(raters, 2):
            u = rng.random()
            winner = "tie" if u < 0.1 else (x if u < 0.1 + 0.9 * p else y)
            shown = {"A": x, "B": y} if rng.random() < 0.5 else {"A": y, "B": x}
            side = {v: k for k, v in shown.items()}
            good = {d: rng.randint(3, 5) for d in DIMS}
            bad = {d: rng.randint(1, 4) for d in DIMS}
            ratings = {"A": good, "B": bad} if winner == shown["A"] else {"A": bad, "B": good}
            form = {"winner": "tie" if winner == "tie" else side[winner], "primary_tag": "tie_both_good" if winner == "tie"
                    else rng.choice(["flicker", "artifacts", "missed_constraint"]),
                    "secondary_tags": [], "ratings": ratings}
            records.append(build_record(sample_id=sample.sample_id, family=sample.family, protocol="ab-v1", shown=shown,
                                        clips={s: sample.clip_of(shown[s]) for s in "AB"}, form=form, rater_id=rater,
                                        watch={"full_plays": {"A": 2, "B": 2}, "log": []}))
    return records, samples


def bench_report(n: int, resamples: int) -> None:
    from reeljudge.ab.store.protocol import load_protocol
    from reeljudge.ab.analysis.report import ReportOptions, build_report
    from reeljudge.ab.analysis.report_html import render

    records, samples = synthetic_records(n)
    start = time.perf_counter()
    report = build_report(records, samples, load_protocol("ab-v1"), ReportOptions(n_resamples=resamples))
    built = time.perf_counter() - start
    html = render(report, lambda sha: f"clips/{sha}.mp4")
    total = time.perf_counter() - start
    size_json = len(json.dumps(report, indent=1).encode())
    print(f"report: {len(records)} judgements, {resamples} resamples → build {built:.1f} s, with HTML {total:.1f} s; "
          f"report.json {size_json / 1024:.0f} KiB, report.html {len(html.encode()) / 1024:.0f} KiB; "
          f"agreement {report['agreement']['overall']['percent']['rate']:.3f}, "
          f"α nominal {report['agreement']['overall']['krippendorff_alpha_nominal']['estimate']:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--raters", type=int, default=50)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--judgements", type=int, default=10000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--src", type=Path, default=ROOT, help="run the server from this source tree (default: this one)")
    parser.add_argument("--skip-report", action="store_true", help="the load part only")
    parser.add_argument("--attack-only", action="store_true",
                        help="with --hostile: the attack beside one rater, not beside the load")
    parser.add_argument("--hostile", type=int, default=0,
                        help="hostile clients beside the raters (0: none; the issue's attack: 128)")
    parser.add_argument("--fair", action="store_true", help="the fair-share rows only (issue 39)")
    parser.add_argument("--clip-mb", type=float, default=8.0, help="--fair: the measured rater's clip size in MB (default 8)")
    parser.add_argument("--downloads", type=int, default=3, help="--fair: pair downloads per row (default 3)")
    parser.add_argument("--fair-seconds", type=float, default=12.0,
                        help="--fair: the least time each row's rater runs (default 12)")
    parser.add_argument("--stuck-seconds", type=float, default=20.0,
                        help="--fair: the rater's fetches beside the stuck connections")
    args = parser.parse_args()
    if args.fair:
        bench_fair(args.src.resolve(), args.clip_mb, args.downloads, args.fair_seconds)
        bench_stuck(args.src.resolve(), args.stuck_seconds)
        bench_nat(args.src.resolve())
        return
    bench_load(args.raters, args.samples, args.src.resolve(), args.hostile, args.attack_only)
    if not args.skip_report:
        bench_report(args.judgements, args.resamples)


if __name__ == "__main__":
    main()
