"""JSON log lines: one object each, with the request id of the context they were made in."""

from __future__ import annotations

import io
import json
import logging

from hippograph.logs import JsonFormatter, configure_logging, request_id


def _record(message: str, **extra: object) -> logging.LogRecord:
    record = logging.LogRecord("hippograph.test", logging.WARNING, __file__, 1, message, (), None)
    for key, value in extra.items():
        setattr(record, key, value)
    return record


def test_a_line_has_time_level_logger_message_and_extras() -> None:
    entry = json.loads(JsonFormatter().format(_record("slow search", duration_ms=12.5)))
    assert entry["level"] == "warning"
    assert entry["logger"] == "hippograph.test"
    assert entry["message"] == "slow search"
    assert entry["duration_ms"] == 12.5
    assert entry["time"].endswith("+00:00")
    assert "request_id" not in entry


def test_the_request_id_comes_from_the_context() -> None:
    token = request_id.set("r-1")
    try:
        entry = json.loads(JsonFormatter().format(_record("hello")))
    finally:
        request_id.reset(token)
    assert entry["request_id"] == "r-1"


def test_hostile_text_stays_inside_one_line_of_json() -> None:
    line = JsonFormatter().format(_record('x"}\n{"level": "error", "message": "forged'))
    assert "\n" not in line
    assert json.loads(line)["level"] == "warning"


def test_exceptions_are_one_field() -> None:
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        import sys

        record = _record("failed")
        record.exc_info = sys.exc_info()
    entry = json.loads(JsonFormatter().format(record))
    assert "RuntimeError: boom" in entry["exception"]


def test_configure_logging_sends_everything_through_one_handler() -> None:
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    try:
        configure_logging("info", "json")
        stream = io.StringIO()
        handler = root.handlers[0]
        assert isinstance(handler, logging.StreamHandler)
        handler.setStream(stream)
        logging.getLogger("hippograph.test.logs").info("started")
        assert json.loads(stream.getvalue())["logger"] == "hippograph.test.logs"
        assert logging.getLogger("uvicorn.error").propagate
        # The HTTP clients' request lines carry URLs, an LLM's password among them.
        for client in ("httpx", "httpx2"):
            logging.getLogger(client).info("HTTP Request: POST http://bob:s3cret@llm/v1")
        assert "s3cret" not in stream.getvalue()
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
