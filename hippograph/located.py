"""Lines of an imported file checked against pydantic models, with errors that say where.

Dumps and conversation files declare each line's shape as a pydantic model;
a refusal must still name the file, the line and the field, as in
``chats.jsonl line 2: messages[0].ts: must include a time zone offset``. This
module reads a line's JSON, validates it through a model and turns pydantic's
``ValidationError`` into our :class:`~hippograph.errors.InvalidInput`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import AfterValidator, BaseModel, ValidationError, ValidationInfo
from pydantic_core import ErrorDetails

from hippograph.errors import InvalidInput
from hippograph.plural import counted

M = TypeVar("M", bound=BaseModel)

# pydantic marks a dict key that failed (rather than its value) with this step.
_KEY_STEP = "[key]"
_SHOWN = 3


def field_path(loc: tuple[int | str, ...]) -> str:
    """A pydantic location as we spell paths: ``messages[0].ts``, ``counts.nodes.User``."""
    path = ""
    for step in loc:
        if isinstance(step, int):
            path += f"[{step}]"
        elif step != _KEY_STEP:
            path += f".{step}" if path else step
    return path


def _reason(error: ErrorDetails) -> str:
    # A validator's own ValueError carries our wording; pydantic prefixes it
    # with "Value error, ", which says nothing to someone fixing a file.
    cause = error.get("ctx", {}).get("error")
    if error["type"] == "value_error" and cause is not None:
        return str(cause)
    # pydantic names the model class here; the file's author knows JSON objects.
    if error["type"] in {"model_type", "dict_type"}:
        return "Input should be a JSON object"
    return error["msg"]


def located(error: ValidationError, where: str) -> InvalidInput:
    """``error`` as ``<where>: <field path>: <reason>``, problems joined by "; ".

    ``where`` names the file and line ("f.jsonl line 2"). A few problems are
    spelled out (a missing key beside a misspelt one tells the whole story);
    beyond that they are counted (a bad vector could list hundreds).
    """
    problems = error.errors(include_url=False)
    shown = "; ".join(
        f"{path}: {_reason(problem)}" if (path := field_path(problem["loc"])) else _reason(problem)
        for problem in problems[:_SHOWN]
    )
    more = len(problems) - _SHOWN
    if more > 0:
        shown += f" (and {counted(more, 'more problem')} on this line)"
    return InvalidInput(f"{where}: {shown}", field_path(problems[0]["loc"]) or None)


def json_object(line: str, where: str) -> dict[str, Any]:
    """The JSON object on ``line``; anything else is refused naming ``where``."""
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{where}: not valid JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: expected a JSON object, got {type(raw).__name__}")
    return raw


def validate_line(
    model: type[M], raw: Mapping[str, Any], where: str, context: Mapping[str, Any] | None = None
) -> M:
    """``raw`` as a ``model``, or an :class:`InvalidInput` naming ``where`` and the field."""
    try:
        return model.model_validate(raw, context=context)
    except ValidationError as exc:
        raise located(exc, where) from None


def shared_rule(check: Callable[..., str], *args: Any, **kwargs: Any) -> AfterValidator:
    """A check of hippograph.validation or hippograph.ids as a pydantic field validator.

    Those checks raise :class:`InvalidInput` with messages that begin with the
    field's name ("client_id must be ..."); the located message names the
    field already, so the name is dropped from the reason. The value is kept
    as given (the checks may return it stripped; a file's value is stored as is).
    """

    def validate(value: str, info: ValidationInfo) -> str:
        field = info.field_name or "value"
        try:
            check(value, field, *args, **kwargs)
        except InvalidInput as exc:
            raise ValueError(exc.message.removeprefix(f"{field} ")) from None
        return value

    return AfterValidator(validate)


def utf8_lines(path: Path, first: int = 1) -> Iterator[tuple[int, str]]:
    """The file's lines from line ``first`` on, numbered, as text; a line that is not
    UTF-8 is ``InvalidInput`` naming it, as a line of the wrong shape is."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number < first:
                continue
            try:
                yield number, raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InvalidInput(
                    f"{path.name} line {number}: not UTF-8 text ({exc.reason} at byte {exc.start})"
                ) from None


def utf8_text(path: Path) -> str:
    """The whole file as text; one that is not UTF-8 is ``InvalidInput`` naming its line."""
    return "".join(line for _, line in utf8_lines(path))
