"""Which clip or image a test is about: the documented order over promptfoo's response shapes, the
wing's upper floor.

The wing has two floors. Its lower floor (``context``, ``results``, ``identity``, ``results_file``)
sits below the media layer and knows only promptfoo. This module sits one floor above the media
layer: it needs media facts (media types, carrier names, blob and media-store schemes) to read a
response's ``video`` object or a markdown link, and hands what it found to the media resolver as a
``Candidate``, which the resolver opens through its carrier (``reeljudge.media.resolver``); the
media layer itself knows only carriers and files and nothing of promptfoo.

The order (the first that names something wins):

1. the assertion's ``var``, when set (a var the test wrote as ``file://clip.mp4`` reaches an assertion
   as the file's contents, base64 or a ``data:`` URI, which promptfoo read from its config folder:
   those exact bytes are judged, named by the test's own reference);
2. the provider response: our providers' clip (``metadata.clip_path``, the original file whose viewer
   copy is their ``video`` object), else the response's ``video`` / ``image`` object — its
   ``blobRef`` (promptfoo's Veo), ``storageRef`` (Sora, Azure), else ``url`` — else its ``images``
   list (promptfoo's image providers; several different images are ambiguous and refused);
3. a markdown image or media link in the output (``![…](…)``, ``[Video: …](…)``); two different
   ones are ambiguous and refused (name the clip with ``var``);
4. a var in the default list (``CLIP_VARS``);
5. a one-line output that is a path, URL or URI.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from reeljudge.errors import BadInputError, MediaError
from reeljudge.media.carriers import Where, carrier_of
from reeljudge.media.refs import IMAGE_MIME, VIDEO_MIME, MediaKind, mime_type, short
from reeljudge.media.resolver import Candidate, Located, open_candidate
from reeljudge.media.stores import BLOB_SCHEME, STORAGE_REF_SCHEME
from reeljudge.promptfoo.context import TestContext

if TYPE_CHECKING:  # the judge cache loads only when a large file's hash is remembered
    from reeljudge.cache import JudgeCache

#: vars that name a clip when the assertion names none and the provider response carries none
CLIP_VARS: tuple[str, ...] = ("video", "clip")
_MARKDOWN = re.compile(r"(!?)\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
_MEDIA_SUFFIXES = frozenset({*VIDEO_MIME, *IMAGE_MIME})


def locate_media(ctx: TestContext, output: Any, *, var: str | None, kinds: Iterable[MediaKind],
                 base_dir: str | Path | None = None, memo: JudgeCache | None = None) -> Located:
    """The clip or image of a test, found in the documented order and opened; BadInputError when the test names
    none, MediaError naming where it was found, the carrier and the problem when it cannot be used.
    ``memo``: the judge's cache, which remembers a large file's hash (None: the environment's)."""
    allowed = tuple(kinds)
    candidate = find_reference(ctx, output, var=var, kinds=allowed)
    return open_candidate(candidate, allowed, Where(base_dir=Path(base_dir) if base_dir else None, memo=memo))


def var_candidate(ctx: TestContext, name: str, value: Any) -> Candidate:
    """The reference in var ``name`` (its rendered ``value``). A var the test wrote as ``file://…`` naming a video
    or image arrives as promptfoo loaded it: raw base64 (video), a ``data:`` URI (image); those bytes are the
    media, read through the ``data:`` carrier under the test's own reference (no second look-up of the path,
    which promptfoo resolved from its config folder)."""
    text = str(value).strip()
    written = ctx.written(name)
    try:
        mime = mime_type(written) if written.lower().startswith("file://") and written != text else ""
    except MediaError:  # not a video or image
        mime = ""
    if not mime:
        return Candidate(text, f"var {name!r}")  # as rendered: also what a file://script.py or .txt var produced
    origin = f"var {name!r} (written {short(written, 200)!r}, loaded by promptfoo)"
    return Candidate(text if text.lower().startswith("data:") else f"data:{mime};base64,{text}", origin, written=written)


def find_reference(ctx: TestContext, output: Any, *, var: str | None,
                   kinds: tuple[MediaKind, ...] = ("video", "image")) -> Candidate:
    """Which reference names the test's media, in the documented order; BadInputError when nothing does."""
    if var:
        return var_candidate(ctx, var, ctx.require_var(var))
    found = response_reference(ctx.provider_response, output, kinds, one_line=False)
    if found is not None:
        return found
    for name in CLIP_VARS:
        value = ctx.vars.get(name)
        if isinstance(value, str) and value.strip():
            return var_candidate(ctx, name, value)
    one_line = _one_line(output)
    if one_line is not None:
        return one_line
    raise BadInputError(
        f"test {ctx.label!r} names no clip or image: the provider response carries no video or image object or media link, "
        f"and there is no var {' or '.join(map(repr, CLIP_VARS))}; set the assertion's `var`, or use a provider that makes media"
    )


def response_reference(response: Mapping[str, Any], output: Any, kinds: tuple[MediaKind, ...] = ("video", "image"),
                       *, one_line: bool = True) -> Candidate | None:
    """The media a provider response carries (steps 2–3, and 5 when ``one_line``), or None; MediaError when its
    output has two different media links."""
    metadata = response.get("metadata")
    if isinstance(metadata, Mapping) and metadata.get("clip_path"):
        return Candidate(str(metadata["clip_path"]), "the provider's clip (metadata.clip_path)")
    for key in ("video", "image"):
        found = _media_object(response.get(key), key) if key in kinds else None
        if found is not None:
            return found
    found = _images_list(response.get("images")) if "image" in kinds else None
    if found is not None:
        return found
    text = output if output is not None else response.get("output")
    found = markdown_reference(text if isinstance(text, str) else "")
    if found is None and one_line:
        found = _one_line(text)
    return found


def _media_object(obj: Any, key: str) -> Candidate | None:
    """The reference in a response's ``video`` / ``image`` object: blobRef, else storageRef, else url."""
    if not isinstance(obj, Mapping):
        return None
    blob = obj.get("blobRef")
    if isinstance(blob, Mapping) and (blob.get("uri") or blob.get("hash")):
        uri = str(blob.get("uri") or f"{BLOB_SCHEME}{blob.get('hash')}")
        return Candidate(uri, f"the provider response's {key}.blobRef", str(blob.get("mimeType") or ""))
    storage = obj.get("storageRef")
    if isinstance(storage, Mapping) and storage.get("key"):
        return Candidate(f"{STORAGE_REF_SCHEME}{storage['key']}", f"the provider response's {key}.storageRef")
    url = obj.get("url")
    if isinstance(url, str) and url.strip():
        return Candidate(url.strip(), f"the provider response's {key}.url")
    return None


def _images_list(images: Any) -> Candidate | None:
    """The one image of a response's ``images`` list (promptfoo's image providers: ``[{data, mimeType}]``), or None;
    MediaError when it holds several different images."""
    if not isinstance(images, list):
        return None
    entries = [e for e in images if isinstance(e, Mapping) and isinstance(e.get("data"), str) and e["data"].strip()]
    distinct = list(dict.fromkeys(e["data"].strip() for e in entries))
    if len(distinct) > 1:
        raise MediaError(f"the provider response has {len(distinct)} different images: which one is ambiguous; "
                         "generate one image per test (n: 1), or name the image with the assertion's `var`")
    if not distinct:
        return None
    return Candidate(distinct[0], "the provider response's images[0]", str(entries[0].get("mimeType") or ""))


def markdown_reference(text: str) -> Candidate | None:
    """The one media link or image in markdown ``text``, or None; MediaError when there are two different ones."""
    targets: list[str] = []
    for bang, target in _MARKDOWN.findall(text or ""):
        if (bang or _is_media_target(target)) and target not in targets:
            targets.append(target)
    if len(targets) > 1:
        listed = ", ".join(short(t, 48) for t in targets[:4])
        raise MediaError(f"the provider output has {len(targets)} different media links ({listed}): which one is ambiguous; "
                         "name the clip with the assertion's `var`")
    return Candidate(targets[0], "a markdown link in the provider output") if targets else None


def _is_media_target(target: str) -> bool:
    """Whether a markdown link target names media: a store reference, a data: URI, or a media file name."""
    if carrier_of(target) in ("promptfoo-blob", "media-store", "data-uri"):
        return True
    return Path(target.split("?", 1)[0].split("#", 1)[0]).suffix.lower() in _MEDIA_SUFFIXES


def _one_line(output: Any) -> Candidate | None:
    """A one-line provider output, taken as a path, URL or URI."""
    if isinstance(output, str) and output.strip() and "\n" not in output.strip():
        return Candidate(output.strip(), "the provider output")
    return None
