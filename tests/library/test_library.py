"""The probes over a clip library: folder and manifests, JSONL records, resume, summary, CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from support.clip_server import ClipServer
from reeljudge.cli import main as cli_main
from reeljudge.errors import BadInputError
from reeljudge.library.engines import LocalEngine, SerialEngine
from reeljudge.library.jsonl import open_results, read_results
from reeljudge.library.probe_library import probe_library_file
from reeljudge.probes import ProbeOptions, probe_clip
from reeljudge.retry import RetryPolicy
from reeljudge.synth.clips import write_fixtures

CLIPS = ("clean", "frozen", "black", "cut")
VOLATILE = ("timings", "worker_pid")


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of four generated clips (one clean, three with a known fault) in a subfolder."""
    root = tmp_path_factory.mktemp("library")
    write_fixtures(root / "set", CLIPS)
    return root / "set"


@pytest.fixture(scope="module")
def serial_run(library: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The results file of one serial run over the library (read-only: a test that appends copies it)."""
    out = tmp_path_factory.mktemp("serial") / "probes.jsonl"
    probe_library_file(library, out, engine=SerialEngine())
    return out


@pytest.fixture(scope="module")
def pool_run(library: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object, object]:
    """One run over the library in a local pool of two processes: its results file, summary and stats (read-only)."""
    out = tmp_path_factory.mktemp("pool") / "probes.jsonl"
    summary, stats = probe_library_file(library, out, engine=LocalEngine(workers=2))
    return out, summary, stats


def stable(records: list[dict]) -> dict[str, dict]:
    """Records by reference without the fields that vary between runs (timings, worker pid)."""
    return {r["ref"]: {k: v for k, v in r.items() if k not in VOLATILE} for r in records}


def test_folder_run_records_each_clip_with_the_probes_results(library: Path, pool_run: tuple) -> None:
    out, summary, stats = pool_run
    records = {r["ref"]: r for r in read_results(out)}
    assert sorted(records) == [f"{n}.mp4" for n in sorted(CLIPS)]
    assert stats.written == 4 and stats.errors == 0 and summary.ok
    for name in CLIPS:
        record = records[f"{name}.mp4"]
        direct = probe_clip(library / f"{name}.mp4", ProbeOptions())
        assert record["status"] == "ok" and len(record["sha256"]) == 64
        assert {p.name: (p.passed, p.score, p.reason) for p in direct} == {
            n: (p["passed"], p["score"], p["reason"]) for n, p in record["probes"].items()
        }
        assert set(record["faults"]) == {p.name for p in direct if p.gating and not p.passed}
        assert record["timings"]["probe_s"] > 0 and record["timings"]["hash_s"] >= 0
    assert records["clean.mp4"]["faults"] == [] and records["clean.mp4"]["passed"] is True
    assert "frozen_frames" in records["frozen.mp4"]["faults"]
    assert "black_frames" in records["black.mp4"]["faults"]
    assert "scene_cuts" in records["cut.mp4"]["faults"]
    assert summary.probed == 4 and summary.faulty == 3
    assert summary.fault_counts["black_frames"] == 1 and summary.fault_counts["frozen_frames"] == 1
    assert str(library) not in out.read_text()  # no machine paths in the results


def test_a_second_run_skips_every_clip_and_changed_options_probe_again(library: Path, serial_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "probes.jsonl"
    shutil.copy(serial_run, out)  # the first run's results
    first = out.read_bytes()
    _, again = probe_library_file(library, out, engine=SerialEngine())
    assert out.read_bytes() == first
    assert again.written == 0 and again.done_before == 4
    _, other = probe_library_file(library, out, engine=SerialEngine(), options=ProbeOptions.of(black_min_frames=20))
    assert other.written == 4
    records = read_results(out)
    assert len(records) == 8 and len({r["key"] for r in records}) == 8
    assert len({r["options_hash"] for r in records}) == 2


def test_local_pool_and_serial_runs_give_the_same_records(serial_run: Path, pool_run: tuple) -> None:
    assert stable(read_results(serial_run)) == stable(read_results(pool_run[0]))


def test_manifest_lists_missing_unreadable_and_bad_entries_and_probes_the_rest(library: Path, tmp_path: Path) -> None:
    (tmp_path / "broken.mp4").write_bytes(b"\x00not a video" * 50)
    (tmp_path / "folder.mp4").mkdir()
    shutil.copy(library / "clean.mp4", tmp_path / "clean.mp4")
    manifest = tmp_path / "clips.jsonl"
    lines = [
        {"clip": "clean.mp4", "prompt": "a single shot of a red ball"},
        {"clip": "gone.mp4"},
        {"clip": "broken.mp4"},
        {"clip": "folder.mp4"},
        {"clip": "notes.txt"},
        {"clip": "a.mp4", "url": "b.mp4"},
        {"clip": "clean.mp4", "promt": "typo"},
    ]
    manifest.write_text("\n".join(json.dumps(x) for x in lines) + "\n{not json\n")
    out = tmp_path / "out.jsonl"
    summary, stats = probe_library_file(manifest, out, engine=LocalEngine(workers=2))
    by_ref = {r["ref"]: r for r in read_results(out)}
    assert by_ref["clean.mp4"]["status"] == "ok" and by_ref["clean.mp4"]["prompt"] == "a single shot of a red ball"
    errors = {ref: r["error"]["message"] for ref, r in by_ref.items() if r["status"] == "error"}
    assert "file not found" in errors["gone.mp4"]
    assert "not a decodable media file" in errors["broken.mp4"]
    assert "is a directory" in errors["folder.mp4"]
    assert "unsupported media type '.txt'" in errors["notes.txt"]
    bad = [m for m in errors.values() if "clips.jsonl line" in m]
    assert any("line 6" in m and "exactly one of" in m for m in bad)
    assert any("line 7" in m and "unknown field(s) ['promt']" in m for m in bad)
    assert any("line 8" in m and "not valid JSON" in m for m in bad)
    assert summary.probed == 1 and len(summary.errors) == 7 and not summary.ok
    assert str(tmp_path) not in out.read_text()
    # a re-run records nothing twice: errors are kept until --retry-errors
    _, again = probe_library_file(manifest, out, engine=SerialEngine())
    assert again.written == 0 and len(read_results(out)) == 8


def test_urls_are_downloaded_once_into_a_content_addressed_cache(library: Path, tmp_path: Path) -> None:
    cache = tmp_path / "downloads"
    with ClipServer(library) as server:
        manifest = tmp_path / "urls.txt"
        manifest.write_text(f"# clips over http\n{server.url}/clips/black.mp4\n{server.url}/missing/x.mp4\n"
                            f"{library / 'black.mp4'}\n")
        out = tmp_path / "out.jsonl"
        summary, stats = probe_library_file(manifest, out, engine=SerialEngine(), cache_dir=str(cache))
        records = {r["ref"]: r for r in read_results(out)}
        remote = records[f"{server.url}/clips/black.mp4"]
        assert remote["status"] == "ok" and "fetch_s" in remote["timings"]
        assert "HTTP 404" in records[f"{server.url}/missing/x.mp4"]["error"]["message"]
        blobs = list((cache / "blobs").glob("*.mp4"))
        assert [b.stem for b in blobs] == [remote["sha256"]]
        # the local copy has the same content: it is recorded once, as a duplicate of the URL
        assert stats.duplicates == [(str(library / "black.mp4"), f"{server.url}/clips/black.mp4")]
        assert len(records) == 2
        hits = len(server.requests)
        probe_library_file(manifest, tmp_path / "other.jsonl", engine=SerialEngine(), cache_dir=str(cache))
        assert server.requests[hits:] == ["/missing/x.mp4"]  # the cached clip was not downloaded again


def test_a_torn_last_line_is_cut_off_and_that_clip_probed_again(library: Path, serial_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    shutil.copy(serial_run, out)  # a finished run's results
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:3]) + lines[3][:40])  # killed mid-write of the fourth line
    with open_results(out) as opened:
        assert opened.repaired_bytes == 40 and len(opened.records) == 3
    _, stats = probe_library_file(library, out, engine=SerialEngine())
    records = read_results(out)
    assert stats.written == 1 and len(records) == 4 and len({r["ref"] for r in records}) == 4


def test_one_output_file_is_written_by_one_run_at_a_time(tmp_path: Path) -> None:
    with open_results(tmp_path / "out.jsonl"):
        with pytest.raises(BadInputError, match="another run is writing"):
            open_results(tmp_path / "out.jsonl")


def test_cli_prints_the_fault_table_and_exit_codes(library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.jsonl"
    assert cli_main(["probes", str(library), "-o", str(out), "-j", "1", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "this run: 4 probed, 0 already done, 0 could not be probed" in text
    assert "faults found in 3 of 4 clips probed" in text
    row = next(line for line in text.splitlines() if line.strip().startswith("black_frames"))
    assert row.split()[1:] == ["1", "25.0%"]
    (tmp_path / "list.txt").write_text("nowhere.mp4\n")
    assert cli_main(["probes", str(tmp_path / "list.txt"), "-o", str(tmp_path / "x.jsonl"), "--no-progress"]) == 1
    assert "nowhere.mp4: file not found" in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--probes", "frozen_frames,blak_frames"], "unknown probes ['blak_frames']"),
        (["--engine", "local", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler needs --engine dask"),
        (["--workers", "0"], "--workers must be at least 1"),
        (["--scheduler", "tcp://127.0.0.1:1", "-j", "2"], "a cluster given by --scheduler has its own workers"),
    ],
)
def test_cli_refuses_bad_arguments_naming_them(library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               extra: list[str], message: str) -> None:
    assert cli_main(["probes", str(library), "-o", str(tmp_path / "o.jsonl"), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists() or not (tmp_path / "o.jsonl").read_text()


def test_cli_refuses_an_unknown_option_in_the_options_file(library: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "opts.yaml").write_text("max_secs: 10\n")
    assert cli_main(["probes", str(library), "-o", str(tmp_path / "o.jsonl"), "--options", str(tmp_path / "opts.yaml")]) == 2
    assert "unknown option 'max_secs' for reeljudge probes --options" in capsys.readouterr().err
    assert cli_main(["probes", str(tmp_path / "nothing-here"), "-o", str(tmp_path / "o.jsonl")]) == 2
    assert "no such folder, clip or manifest" in capsys.readouterr().err


def test_a_download_that_fails_once_is_retried_and_a_404_is_not(library: Path, tmp_path: Path) -> None:
    fast = RetryPolicy(max_attempts=3, timeout_s=60, deadline_s=240, backoff_initial_s=0.01, backoff_max_s=0.02)
    with ClipServer(library) as server:
        manifest = tmp_path / "urls.txt"
        manifest.write_text(f"{server.url}/flaky/frozen.mp4\n{server.url}/missing/frozen.mp4\n")
        probe_library_file(manifest, tmp_path / "out.jsonl", engine=SerialEngine(),
                           cache_dir=str(tmp_path / "dl"), download_policy=fast)
    records = {r["ref"].split("/")[-2]: r for r in read_results(tmp_path / "out.jsonl")}
    assert records["flaky"]["status"] == "ok" and "frozen_frames" in records["flaky"]["faults"]
    assert server.requests.count("/flaky/frozen.mp4") == 2
    assert records["missing"]["error"]["message"].endswith("download failed (HTTP 404 Not Found)")
    assert server.requests.count("/missing/frozen.mp4") == 1


def test_library_downloads_go_through_the_media_resolver_and_its_download_cap(library: Path, tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REELJUDGE_MAX_DOWNLOAD_BYTES", "1000")  # the resolver's cap; the library used to ignore it
    with ClipServer(library) as server:
        manifest = tmp_path / "urls.txt"
        manifest.write_text(f"{server.url}/clips/frozen.mp4\n")
        probe_library_file(manifest, tmp_path / "out.jsonl", engine=SerialEngine(), cache_dir=str(tmp_path / "dl"))
    (record,) = read_results(tmp_path / "out.jsonl")
    assert record["status"] == "error" and "1000-byte limit" in record["error"]["message"], record


def test_retry_errors_drops_the_error_lines_and_tries_those_clips_again(library: Path, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "list.txt").write_text("late.mp4\nclean.mp4\n")
    shutil.copy(library / "clean.mp4", tmp_path / "clean.mp4")
    out = tmp_path / "out.jsonl"
    args = ["probes", str(tmp_path / "list.txt"), "-o", str(out), "-j", "1"]
    assert cli_main(args) == 1
    progress = capsys.readouterr().err
    assert "2/2" in progress and "clip" in progress  # the progress bar (tqdm) on stderr
    shutil.copy(library / "black.mp4", tmp_path / "late.mp4")  # the missing clip turns up
    assert cli_main([*args, "--no-progress"]) == 1  # its error is kept: nothing is tried twice unasked
    assert "this run: 0 probed, 2 already done" in capsys.readouterr().out
    assert cli_main([*args, "--no-progress", "--retry-errors"]) == 0
    records = read_results(out)
    assert [(r["ref"], r["status"]) for r in records] == [("clean.mp4", "ok"), ("late.mp4", "ok")]
    assert "black_frames" in records[1]["faults"]
