"""Untrusted text (narrations, prompts, search terms) packed as delimited data for a judge."""

from __future__ import annotations

import json


def neutralise(text: str) -> str:
    """Text with angle brackets escaped, so it cannot open or close a data block."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def data_block(tag: str, text: str) -> str:
    """``text`` inside ``<tag>…</tag>``, escaped so nothing in it can end the block early."""
    return f"<{tag}>\n{neutralise(text)}\n</{tag}>"


def json_block(tag: str, value: object) -> str:
    """A JSON value inside ``<tag>…</tag>``, escaped the same way."""
    return data_block(tag, json.dumps(value, ensure_ascii=False))
