"""What a chat-completions server's failure says: the message, and whether to try again."""

from __future__ import annotations

from collections.abc import Mapping

import openai

from hippograph.ports import ModelFailed, Usage

_DETAIL_CHARS = 500


class LLMError(ModelFailed):
    """The model gave no usable extraction; ``status`` is the last HTTP status, if any."""

    def __init__(
        self, message: str, status: int | None, usage: Usage, reason: str | None = None
    ) -> None:
        super().__init__(message, usage)
        self.status = status
        self.reason = reason  # what was wrong with the last answer, if it was the answer
        # A server down, slow or busy may answer a later try; an answer that was
        # wrong after every retry, or a request refused (a bad key, an unknown
        # model), will be the same.
        self.again = reason is None and (status is None or status >= 500 or status == 429)


def server_message(error: openai.APIStatusError) -> str:
    """What the server said of a refused request, cut to a length fit for a job's error."""
    body = error.body
    message = body.get("message") if isinstance(body, Mapping) else body
    return str(message or error.response.text)[:_DETAIL_CHARS]


def unavailable(
    name: str, error: openai.APIError, requests: int, timeout_s: float
) -> tuple[str, int | None]:
    """The message and HTTP status of an ``LLMError`` for what the SDK gave up on."""
    after = f" after {requests} attempts" if requests > 1 else ""
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        what = "rejected the request with" if status < 500 else "answered"
        return f"LLM {name} {what} HTTP {status}{after}: {server_message(error)}", status
    if isinstance(error, openai.APITimeoutError):
        return f"LLM {name} timed out{after}: {timeout_s} s", None
    if isinstance(error, openai.APIConnectionError):
        cause = error.__cause__ or error
        return f"LLM {name} could not be reached{after}: {cause!r}", None
    return f"LLM {name} returned an invalid response{after}: {error}", None
