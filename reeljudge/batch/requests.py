"""A planned request made sendable again: the same ``JudgeRequest``, settings, contents and
generation config as the online path builds (``reeljudge.gemini.wire``), then google-genai's own
batch request form, inline or as one JSONL line.

The cache key is recomputed from the rebuilt request and must equal the planned key, so a reply
is only ever stored where the online path will look for it. Local media is delivered here: read
and sent inline, or uploaded once per content hash through the Files API (``gemini.files``),
after checking that the file still has the content that was planned.
"""

from __future__ import annotations

import base64
import dataclasses
import json
from pathlib import Path
from typing import Any

from reeljudge.cache import request_key
from reeljudge.errors import JudgeError, MediaError
from reeljudge.gemini import wire
from reeljudge.gemini.client import JudgeClient
from reeljudge.gemini.request import JudgeRequest, MediaInput
from reeljudge.gemini.settings import JudgeSettings


class ItemProblem(Exception):
    """One planned request cannot be sent. ``stale``: it never can be (its record is damaged, or its
    file changed, so the eval now asks a different request): it is dropped, and the next eval in
    plan mode plans what it needs; otherwise (a file missing, an upload failed) it stays planned."""

    def __init__(self, message: str, *, stale: bool = False) -> None:
        super().__init__(message)
        self.stale = stale


def rebuild(record: dict[str, Any], base: JudgeSettings) -> tuple[JudgeRequest, JudgeSettings]:
    """The request and settings a planned record describes; ItemProblem if the key does not match."""
    body, generation = record["request"], record.get("generation") or {}
    try:
        settings = dataclasses.replace(
            base, model=record["model"], temperature=generation["temperature"],
            thinking_budget=generation["thinking_budget"], max_output_tokens=generation["max_output_tokens"],
        )
        parts = tuple(p if isinstance(p, str) else _media(p["media"]) for p in body["parts"])
        request = JudgeRequest(kind=record["kind"], system=body["system"], parts=parts, schema=body.get("schema"),
                               media_resolution=body.get("media_resolution"), response_logprobs=bool(body.get("logprobs")))
    except (KeyError, TypeError) as error:
        raise ItemProblem(f"the planned record is damaged (missing {error})", stale=True) from None
    if request_key(request.cache_payload(settings)) != record["key"]:
        raise ItemProblem("the planned record does not hash to its key (edited or damaged)", stale=True)
    return request, settings


def _media(item: dict[str, Any]) -> MediaInput:
    data = base64.b64decode(item["data_b64"]) if item.get("data_b64") else None
    return MediaInput(item["sha256"], item["mime_type"], file_uri=item.get("file_uri"), data=data, fps=item.get("fps"),
                      start_offset_s=item.get("start_offset_s"), end_offset_s=item.get("end_offset_s"),
                      local_path=item.get("local_path"), upload=bool(item.get("upload")))


class MediaDelivery:
    """Local media of planned requests, made sendable: inline bytes, or an uploaded file's URI (per content hash)."""

    def __init__(self, client: JudgeClient) -> None:
        self.client = client
        self._uris: dict[str, str] = {}

    def deliver(self, request: JudgeRequest) -> JudgeRequest:
        """``request`` with every local media part replaced by bytes or an uploaded URI."""
        if not any(isinstance(p, MediaInput) and p.local_path for p in request.parts):
            return request
        parts = tuple(self._part(p) if isinstance(p, MediaInput) and p.local_path else p for p in request.parts)
        return dataclasses.replace(request, parts=parts)

    def _part(self, media: MediaInput) -> MediaInput:
        from reeljudge.gemini.files import FileUploads
        from reeljudge.media.refs import content_ref, resolve_media

        path = Path(str(media.local_path))
        try:
            ref = content_ref(resolve_media(str(path)), self.client.cache)
        except MediaError as error:
            raise ItemProblem(f"{path}: {error.message}") from None
        if ref.sha256 != media.sha256:
            raise ItemProblem(f"{path} changed since it was planned (sha256 {ref.sha256[:12]}…, planned "
                              f"{media.sha256[:12]}…)", stale=True)
        located = dataclasses.replace(media, local_path=None, upload=False)
        if not media.upload:
            return dataclasses.replace(located, data=path.read_bytes())
        if media.sha256 not in self._uris:
            try:
                self._uris[media.sha256] = FileUploads(self.client).uri_for(ref)
            except (JudgeError, MediaError) as error:
                raise ItemProblem(f"{path}: upload failed: {error.message}") from None
        return dataclasses.replace(located, file_uri=self._uris[media.sha256])


def contents_of(request: JudgeRequest, record: dict[str, Any]) -> list[dict[str, Any]]:
    """The conversation to send: the user turn, then any follow-up turns (a reply fed back once)."""
    contents = [wire.user_content(request.parts)]
    for turn in record.get("turns") or []:
        contents.append({"role": turn["role"], "parts": [{"text": turn["text"]}]})
    return contents


def inlined_request(record: dict[str, Any], request: JudgeRequest, settings: JudgeSettings) -> Any:
    """google-genai's ``InlinedRequest`` for one planned request, tagged with its cache key."""
    from google.genai import types

    config = wire.generation_config(request, settings, settings.timeout_s).model_copy(update={"http_options": None})
    return types.InlinedRequest(contents=contents_of(request, record), config=config, metadata={"key": record["key"]})


class JsonlLines:
    """Batch input file lines ``{"key", "request"}`` in the REST form google-genai itself sends inline.

    google-genai's own converters (``batches._InlinedRequest_to_mldev``) turn each request into
    its wire form. The generation config (system text, JSON Schema, settings) is the same for every
    request of one kind and is converted once; each line converts only its contents.
    """

    def __init__(self, api_client: Any) -> None:
        try:
            from google.genai import _common, _transformers
            from google.genai.batches import _Content_to_mldev, _InlinedRequest_to_mldev
        except ImportError as error:  # pragma: no cover - a google-genai without these helpers
            raise JudgeError(f"this google-genai cannot write batch input files ({error}); use --source inline",
                             kind="api_error") from None
        self._api, self._common, self._contents = api_client, _common, _transformers.t_contents
        self._convert_request, self._convert_content = _InlinedRequest_to_mldev, _Content_to_mldev
        self._templates: dict[str, dict[str, Any]] = {}

    def line(self, record: dict[str, Any], inlined: Any) -> str:
        """The JSONL line of one request (``inlined``: its ``InlinedRequest``; ``record``: its plan)."""
        from google.genai import types

        body = record["request"]
        token = json.dumps([record["model"], record.get("generation"), body.get("system"), body.get("schema"),
                            body.get("media_resolution"), body.get("logprobs")], sort_keys=True, default=str)
        template = self._templates.get(token)
        if template is None:
            empty = types.InlinedRequest(contents=[{"role": "user", "parts": [{"text": "-"}]}], config=inlined.config)
            converted = self._rest(self._convert_request(self._api, empty))["request"]
            template = self._templates[token] = {k: v for k, v in converted.items() if k != "contents"}
        contents = self._rest({"contents": [self._convert_content(c) for c in self._contents(inlined.contents)]})["contents"]
        request = {"contents": contents, **template}
        return json.dumps({"key": record["key"], "request": request}, ensure_ascii=False, separators=(",", ":"))

    def _rest(self, value: Any) -> Any:
        return self._common.encode_unserializable_types(self._common.convert_to_dict(value))
