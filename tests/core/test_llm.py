"""The LLM client against a real HTTP server on 127.0.0.1: replies, logprobs and every
failure turned into one actionable sentence."""

import re
import socket
import time
from dataclasses import replace

import pytest
from scripted_llm import Reply, ScriptedLLM

from core.llm import LLMClient, LLMUnavailable, reset_cool_down


@pytest.fixture(autouse=True)
def _fresh_endpoints():
    reset_cool_down()
    yield
    reset_cool_down()


def _client(settings, base_url, **kw):
    return LLMClient(replace(settings, provider="llm", llm_base_url=base_url, llm_model="scripted-model",
                             llm_retries=0, **kw))


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_reply_text_tokens_and_first_token_probabilities(settings):
    with ScriptedLLM(lambda r: Reply("SUPPORTED", first_token={"SUPPORTED": 0.8, "UNSUPPORTED": 0.2})) as llm:
        reply = _client(settings, llm.base_url).chat([{"role": "user", "content": "one two three"}], logprobs=True)
    assert reply.text == "SUPPORTED" and reply.model == "scripted-model"
    assert reply.tokens == {"prompt": 3, "completion": 1}
    assert reply.first_token_probs["SUPPORTED"] == pytest.approx(0.8)
    assert llm.requests[0]["temperature"] == 0 and llm.requests[0]["top_logprobs"] == 5


def test_not_configured_says_which_variables_to_set(settings):
    with pytest.raises(LLMUnavailable, match="GROUNDWORK_LLM_BASE_URL"):
        LLMClient(settings)


def test_dead_endpoint_is_one_sentence_and_then_left_alone(settings):
    client = _client(settings, f"http://127.0.0.1:{_closed_port()}/v1")
    with pytest.raises(LLMUnavailable, match="Could not connect .* check that the server is running"):
        client.chat([{"role": "user", "content": "hi"}])


def test_slow_endpoint_times_out_and_is_not_asked_again_during_the_cool_down(settings):
    with ScriptedLLM(lambda r: Reply("late", delay_s=2.0)) as llm:
        client = _client(settings, llm.base_url, llm_timeout_s=0.5)
        with pytest.raises(LLMUnavailable, match="did not answer within 0.5 s"):
            client.chat([{"role": "user", "content": "hi"}])
        with pytest.raises(LLMUnavailable, match="did not answer within") as again:
            client.chat([{"role": "user", "content": "again"}])
        # said as what happened before: this ask waited no time (a reliability pass)
        assert re.search(r"\(That was \d+ s ago; it is not asked again for \d+ s\.\)$", str(again.value))
        assert len(llm.requests) == 1, "a hanging endpoint must not cost every ask its timeout"
        reset_cool_down()
        with pytest.raises(LLMUnavailable):
            client.chat([{"role": "user", "content": "after the cool-down"}])
        assert len(llm.requests) == 2


@pytest.mark.parametrize("status, message", [
    (401, "rejected the API key; set GROUNDWORK_LLM_API_KEY"),
    (404, "does not know the model 'scripted-model'"),
    (500, "answered with HTTP 500"),
])
def test_http_errors_name_the_cause(settings, status, message):
    with ScriptedLLM(lambda r: Reply("no", status=status)) as llm:
        with pytest.raises(LLMUnavailable, match=message):
            _client(settings, llm.base_url).chat([{"role": "user", "content": "hi"}])


def test_a_timeout_is_not_retried_so_the_fallback_comes_after_one_timeout(settings):
    # the openai client's own retries also retried timeouts: with the default one retry a
    # hanging server held every ask for twice GROUNDWORK_LLM_TIMEOUT_S, plus back-off
    with ScriptedLLM(lambda r: Reply("late", delay_s=3.0)) as llm:
        client = LLMClient(replace(settings, provider="llm", llm_base_url=llm.base_url, llm_model="scripted-model",
                                   llm_timeout_s=0.5, llm_retries=1))
        started = time.monotonic()
        with pytest.raises(LLMUnavailable, match="did not answer within 0.5 s"):
            client.chat([{"role": "user", "content": "hi"}])
        assert time.monotonic() - started < 1.5
        assert len(llm.requests) == 1


