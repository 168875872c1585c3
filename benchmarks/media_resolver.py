"""What finding a clip costs, per carrier, measured in one run: a plain path, a promptfoo blob (SHA-256
verified), a media-store key, a data: URI (decoded into the cache), and a URL from a local server
(the first time downloaded, then read from the cache). Wall and CPU time per lookup, and each as a
ratio to the plain path (which hashes the file too: every judge keys its cache by content hash).

Usage: ``.venv/bin/python -m benchmarks.media_resolver [--mb 64] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best wall and CPU seconds of ``repeat`` calls of ``fn``."""
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=64, help="size of the test file in MB (default 64)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from support.clip_server import ClipServer
    from reeljudge.promptfoo.clips import locate_media
    from reeljudge.promptfoo.context import TestContext

    with tempfile.TemporaryDirectory(prefix="reeljudge-bench-") as work:
        root = Path(work)
        data = os.urandom(args.mb << 20)
        clip = root / "clips" / "clip.mp4"
        clip.parent.mkdir()
        clip.write_bytes(data)
        digest = hashlib.sha256(data).hexdigest()
        pf = root / "promptfoo"
        blob = pf / "blobs" / digest[:2] / digest[2:4] / digest
        blob.parent.mkdir(parents=True)
        shutil.copyfile(clip, blob)
        blob.with_name(digest + ".meta.json").write_text(json.dumps({"mimeType": "video/mp4"}))
        (pf / "media" / "video").mkdir(parents=True)
        shutil.copyfile(clip, pf / "media" / "video" / f"{digest[:12]}.mp4")
        os.environ.update(PROMPTFOO_CONFIG_DIR=str(pf), REELJUDGE_CACHE_DIR=str(root / "cache"))
        os.environ.pop("PROMPTFOO_MEDIA_PATH", None)
        uri = "data:video/mp4;base64," + base64.b64encode(data).decode()

        def look(**vars_: str) -> Callable[[], object]:
            return lambda: locate_media(TestContext.of({"vars": vars_}), "", var=None, kinds=("video",), base_dir=root)

        rows = {
            "plain path": look(clip="clips/clip.mp4"),
            "promptfoo blob (verified)": look(clip=f"promptfoo://blob/{digest}"),
            "media-store key": look(clip=f"storageRef:video/{digest[:12]}.mp4"),
            "data: URI (decoded, cached)": look(clip=uri),
        }
        results = {name: timed(fn, args.repeat) for name, fn in rows.items()}
        with ClipServer(clip.parent) as server:
            url = f"{server.url}/clips/clip.mp4"
            results["URL, first (downloaded)"] = timed(look(clip=url), 1)
            results["URL, again (cache)"] = timed(look(clip=url), args.repeat)
            downloads = len(server.requests)
    base_wall, base_cpu = results["plain path"]
    print(f"{args.mb} MB file, best of {args.repeat} (URL first: 1 run); {downloads} download(s) in all")
    print(f"{'carrier':32} {'wall s':>8} {'cpu s':>8} {'wall ×path':>11} {'cpu ×path':>10}")
    for name, (wall, cpu) in results.items():
        print(f"{name:32} {wall:8.3f} {cpu:8.3f} {wall / base_wall:11.2f} {cpu / max(base_cpu, 1e-9):10.2f}")


if __name__ == "__main__":
    main()
