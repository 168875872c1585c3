"""Cost estimates for judge calls, from published per-million-token list prices (USD).

Prices change: these are list prices for paid-tier text/image/video input at ≤200k-token
prompts, as published by Google in 2025–2026. Unknown models get no estimate (None), never a guess.
"""

from __future__ import annotations

# model prefix -> (input $/1M tokens, output $/1M tokens incl. thinking)
PRICES_PER_MILLION: dict[str, tuple[float, float]] = {
    "gemini-2.5-flash-lite": (0.10, 0.40),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-pro": (1.25, 10.00),
    "gemini-2.0-flash-lite": (0.075, 0.30),
    "gemini-2.0-flash": (0.10, 0.40),
}


#: the Batch API bills every token at half the online price (Google's published batch pricing)
BATCH_PRICE_FACTOR = 0.5


def price_for(model: str) -> tuple[float, float] | None:
    """The (input, output) price per million tokens for the longest matching model prefix."""
    name = model.rsplit("/", 1)[-1]
    for prefix in sorted(PRICES_PER_MILLION, key=len, reverse=True):
        if name.startswith(prefix):
            return PRICES_PER_MILLION[prefix]
    return None


def estimate_cost(model: str, prompt_tokens: int, output_tokens: int, *, batch: bool = False) -> float | None:
    """Estimated USD cost of one call (``batch``: through the Batch API), or None when the model's price is unknown."""
    price = price_for(model)
    if price is None:
        return None
    online = (prompt_tokens * price[0] + output_tokens * price[1]) / 1_000_000
    return online * BATCH_PRICE_FACTOR if batch else online


# Video generation (Veo) is priced per second of generated video. List prices (USD per second,
# 720p/1080p, with audio where the model makes it) published by Google in 2025–2026 for the Gemini
# API and Vertex AI; 4K output costs more and gets no estimate here.
VIDEO_PRICES_PER_SECOND: dict[str, float] = {
    "veo-3.1-fast-generate": 0.15,
    "veo-3.1-generate": 0.40,
    "veo-3.0-fast-generate": 0.15,
    "veo-3.0-generate": 0.40,
    "veo-2.0-generate": 0.35,
}
VIDEO_PRICED_RESOLUTIONS = frozenset({None, "", "720p", "1080p"})


def video_price_for(model: str) -> float | None:
    """The USD price per generated second for the longest matching Veo model prefix, or None."""
    name = model.rsplit("/", 1)[-1]
    for prefix in sorted(VIDEO_PRICES_PER_SECOND, key=len, reverse=True):
        if name.startswith(prefix):
            return VIDEO_PRICES_PER_SECOND[prefix]
    return None


def estimate_video_cost(model: str, seconds: float, resolution: str | None = None) -> float | None:
    """Estimated USD cost of ``seconds`` of generated video, or None when model or resolution is unpriced."""
    price = video_price_for(model)
    if price is None or (resolution or "").lower() not in VIDEO_PRICED_RESOLUTIONS:
        return None
    return round(price * seconds, 6)
