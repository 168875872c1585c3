"""One Veo operation on the wire: start it, wait for it, fetch its video; all under the one retry policy.

google-genai 3.4 refuses ``models.generate_videos`` on the Developer API (its README: only Vertex
supports video generation), while the service itself still takes ``:predictLongRunning`` there. On
that backend the start request goes through the SDK's own transport (same key, base URL, API version
and error types); polling and download use the public ``operations.get`` and ``files.download``.
A start that timed out is never retried: an operation may have been created (and billed) already.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping

from reeljudge.errors import JudgeError
from reeljudge.gemini.settings import JudgeSettings
from reeljudge.gemini.wire import classify_error
from reeljudge.providers.veo.settings import VeoSettings
from reeljudge.retry import GaveUp, Problem, call, poll


class OperationGone(Exception):
    """A remembered operation the server no longer knows (it is started anew)."""


class VeoOperations:
    """Starts, waits for and downloads Veo operations for one set of settings."""

    def __init__(self, veo: VeoSettings, transport: JudgeSettings, genai: Callable[[], Any]) -> None:
        self.veo = veo
        self.transport = transport
        self.genai = genai

    def _classify(self, exc: BaseException) -> Problem:
        return classify_error(exc, self.transport.timeout_s)

    def start(self, prompt: str) -> Any:
        """The started operation; 429/5xx retried up to max_attempts, never a timed-out start."""

        def no_timeouts(exc: BaseException) -> Problem:
            problem = self._classify(exc)
            return replace(problem, retryable=False) if problem.timed_out else problem

        try:
            return call(lambda _t: self._start_once(prompt), self.transport.retry, no_timeouts)[0]
        except GaveUp as gave_up:
            if isinstance(gave_up.__cause__, JudgeError):
                raise gave_up.__cause__ from None
            if gave_up.problem.timed_out:
                raise JudgeError(
                    f"starting the Veo operation failed: {gave_up.problem.text}; an operation may have been created "
                    "(and billed) without its name reaching us",
                    kind="timeout",
                ) from None
            tries = f" after {gave_up.attempts} attempts" if gave_up.attempts > 1 else ""
            raise JudgeError(f"Veo rejected the request{tries}: {gave_up.problem.text}", kind="api_error") from None

    def _start_once(self, prompt: str) -> Any:
        """One ``:predictLongRunning`` request, as the backend in force takes it."""
        from google.genai import types

        client = self.genai()
        if self.transport.resolved_backend == "vertex":
            config = {name: value for name, value in self.veo.generation_fingerprint().items() if name != "model"}
            return client.models.generate_videos(
                model=self.veo.model,
                source=types.GenerateVideosSource(prompt=prompt),
                config=types.GenerateVideosConfig(**{k: v for k, v in config.items() if v is not None}),
            )
        api = getattr(client, "_api_client", None)
        if api is None or not hasattr(api, "request"):
            raise JudgeError(
                "this google-genai version offers no way to start a Veo operation on the Developer API; "
                "use the Vertex backend (GOOGLE_GENAI_USE_VERTEXAI=true)",
                kind="api_error",
            )
        body = {"instances": [{"prompt": prompt}], "parameters": self.veo.parameters()}
        response = api.request("post", f"{model_path(self.veo.model)}:predictLongRunning", body, None)
        payload = json.loads(response.body) if response.body else {}
        operation = types.GenerateVideosOperation.from_api_response(payload, is_vertex_ai=False)
        if not operation.name:
            raise JudgeError(f"the start request returned no operation name: {str(payload)[:300]}", kind="api_error")
        return operation

    def wait(self, operation: Any, deadline: float, *, resuming: bool = False) -> tuple[Any, int]:
        """The finished operation and the number of polls; JudgeError when the deadline passes or polling keeps failing.

        When ``resuming`` a remembered operation, the first poll is immediate, and an operation the
        server rejects before any successful poll (expired, unknown) raises ``OperationGone``.
        """
        fetch = lambda _t: self.genai().operations.get(operation)  # noqa: E731
        polls = 0
        try:
            if resuming:
                try:
                    operation = call(fetch, self.transport.retry, self._classify, deadline=deadline)[0]
                except GaveUp as gave_up:
                    if gave_up.why == "not retryable":
                        raise OperationGone(gave_up.problem.text) from None
                    raise
                polls = 1
            fetch = lambda _t: self.genai().operations.get(operation)  # noqa: E731
            operation, more = poll(fetch, lambda op: bool(op.done), self.transport.retry, self._classify,
                                   interval_s=self.veo.poll_interval_s, deadline=deadline, first=operation)
        except GaveUp as gave_up:
            raise self._wait_error(operation, gave_up, polls) from None
        return operation, polls + more

    def _wait_error(self, operation: Any, gave_up: GaveUp, polls: int) -> JudgeError:
        """What a failed wait says: the deadline passed, or polling kept failing; both resumable."""
        if gave_up.problem.timed_out and gave_up.why == "deadline":
            return JudgeError(
                f"deadline of {self.veo.deadline_s:g} s passed while polling Veo operation {operation.name} "
                f"({polls + gave_up.attempts} polls, not done); it may still finish: re-run to resume polling it, "
                "or raise deadline_s",
                kind="timeout",
            )
        return JudgeError(
            f"polling Veo operation {operation.name} failed ({gave_up.attempts} time(s) in a row): {gave_up.problem.text}; "
            "re-run to resume polling it",
            kind="api_error",
        )

    def download(self, video: Any, destination: Path, operation: str) -> None:
        """Stream a Files-API video to ``destination`` under the retry policy."""
        uri = str(getattr(video, "uri", None) or "")
        match = re.search(r"files/([A-Za-z0-9_-]+)", uri)
        if uri.startswith("gs://") or match is None:
            raise JudgeError(
                f"operation {operation} put its video at {uri or '(no URI)'}, which reeljudge cannot fetch "
                "(it reads inline bytes and Files API downloads)",
                kind="download_failed",
            )
        once = lambda _t: self.genai().files.download(file=f"files/{match.group(1)}", destination=str(destination))  # noqa: E731
        try:
            call(once, self.transport.retry, self._classify)
        except GaveUp as gave_up:
            raise JudgeError(
                f"downloading the video of operation {operation} ({uri}) failed: {gave_up.problem.text}",
                kind="download_failed",
            ) from None


def the_video(operation: Any) -> Any:
    """The one generated video of a finished operation; JudgeError saying why there is none."""
    name = operation.name
    error = operation.error
    if error:
        code = error.get("code", "?") if isinstance(error, Mapping) else "?"
        message = error.get("message", error) if isinstance(error, Mapping) else error
        raise JudgeError(f"Veo operation {name} failed (code {code}): {message}", kind="operation_error")
    result = operation.response or operation.result
    videos = list(getattr(result, "generated_videos", None) or [])
    if videos and videos[0].video is not None:
        return videos[0].video
    filtered = getattr(result, "rai_media_filtered_count", None)
    reasons = list(getattr(result, "rai_media_filtered_reasons", None) or [])
    if filtered or reasons:
        raise JudgeError(
            f"Veo operation {name} finished without a video: {filtered or len(reasons)} filtered by the "
            f"responsible-AI filter ({'; '.join(reasons) or 'no reason given'})",
            kind="filtered",
        )
    raise JudgeError(f"Veo operation {name} finished with no video and no filter reason", kind="empty")


def model_path(model: str) -> str:
    """The ``models/{id}`` resource path of a model id."""
    return model if model.startswith(("models/", "tunedModels/")) else f"models/{model}"
