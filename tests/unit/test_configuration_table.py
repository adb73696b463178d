"""The README's configuration table names every setting, and only settings, with its default.

pydantic-settings ignores an environment variable that names no setting, so
a variable the table got wrong would be set and silently do nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import TypeAdapter
from pydantic.fields import FieldInfo

from hippograph.settings_names import NESTED, setting_fields
from tests.documents import section


def _rows() -> list[tuple[list[str], list[str]]]:
    """Each row of the table: its variables (``/ `__X``` spelled out) and its defaults."""
    rows = []
    for line in section("README.md", "Configuration").splitlines():
        if not line.startswith("| `HIPPOGRAPH_"):
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        variables: list[str] = []
        for name in re.findall(r"`([A-Z_*]+)`", cells[0]):
            if name.startswith(NESTED):  # `HIPPOGRAPH_API__HOST` / `__PORT`
                name = variables[-1].rsplit(NESTED, 1)[0] + name
            variables.append(name)
        rows.append((variables, [d.strip() for d in cells[1].split(" / ")]))
    return rows


def _documented(variable: str, known: dict[str, FieldInfo]) -> list[str]:
    if "*" not in variable:
        return [variable]
    pattern = re.compile(re.escape(variable).replace(r"\*", ".*"))
    return [name for name in known if pattern.fullmatch(name)]


def _same(written: str, field: FieldInfo) -> bool:
    """Whether the table's literal default is the setting's."""
    assert field.annotation is not None
    value: Any = TypeAdapter(field.annotation).dump_python(
        field.get_default(call_default_factory=True), mode="json"
    )
    try:
        read = json.loads(written)
    except ValueError:
        read = written
    if isinstance(value, bool) or isinstance(read, bool):
        return value is read
    if isinstance(value, int | float) and isinstance(read, int | float):
        return float(value) == float(read)
    return bool(value == read)


def test_the_table_names_every_setting_and_only_settings() -> None:
    known = setting_fields()
    named = [name for variables, _ in _rows() for v in variables for name in _documented(v, known)]
    assert sorted(set(named) - set(known)) == []
    assert sorted(set(known) - set(named)) == []


def test_the_tables_defaults_are_the_settings_defaults() -> None:
    known = setting_fields()
    wrong = []
    checked = 0
    for variables, defaults in _rows():
        if len(defaults) != len(variables):
            continue  # one default for several (`__*_STRENGTH`)
        for variable, default in zip(variables, defaults, strict=True):
            literal = re.fullmatch(r"`([^`]*)`", default)
            if literal is None or variable not in known or known[variable].default is None:
                continue  # derived ("the model's", "one per core", a user's folder) or none
            checked += 1
            if not _same(literal.group(1), known[variable]):
                wrong.append(f"{variable}: {default}")
    assert wrong == []
    assert checked > 100  # the parser read the table (about 110 literal defaults)
