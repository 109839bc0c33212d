"""The one door to a language model: any OpenAI-compatible endpoint through the `openai`
client (OpenAI, Azure, vLLM, Ollama, a llama.cpp server on 127.0.0.1).

Every failure (refused connection, timeout, bad key, unknown model, an empty reply)
becomes `LLMUnavailable` carrying one sentence a person can act on; callers fall back to
the extractive answer instead of failing the ask.

An endpoint that just failed is not asked again for `COOL_DOWN_S` seconds: a dead or
hanging server would otherwise cost every ask its full timeout.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from core.config import Settings

COOL_DOWN_S = 30.0
RETRY_DELAY_S = 0.5  # before retrying a refused connection or a server error
DEADLINE_GRACE_S = 0.25  # past the timeout, so the client's own per-read timeout fires first when it can
_failed_at: dict[str, tuple[float, str]] = {}  # base_url -> (monotonic time, reason)
_lock = threading.Lock()


class LLMUnavailable(RuntimeError):
    """The endpoint could not give an answer; the message says why and what to do."""


class _NoAnswer(ValueError):
    """A completion with no choice or no message in it."""


@dataclass
class LLMReply:
    text: str
    model: str
    tokens: dict[str, int] = field(default_factory=dict)
    # first generated token: its alternatives and their probabilities (when asked for)
    first_token_probs: dict[str, float] = field(default_factory=dict)


class LLMClient:
    def __init__(self, settings: Settings) -> None:
        if not settings.llm_configured:
            raise LLMUnavailable(
                "No LLM endpoint is configured: set GROUNDWORK_LLM_BASE_URL and GROUNDWORK_LLM_MODEL."
            )
        self.base_url = settings.llm_base_url or "https://api.openai.com/v1"
        self.model = settings.llm_model or ""
        self.timeout_s = settings.llm_timeout_s
        self._settings = settings
        self._client: Any = None

    def _openai(self) -> Any:
        if self._client is None:
            import openai

            # local servers ignore the key, but the client refuses to start without one. The
            # client's own retries are off: it retries a timeout too, so a hanging server cost
            # twice GROUNDWORK_LLM_TIMEOUT_S (and more with back-off) before the fallback; `chat`
            # retries only what a second try can fix.
            self._client = openai.OpenAI(base_url=self.base_url, api_key=self._settings.llm_api_key or "none",
                                         timeout=self.timeout_s, max_retries=0)
        return self._client

    def _create(self, kwargs: dict[str, Any]) -> Any:
        """The completion, retried `llm_retries` times on a refused connection, a rate limit or
        a server error, never on a timeout: the user has already waited the full timeout."""
        import openai

        retries_left = max(int(self._settings.llm_retries), 0)
        while True:
            try:
                return self._within_timeout(kwargs)
            except openai.APITimeoutError:  # before APIConnectionError: it is one
                raise
            except (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError):
                if not retries_left:
                    raise
                retries_left -= 1
                time.sleep(RETRY_DELAY_S)

    def _within_timeout(self, kwargs: dict[str, Any]) -> Any:
        """One completion that gives up after `timeout_s` in all. The client's timeout bounds
        each read, not the whole reply: a server that trickled its reply a byte at a time held
        an ask for minutes with GROUNDWORK_LLM_TIMEOUT_S=3. The call runs on a daemon thread;
        when it is overdue its client is closed, which ends the read, and a timeout is raised."""
        import httpx
        import openai

        client, outcome, done = self._openai(), {}, threading.Event()

        def call() -> None:
            try:
                outcome["reply"] = client.chat.completions.create(**kwargs)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                outcome["error"] = exc
            finally:
                done.set()

        threading.Thread(target=call, name="llm-call", daemon=True).start()
        if not done.wait(self.timeout_s + DEADLINE_GRACE_S):
            self._client = None  # the next call opens a fresh client
            client.close()
            raise openai.APITimeoutError(request=httpx.Request("POST", self.base_url))
        if "error" in outcome:
            raise outcome["error"]
        return outcome["reply"]

    def chat(self, messages: list[dict[str, str]], max_tokens: int = 300, logprobs: bool = False) -> LLMReply:
        """One chat completion at temperature 0; from the fallback endpoint when this one
        fails and one is configured (`llm_fallback_base_url` / `llm_fallback_model`)."""
        try:
            return self._chat(messages, max_tokens, logprobs)
        except LLMUnavailable as exc:
            fallback = self._fallback()
            if fallback is None:
                raise
            try:
                return fallback._chat(messages, max_tokens, logprobs)
            except LLMUnavailable as second:
                raise LLMUnavailable(f"{exc} The fallback endpoint failed too: {second}") from None

    def _fallback(self) -> LLMClient | None:
        s = self._settings
        url, model = s.llm_fallback_base_url, s.llm_fallback_model or s.llm_model
        if not url or (url == self.base_url and model == self.model):
            return None
        return LLMClient(replace(s, llm_base_url=url, llm_model=model, llm_fallback_base_url=None))

    def _chat(self, messages: list[dict[str, str]], max_tokens: int, logprobs: bool) -> LLMReply:
        with _lock:
            failed = _failed_at.get(self.base_url)
        if failed and (ago := time.monotonic() - failed[0]) < COOL_DOWN_S:
            # said as what happened before, not now: "did not answer within 20 s" on an ask
            # that waited no time read as a wait that never happened (a reliability pass)
            raise LLMUnavailable(f"{failed[1]} (That was {ago:.0f} s ago; it is not asked again for "
                                 f"{COOL_DOWN_S - ago:.0f} s.)")
        import openai

        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0,
                                  "max_tokens": max_tokens}
        if logprobs:
            kwargs.update(logprobs=True, top_logprobs=5)
        try:
            response = self._create(kwargs)
            return self._reply(response)
        except (openai.OpenAIError, ValueError, TypeError, AttributeError, LookupError) as exc:
            # not only the client's errors: a reply that is not JSON (a proxy's page sent as
            # application/json) raised a bare JSONDecodeError, and JSON of another shape an
            # AttributeError or TypeError, which failed the ask instead of falling back
            reason, endpoint_down = self._explain(exc)
            if endpoint_down:
                with _lock:
                    _failed_at[self.base_url] = (time.monotonic(), reason)
            raise LLMUnavailable(reason) from None

    def _reply(self, response: Any) -> LLMReply:
        """The reply read from a completion; ValueError, TypeError or AttributeError when the
        endpoint's JSON is not a chat completion (the client does not check its shape)."""
        if isinstance(response, (str, bytes)):
            # a page sent as text/html (a proxy's login page, a web server's index): the client
            # hands it over as text, and "returned no answer" sent the admin to the wrong log
            raise ValueError("the reply is not JSON")
        choices = getattr(response, "choices", None) or []
        if not choices or choices[0].message is None:
            raise _NoAnswer
        choice = choices[0]
        text = choice.message.content or ""
        if not isinstance(text, str):
            raise TypeError(f"the answer is a {type(text).__name__}, not text")
        usage = getattr(response, "usage", None)
        tokens = {"prompt": int(getattr(usage, "prompt_tokens", 0) or 0),
                  "completion": int(getattr(usage, "completion_tokens", 0) or 0)} if usage else {}
        return LLMReply(text=text, model=str(getattr(response, "model", None) or self.model),
                        tokens=tokens, first_token_probs=_first_token_probs(choice))

    def _explain(self, exc: Exception) -> tuple[str, bool]:
        """One sentence for the failure, and whether the endpoint itself is down or
        misconfigured (then it gets the cool-down)."""
        import openai

        url = self.base_url
        if isinstance(exc, _NoAnswer):
            return "The LLM endpoint returned no answer; see the server's log.", False
        if not isinstance(exc, openai.OpenAIError):
            return (f"The LLM endpoint {url} sent a reply that is not an OpenAI chat completion; "
                    "check that the URL is the server's OpenAI-compatible API (it usually ends in /v1).", True)
        if isinstance(exc, openai.APITimeoutError):  # before APIConnectionError: it is one
            return (f"The LLM endpoint {url} did not answer within {self.timeout_s:g} s; "
                    "check the server or raise GROUNDWORK_LLM_TIMEOUT_S.", True)
        if isinstance(exc, openai.APIConnectionError):
            return (f"Could not connect to the LLM endpoint {url}; "
                    "check that the server is running and the URL is right.", True)
        if isinstance(exc, openai.AuthenticationError):
            return f"The LLM endpoint {url} rejected the API key; set GROUNDWORK_LLM_API_KEY.", True
        if isinstance(exc, openai.NotFoundError):
            return (f"The LLM endpoint {url} does not know the model '{self.model}'; "
                    "check GROUNDWORK_LLM_MODEL.", True)
        if isinstance(exc, openai.APIStatusError):
            return f"The LLM endpoint answered with HTTP {exc.status_code}; see the server's log.", False
        return f"The LLM call failed: {type(exc).__name__}.", False


def reset_cool_down() -> None:
    """Forget endpoint failures (the console's "retry now", and tests)."""
    with _lock:
        _failed_at.clear()


def _first_token_probs(choice: Any) -> dict[str, float]:
    content = getattr(getattr(choice, "logprobs", None), "content", None) or []
    if not content:
        return {}
    first = content[0]
    probs = {first.token: math.exp(first.logprob)}
    for alt in getattr(first, "top_logprobs", None) or []:
        probs.setdefault(alt.token, math.exp(alt.logprob))
    return probs
