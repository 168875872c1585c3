"""The fake server's Batch API, driven by the real google-genai client: what the SDK sends is what the
fake reads, and what the fake answers is what the SDK parses (states, inline and file output, paging)."""

from __future__ import annotations

import json

import pytest
from google import genai
from google.genai import errors, types

from support.fake_gemini import error_reply, json_reply


@pytest.fixture
def sdk(fake):
    return genai.Client(api_key="test-key-not-real", http_options={"base_url": fake.url, "api_version": "v1beta"})


def inline(text: str, key: str) -> types.InlinedRequest:
    return types.InlinedRequest(contents=[{"role": "user", "parts": [{"text": text}]}], metadata={"key": key},
                                config=types.GenerateContentConfig(system_instruction="judge", temperature=0))


def test_an_inline_job_goes_pending_running_succeeded_with_per_item_results(fake, sdk):
    fake.on("hello", json_reply({"ok": True}, prompt_tokens=7, output_tokens=3))
    fake.batches.script("SUCCEEDED", polls_before_done=2, item_errors={1: error_reply(500, "item broke")})
    job = sdk.batches.create(model="gemini-2.5-flash", src=[inline("hello a", "k1"), inline("hello b", "k2")],
                             config={"display_name": "reeljudge-test"})
    assert job.name.startswith("batches/") and job.state.name == "JOB_STATE_PENDING" and job.display_name == "reeljudge-test"
    [create] = fake.batches.creates()
    sent = create.body["batch"]["inputConfig"]["requests"]["requests"][0]
    assert sent["metadata"] == {"key": "k1"} and sent["request"]["systemInstruction"]["parts"][0]["text"] == "judge"
    states = [sdk.batches.get(name=job.name).state.name for _ in range(3)]
    assert states == ["JOB_STATE_RUNNING", "JOB_STATE_RUNNING", "JOB_STATE_SUCCEEDED"]
    done = sdk.batches.get(name=job.name)
    first, second = done.dest.inlined_responses
    assert first.metadata == {"key": "k1"} and json.loads(first.response.text) == {"ok": True}
    assert first.response.usage_metadata.prompt_token_count == 7
    assert second.response is None and second.error.code == 500 and "item broke" in second.error.message


def test_a_file_job_reads_jsonl_input_and_answers_with_a_downloadable_results_file(fake, sdk, tmp_path):
    fake.on("hello", json_reply({"ok": 1}))
    lines = [{"key": f"k{n}", "request": {"contents": [{"role": "user", "parts": [{"text": f"hello {n}"}]}]}} for n in range(3)]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    uploaded = sdk.files.upload(file=str(source), config={"mime_type": "application/jsonl"})
    fake.batches.script("SUCCEEDED", polls_before_done=0, drop={2}, extra_results=[{"key": "stranger", "error": {"code": 3}}])
    job = sdk.batches.create(model="gemini-2.5-flash", src=uploaded.name)
    done = sdk.batches.get(name=job.name)
    assert done.state.name == "JOB_STATE_SUCCEEDED" and done.dest.file_name.startswith("files/")
    out = tmp_path / "out.jsonl"
    sdk.files.download(file=done.dest.file_name, destination=str(out))
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["key"] for r in results] == ["k0", "k1", "stranger"]
    assert results[0]["response"]["candidates"][0]["content"]["parts"][0]["text"] == '{"ok": 1}'


@pytest.mark.parametrize("final", ["FAILED", "EXPIRED"])
def test_a_job_can_end_failed_or_expired_without_output(fake, sdk, final):
    fake.batches.script(final, polls_before_done=0)
    job = sdk.batches.create(model="gemini-2.5-flash", src=[inline("x", "k")])
    done = sdk.batches.get(name=job.name)
    assert done.state.name == f"JOB_STATE_{final}" and done.dest is None and done.done


def test_list_pages_cancel_and_delete(fake, sdk):
    fake.batches.script("RUNNING")
    fake.batches.script("RUNNING")
    fake.batches.script("RUNNING")
    names = [sdk.batches.create(model="gemini-2.5-flash", src=[inline("x", f"k{n}")], config={"display_name": f"job{n}"}).name
             for n in range(3)]
    listed = list(sdk.batches.list(config={"page_size": 2}))
    assert [j.name for j in listed] == names  # three jobs over two pages
    assert sum(r.path.endswith("/batches") for r in fake.requests) == 2
    sdk.batches.cancel(name=names[0])
    assert sdk.batches.get(name=names[0]).state.name == "JOB_STATE_CANCELLED"
    sdk.batches.delete(name=names[1])
    with pytest.raises(errors.ClientError) as gone:
        sdk.batches.get(name=names[1])
    assert gone.value.code == 404


def test_bad_creates_are_refused_like_the_api(fake, sdk):
    with pytest.raises(errors.ClientError) as missing:
        sdk.batches.create(model="gemini-2.5-flash", src="files/nope")
    assert missing.value.code == 400 and "not found" in missing.value.message
    fake.batches.script("SUCCEEDED", create_error=error_reply(429, "slow down"))
    with pytest.raises(errors.ClientError) as limited:
        sdk.batches.create(model="gemini-2.5-flash", src=[inline("x", "k")])
    assert limited.value.code == 429
