"""The fake server speaks the wire format the real google-genai client expects."""

from google import genai
from google.genai import errors, types

from support.fake_gemini import FakeGemini, error_reply, json_reply


def client(fake: FakeGemini) -> genai.Client:
    return genai.Client(api_key="test-key-not-real", http_options=types.HttpOptions(base_url=fake.url, api_version="v1beta"))


def test_count_tokens(fake):
    c = client(fake)  # keep a reference: a collected Client closes its HTTP connection
    result = c.models.count_tokens(model="gemini-2.5-flash", contents="x" * 400)
    assert result.total_tokens == 100
    assert fake.calls("countTokens")[0].path == "/v1beta/models/gemini-2.5-flash:countTokens"


def test_generate_content_usage_and_error_shape(fake):
    fake.on("hello", json_reply({"ok": True}, prompt_tokens=7, output_tokens=3), error_reply(503, "busy"))
    c = client(fake)
    response = c.models.generate_content(model="gemini-2.5-flash", contents="hello")
    assert response.text == '{"ok": true}' and response.usage_metadata.total_token_count == 10
    try:
        c.models.generate_content(model="gemini-2.5-flash", contents="hello")
    except errors.ServerError as exc:
        assert (exc.code, exc.status, exc.message) == (503, "UNAVAILABLE", "busy")
    else:
        raise AssertionError("a scripted 503 must raise")


def test_resumable_upload_then_processing_to_active(fake, tmp_path):
    path = tmp_path / "clip.mp4"
    path.write_bytes(b"\x00" * 5000)
    c = client(fake)
    uploaded = c.files.upload(file=str(path), config={"mime_type": "video/mp4"})
    assert uploaded.state.name == "PROCESSING" and uploaded.size_bytes == 5000
    assert c.files.get(name=uploaded.name).state.name == "ACTIVE"
    assert fake.files[uploaded.name.split("/")[1]].data == b"\x00" * 5000


def test_failed_processing_is_reported(fake, tmp_path):
    fake.file_states = ["PROCESSING", "FAILED"]
    path = tmp_path / "clip.mp4"
    path.write_bytes(b"\x01" * 10)
    c = client(fake)
    uploaded = c.files.upload(file=str(path), config={"mime_type": "video/mp4"})
    assert c.files.get(name=uploaded.name).state.name == "FAILED"
