"""What a text is when it is not prose: an HTML page (a generator's error page), other markup, or a number.

A generator that failed often returns its server's error page, and a test var can hold a number; judged as
words they read as "not English", which sends the user looking at languages. ``not_prose`` names them.
"""

from __future__ import annotations

import html
import re

_NUMBER = re.compile(r"^[-+−]?(?:\d{1,3}(?:[,\s]\d{3})+|\d+)?(?:[.,]\d+)?(?:e[-+]?\d+)?\s*%?$", re.IGNORECASE)
_HTML_START = re.compile(r"^\s*(?:<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>])", re.IGNORECASE)
_HTML_TAG = re.compile(r"</?(?:html|head|body|title|div|p|h[1-6]|center|hr|pre|table|script|style|meta)(?:\s[^<>]*)?/?>",
                       re.IGNORECASE)
_ANY_TAG = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")
#: a page's title or first heading: the opening tag (it cannot run past another tag), then its own closing tag, looked
#: up once from there: linear in the text, where one pattern with a lazy body was quadratic on repeated unclosed tags
_TITLE_OPEN = re.compile(r"<(title|h1)[^<>]*>", re.IGNORECASE)
_TITLE_CLOSE = {"title": re.compile(r"</title>", re.IGNORECASE), "h1": re.compile(r"</h1>", re.IGNORECASE)}


def is_number(text: str) -> bool:
    """Whether ``text`` is a number (``42``, ``-3.5``, ``1,200``, ``12 %``) and nothing else."""
    stripped = text.strip()
    return bool(stripped) and any(c.isdigit() for c in stripped) and bool(_NUMBER.match(stripped))


def _page_title(text: str) -> str:
    """An HTML page's title (or first heading), tags and spacing removed; empty when it has none."""
    inner = None
    closed: set[str] = set()  # a tag with no closing tag after its first opening has none after a later one either
    for opening in _TITLE_OPEN.finditer(text):
        name = opening.group(1).lower()
        if name in closed:
            continue
        closing = _TITLE_CLOSE[name].search(text, opening.end())
        if closing:
            inner = text[opening.end():closing.start()]
            break
        closed.add(name)
        if len(closed) == 2:
            break
    if not inner:
        return ""
    inner = _ANY_TAG.sub(" ", inner)
    return re.sub(r"\s+", " ", html.unescape(inner)).strip()[:80]


def not_prose(text: str) -> str | None:
    """What ``text`` is when it is an HTML page, other markup or a number (e.g. ``an HTML page titled '502 Bad
    Gateway' (an error page?)``); None for anything else."""
    stripped = text.strip()
    if not stripped:
        return None
    if is_number(stripped):
        return f"a number ({stripped[:40]})"
    tags = _ANY_TAG.findall(stripped)
    if _HTML_START.match(stripped) or (not stripped.startswith("<?xml") and len(_HTML_TAG.findall(stripped)) >= 2):
        title = _page_title(stripped)
        return f"an HTML page titled {title!r} (an error page?)" if title else "an HTML page (an error page?)"
    markup = sum(len(t) for t in tags)
    if stripped.startswith("<?xml") or (len(tags) >= 2 and markup * 3 >= len(stripped)):
        return "XML or other markup"
    return None
