"""Logging for every process: one JSON object per line, tagged with the request id.

The request id lives in a context variable that the HTTP layer sets for each
request (``hippograph.server.middleware``); every record logged while that
request is served — in resolvers, services, the graph layer — carries it,
so one grep finds everything a request did. Jobs set it to their job id.
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any, Literal

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "hippograph_request_id", default=None
)

# Attributes every LogRecord has; anything else was passed in ``extra=`` and
# belongs in the JSON object.
# (uvicorn adds ``color_message``, the message with terminal colour codes.)
_STANDARD = frozenset(
    vars(logging.LogRecord("", 0, "", 0, "", None, None)).keys()
    | {"message", "asctime", "color_message"}
)


class JsonFormatter(logging.Formatter):
    """Formats a record as one line of JSON: time, level, logger, message, request id, extras."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = request_id.get()
        if rid is not None:
            entry["request_id"] = rid
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class _RequestIdFilter(logging.Filter):
    """Adds ``request_id`` to records for the text format."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = request_id.get() or "-"
        return True


def configure_logging(level: str, fmt: Literal["json", "text"] = "json") -> None:
    """Send every logger (ours, uvicorn's, arq's) to stderr in one format."""
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.addFilter(_RequestIdFilter())
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s")
        )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # uvicorn and arq install handlers of their own; theirs go through ours.
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "arq"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    # The driver logs every retried transaction at WARNING; retries are normal.
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    # httpx (and httpx2, under the OpenAI SDK) log every request's URL at INFO:
    # with a password in an LLM's base_url, every extraction would log it.
    for name in ("httpx", "httpx2"):
        logging.getLogger(name).setLevel(logging.WARNING)
