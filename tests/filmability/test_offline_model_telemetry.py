"""The offline judge's embedding model runs on onnxruntime, which from 1.31 on Linux keeps a device id in
``~/.cache/Microsoft/DeveloperTools/.onnxruntime`` and uploads usage events to mobile.events.data.microsoft.com a few
seconds into a process's life (seen from the warm worker behind a recording proxy; issue 45, item 5). The model is
loaded with ``ORT_DISABLE_TELEMETRY=1`` unless the user set it: no device id is written, so nothing is kept to send.
Checked in a Python process of its own (onnxruntime reads the variable when it is first imported), with a HOME of its own.
"""

from __future__ import annotations

import os
import subprocess
import sys

LOAD = """
import os
from reeljudge.filmability.embeddings import MiniLMOnnxEmbedder
vectors = MiniLMOnnxEmbedder().embed(["a red ball rolls past a textured wall"])
print(vectors.shape, os.environ.get("ORT_DISABLE_TELEMETRY"))
"""


def load_model(home: str, **extra: str) -> str:
    """Load and run the model in a new Python process whose HOME is ``home``; what it printed."""
    env = {k: v for k, v in os.environ.items() if k not in ("ORT_DISABLE_TELEMETRY", "XDG_CACHE_HOME")}
    proc = subprocess.run([sys.executable, "-c", LOAD], env={**env, "HOME": home, **extra}, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip()


def test_the_offline_model_loads_with_onnxruntime_telemetry_off_and_keeps_no_device_id(tmp_path):
    assert load_model(str(tmp_path)) == "(1, 384) 1"
    assert not (tmp_path / ".cache" / "Microsoft").exists(), sorted(p.name for p in tmp_path.rglob("*"))


def test_a_users_own_setting_is_kept(tmp_path):
    assert load_model(str(tmp_path), ORT_DISABLE_TELEMETRY="0").endswith(" 0")
