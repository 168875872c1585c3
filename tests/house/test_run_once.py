"""What the test run builds once: per run, and per checkout for what only its inputs decide."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import offline_judge, run_once


def counting_build(calls: list[str]):
    """A build that writes a file into its folder and counts its calls."""

    def build(folder: Path) -> str:
        calls.append(folder.name)
        (folder / "made").write_text(str(len(calls)))
        return str(folder)

    return build


def test_a_kept_store_is_built_once_per_key_and_a_new_key_replaces_the_old(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_once, "KEEP_DIR", str(tmp_path / "keep"))
    calls: list[str] = []
    build = counting_build(calls)
    first = run_once.once_per_checkout(tmp_path_factory, "store", "aaaa", build)
    again = run_once.once_per_checkout(tmp_path_factory, "store", "aaaa", build)  # a later run: read, not built
    assert first == again and calls == ["store-aaaa"] and Path(first).parent == tmp_path / "keep"
    other = run_once.once_per_checkout(tmp_path_factory, "store", "bbbb", build)  # an input changed
    assert calls == ["store-aaaa", "store-bbbb"] and (Path(other) / "made").read_text() == "2"
    assert sorted(p.name for p in (tmp_path / "keep").iterdir()) == ["store-bbbb", "store-bbbb.pickle", "store.lock"]


def test_without_a_keep_folder_the_store_is_built_once_for_the_run(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_once, "KEEP_DIR", None)
    calls: list[str] = []
    name = f"store-{id(calls)}"
    first = run_once.once_per_checkout(tmp_path_factory, name, "aaaa", counting_build(calls))
    assert calls == [name] and Path(first).parent == run_once.shared_root(tmp_path_factory)


def test_the_offline_judge_store_key_follows_its_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    key = offline_judge.inputs_digest()
    assert key == offline_judge.inputs_digest() and len(key) == 16
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "9.9" if name == "onnxruntime" else real(name))
    assert offline_judge.inputs_digest() != key  # another runtime release: the bank is embedded anew
