"""The committed promptfoo suite matches its dataset, and the configs point at files that exist."""


import yaml

from support.paths import ROOT


def test_filmability_suite_is_in_sync_with_the_dataset():
    import importlib.util

    spec = importlib.util.spec_from_file_location("build", ROOT / "scripts" / "build_filmability_suite.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    dataset = yaml.safe_load((ROOT / "datasets" / "narrations.yaml").read_text())
    assert len(dataset) >= 25
    assert (ROOT / "tests" / "suites" / "filmability.yaml").read_text() == build.render(dataset), (
        "run scripts/build_filmability_suite.py after editing datasets/narrations.yaml"
    )


def test_every_file_reference_in_the_configs_exists():
    configs = sorted(ROOT.glob("promptfooconfig*.yaml"))
    refs = [(config, w.split("file://", 1)[1].split(":")[0].strip("'\"")) for config in configs
            for w in config.read_text().split() if "file://" in w]
    assert ROOT / "promptfooconfig.yaml" in configs and len(refs) >= len(configs), refs  # there were references to check
    for config, ref in refs:
        assert (ROOT / ref).exists(), f"{config.name} names {ref}, which does not exist"
