"""The refusals of the JSON routes (``/mcp``, ``/metrics``): one body for every refusal.

GraphQL answers its refusals in GraphQL's own error shape (graphql_view.py);
the other routes answer ``{"error": {"code", "message"}}``. Who is let in,
and at what rate, is decided at every door alike (hippograph/admission.py).
"""

from __future__ import annotations

from starlette.responses import JSONResponse

from hippograph.admission import Refused


def refusal(status: int, code: str, message: str, headers: dict[str, str]) -> JSONResponse:
    """A refused request's answer."""
    return JSONResponse({"error": {"code": code, "message": message}}, status, headers)


def refused_answer(refused: Refused) -> JSONResponse:
    """The answer to a caller admission turned away (401 names the scheme, 429 the wait)."""
    headers = {"WWW-Authenticate": "Bearer"} if refused.status == 401 else {}
    if refused.retry_after_s is not None:
        headers["Retry-After"] = str(refused.retry_after_s)
    return refusal(refused.status, refused.code, refused.message, headers)