def test_a_server_error_is_still_retried(settings):
    replies = iter([Reply("busy", status=500), Reply("fine")])
    with ScriptedLLM(lambda r: next(replies)) as llm:
        client = LLMClient(replace(settings, provider="llm", llm_base_url=llm.base_url, llm_model="scripted-model",
                                   llm_retries=1))
        assert client.chat([{"role": "user", "content": "hi"}]).text == "fine"
        assert len(llm.requests) == 2


def test_a_dead_endpoint_hands_over_to_the_fallback_endpoint(settings):
    dead = f"http://127.0.0.1:{_closed_port()}/v1"
    with ScriptedLLM(lambda r: "from the fallback", model="backup-model") as backup:
        client = _client(settings, dead, llm_fallback_base_url=backup.base_url, llm_fallback_model="backup-model")
        reply = client.chat([{"role": "user", "content": "hi"}])
        assert reply.text == "from the fallback" and reply.model == "backup-model"
        assert backup.requests[0]["model"] == "backup-model"
        again = client.chat([{"role": "user", "content": "hi"}])  # the primary is cooling down: straight over
        assert again.text == "from the fallback"
    with pytest.raises(LLMUnavailable, match="Could not connect .* The fallback endpoint failed too: Could not connect"):
        _client(settings, dead, llm_fallback_base_url=f"http://127.0.0.1:{_closed_port()}/v1").chat(
            [{"role": "user", "content": "hi"}])


class RawServer:
    """A server on 127.0.0.1 that answers every request with `send(connection)`: replies the
    scripted server's well-formed JSON cannot make (not JSON, another shape, a trickle)."""

    def __init__(self, send) -> None:
        import threading

        self.send, self.sock = send, socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.base_url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        import threading

        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:  # closed
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        try:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            self.send(conn)
        except OSError:
            pass  # the client gave up
        finally:
            conn.close()

    def close(self) -> None:
        self.sock.close()


def _http(body: str, content_type: str = "application/json") -> bytes:
    return (f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(body.encode())}\r\n"
            f"Connection: close\r\n\r\n{body}").encode()


@pytest.mark.parametrize("body", [
    "this is {not json",                               # was: a bare JSONDecodeError ("error: Expecting value")
    '{"choices": "x"}',                                # was: AttributeError: 'str' object has no attribute 'message'
    '{"choices": [{"message": {"content": 42}}]}',     # was: TypeError in the citation markers' regex
])
def test_a_reply_that_is_no_chat_completion_is_one_sentence(settings, body):
    server = RawServer(lambda conn: conn.sendall(_http(body)))
    try:
        with pytest.raises(LLMUnavailable, match="not an OpenAI chat completion; check that the URL"):
            _client(settings, server.base_url).chat([{"role": "user", "content": "hi"}])
    finally:
        server.close()


def test_a_web_page_for_a_reply_is_said_to_be_no_chat_completion(settings):
    # a reliability pass: a page sent as text/html read "returned no answer; see the server's log"
    page = "<html><body><h1>Welcome to nginx!</h1></body></html>"
    server = RawServer(lambda conn: conn.sendall(_http(page, "text/html")))
    try:
        with pytest.raises(LLMUnavailable, match="not an OpenAI chat completion; check that the URL"):
            _client(settings, server.base_url).chat([{"role": "user", "content": "hi"}])
    finally:
        server.close()


def test_a_reply_trickled_a_byte_at_a_time_still_times_out_within_the_timeout(settings):
    # the client's timeout bounds each read: a reply sent a byte every 0.2 s never tripped it,
    # and held one ask for minutes with GROUNDWORK_LLM_TIMEOUT_S=3
    body = '{"id":"c","object":"chat.completion","created":1,"model":"m","choices":' + " " * 200 + "[]}"

    def trickle(conn: socket.socket) -> None:
        conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
                     .encode())
        for ch in body:
            conn.sendall(ch.encode())
            time.sleep(0.2)

    server = RawServer(trickle)
    try:
        client = _client(settings, server.base_url, llm_timeout_s=1.0)
        started = time.monotonic()
        with pytest.raises(LLMUnavailable, match="did not answer within 1 s"):
            client.chat([{"role": "user", "content": "hi"}])
        assert time.monotonic() - started < 2.0
    finally:
        server.close()
