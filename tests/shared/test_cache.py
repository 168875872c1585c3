"""The judge cache stays consistent under 8 concurrent processes and a writer killed mid-write."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from reeljudge.cache import JudgeCache, request_key
from reeljudge.cli import main as cli_main
from reeljudge.errors import JudgeError
from support.paths import ROOT

WORKER = textwrap.dedent(
    """
    import json, sys
    from reeljudge.cache import JudgeCache
    root, worker, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    cache = JudgeCache(root)
    bad = 0
    for i in range(rounds):
        key = f"{i % 16:02x}" + "0" * 62                    # 16 keys shared by all workers
        value = {"value": {"worker": worker, "round": i, "pad": "x" * (2000 * (1 + worker))}}
        cache.put(key, "test", value)
        entry = cache.get(key)
        if entry is None or entry["key"] != key or set(entry["value"]) != {"worker", "round", "pad"}:
            bad += 1
        elif len(entry["value"]["pad"]) != 2000 * (1 + entry["value"]["worker"]):
            bad += 1
    print(json.dumps({"bad": bad}))
    """
)

KILLED_WRITER = textwrap.dedent(
    """
    import sys
    from reeljudge.cache import JudgeCache
    cache = JudgeCache(sys.argv[1])
    print("ready", flush=True)
    i = 0
    while True:
        cache.put("ab" + "1" * 62, "test", {"value": {"i": i, "blob": "y" * 8_000_000}})
        i += 1
    """
)


def test_request_key_is_stable_and_order_independent():
    assert request_key({"a": 1, "b": [1, 2]}) == request_key({"b": [1, 2], "a": 1})
    assert request_key({"a": 1}) != request_key({"a": 2})


def test_put_get_round_trip_and_modes(tmp_path):
    cache = JudgeCache(tmp_path)
    key = request_key({"q": 1})
    assert cache.get(key) is None
    cache.put(key, "filmability", {"value": {"x": 1}})
    assert cache.get(key)["value"] == {"x": 1}
    assert JudgeCache(tmp_path, "off").get(key) is None
    JudgeCache(tmp_path, "replay").put(request_key({"q": 2}), "k", {"value": 1})
    assert cache.get(request_key({"q": 2})) is None  # replay never writes


def test_replay_miss_is_a_judge_error_that_says_how_to_record(tmp_path):
    with pytest.raises(JudgeError, match="replay.*readwrite") as info:
        JudgeCache(tmp_path, "replay").require(request_key({"q": 3}), "filmability request")
    assert info.value.kind == "cache_miss"


def test_entry_under_the_wrong_key_or_garbage_is_a_miss(tmp_path):
    cache = JudgeCache(tmp_path)
    key = request_key({"q": 4})
    cache.path_for(key).parent.mkdir(parents=True)
    cache.path_for(key).write_text("{not json")
    assert cache.get(key) is None
    cache.path_for(key).write_text(json.dumps({"format": 1, "key": "other", "value": 1}))
    assert cache.get(key) is None


def test_eight_concurrent_processes_never_see_a_torn_entry(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(tmp_path), str(w), "150"], stdout=subprocess.PIPE, env=env)
        for w in range(8)
    ]
    results = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sum(r["bad"] for r in results) == 0
    cache = JudgeCache(tmp_path)
    stats = cache.stats()
    assert stats.entries == 16 and stats.unreadable == 0 and stats.orphaned_temp_files == 0
    for i in range(16):
        entry = cache.get(f"{i:02x}" + "0" * 62)
        assert len(entry["value"]["pad"]) == 2000 * (1 + entry["value"]["worker"])


def test_a_writer_killed_mid_write_leaves_no_torn_entry(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(tmp_path)], stdout=subprocess.PIPE, env=env)
    assert proc.stdout.readline().strip() == b"ready"
    time.sleep(0.8)  # several 8 MB writes in flight
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    cache = JudgeCache(tmp_path)
    key = "ab" + "1" * 62
    entry = cache.get(key)
    if entry is not None:  # the last completed write, whole
        assert len(entry["value"]["blob"]) == 8_000_000
    for path in tmp_path.glob("*/*.json"):
        json.loads(path.read_text())  # every real entry parses
    stats = cache.stats()
    assert stats.unreadable == 0
    assert cache.clear() == stats.entries
    assert cache.stats().entries == 0 and cache.stats().orphaned_temp_files == 0


def test_cli_stats_and_clear(tmp_path, capsys):
    cache = JudgeCache(tmp_path)
    cache.put(request_key({"q": 1}), "filmability", {"value": 1})
    cache.put(request_key({"q": 2}), "gecko.vqa", {"value": 2})
    assert cli_main(["cache", "stats", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "entries: 2" in out and "filmability: 1" in out and "gecko.vqa: 1" in out
    assert cli_main(["cache", "clear", "--dir", str(tmp_path)]) == 0
    assert "removed 2" in capsys.readouterr().out
    assert cache.stats().entries == 0


def test_downloaded_media_are_counted_kept_by_clear_and_removed_on_request(tmp_path, capsys):
    """Decoded data: URIs, downloads and file:// vars promptfoo loaded live in the cache's downloads folder:
    stats shows them, a plain clear keeps them (they are media, not replies), --downloads removes them."""
    import base64

    from reeljudge.media.carriers import Where, open_reference

    clip = ROOT / "datasets" / "clips" / "gen_clean.mp4"
    cache = JudgeCache(tmp_path)
    cache.put(request_key({"q": 1}), "filmability", {"value": 1})
    uri = "data:video/mp4;base64," + base64.b64encode(clip.read_bytes()).decode()
    opened = open_reference(uri, ("video",), Where(memo=cache))
    assert opened.media.ref.path.is_relative_to(tmp_path / "downloads")
    assert cli_main(["cache", "stats", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "entries: 1" in out and f"downloaded and decoded media: 1 files, {clip.stat().st_size} bytes" in out, out
    assert cli_main(["cache", "clear", "--dir", str(tmp_path)]) == 0
    assert opened.media.ref.path.is_file() and cache.stats().download_files == 1
    assert cli_main(["cache", "clear", "--downloads", "--dir", str(tmp_path)]) == 0
    assert "removed 0 entries and 1 downloaded media files" in capsys.readouterr().out
    assert not (tmp_path / "downloads").exists() and cache.stats().download_files == 0


def test_the_environment_cache_refuses_a_bad_mode_naming_the_variable(tmp_path, monkeypatch):
    from reeljudge.cache import environment_cache
    from reeljudge.errors import BadInputError

    monkeypatch.setenv("REELJUDGE_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("REELJUDGE_CACHE", "replay")
    chosen = environment_cache()
    assert chosen.mode == "replay" and chosen.root == tmp_path / "c"
    monkeypatch.setenv("REELJUDGE_CACHE", "rewrite")  # a typo: it used to mean "no cache" in silence
    with pytest.raises(BadInputError, match="REELJUDGE_CACHE") as caught:
        environment_cache()
    assert "rewrite" in str(caught.value)
