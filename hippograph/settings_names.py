"""Variables that look like settings and name none.

pydantic-settings reads the variables its fields name and ignores every
other one, so ``HIPPOGRAPH_GRAPH__SERVRE=neo4j`` would start on the embedded
graph without a word, and the data would land there. Every command warns
about such a variable at start-up, with the setting it was likely meant to be;
and about a key of a section set as one JSON object
(``HIPPOGRAPH_SEARCH='{"exact_scan_maxx": 5}'``), which a section ignores alike.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from hippograph.settings import Settings

PREFIX = str(Settings.model_config["env_prefix"])
NESTED = str(Settings.model_config["env_nested_delimiter"])

# Variables of the prefix that other programs of the project read: no setting,
# and no typo either.
READ_ELSEWHERE = {
    "HIPPOGRAPH_API_KEY": "the key `hippograph mcp` serves with",
    "HIPPOGRAPH_DEV_DATA": "the folder of the benchmarks' dev conversations",
    "HIPPOGRAPH_URL": "the server the README's client example talks to",
    "HIPPOGRAPH_KEY": "the key the README's client example sends",
}

# A line of a .env file that sets a variable: NAME=..., or export NAME=...
_DOTENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=", re.MULTILINE)


def setting_fields(*, sections: bool = False) -> dict[str, FieldInfo]:
    """Every setting's field by the variable that sets it; with ``sections``, each
    section's too (a whole section may be set as one JSON object)."""
    return _fields(Settings, PREFIX, sections)


def _fields(model: type[BaseModel], prefix: str, sections: bool) -> dict[str, FieldInfo]:
    found: dict[str, FieldInfo] = {}
    for name, field in model.model_fields.items():
        variable = prefix + name.upper()
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            if sections:
                found[variable] = field
            found |= _fields(kind, variable + NESTED, sections)
        else:
            found[variable] = field
    return found


def setting_variables() -> frozenset[str]:
    """Every variable a setting reads: each field's, and each section's."""
    return frozenset(setting_fields(sections=True))


def dotenv_names(path: Path) -> list[str]:
    """The variables a .env file sets (none when there is no file it can read)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []  # a warning's helper: whether the settings load is theirs to say
    return _DOTENV_LINE.findall(text)


def misnamed(names: Iterable[str]) -> list[str]:
    """A warning for each variable of the prefix that no setting reads, naming the likeliest one.

    Names are compared in capitals, as pydantic-settings matches them.
    """
    known = setting_variables()
    # Compared without the prefix, which every name shares and would make any two alike.
    stems = {variable.removeprefix(PREFIX): variable for variable in known}
    warnings = []
    for name in sorted({name.upper() for name in names}):
        if not name.startswith(PREFIX) or name in known or name in READ_ELSEWHERE:
            continue
        meant = difflib.get_close_matches(name.removeprefix(PREFIX), stems, n=1, cutoff=0.75)
        hint = f" (did you mean {stems[meant[0]]}?)" if meant else ""
        warnings.append(f"{name} is set but names no setting, so it changes nothing{hint}")
    return warnings


def misnamed_keys(environ: Mapping[str, str]) -> list[str]:
    """A warning for each key of a section set as a JSON object that names no
    setting of it, naming the likeliest one."""
    fields = setting_fields(sections=True)
    warnings = []
    for variable in sorted(environ):
        field = fields.get(variable.upper())
        section = field.annotation if field is not None else None
        if not (isinstance(section, type) and issubclass(section, BaseModel)):
            continue
        try:
            value = json.loads(environ[variable])
        except ValueError:
            continue  # not JSON: the settings' own error says so
        if not isinstance(value, dict):
            continue  # not an object: the settings' own error says so too
        for key in value:
            if key not in section.model_fields:
                meant = difflib.get_close_matches(key, section.model_fields, n=1, cutoff=0.75)
                hint = f" (did you mean {meant[0]}?)" if meant else ""
                warnings.append(
                    f"{variable} sets {key!r}, which names no setting there, "
                    f"so it changes nothing{hint}"
                )
    return warnings


def startup_warnings(environ: Mapping[str, str]) -> list[str]:
    """What the process environment and the .env file pydantic-settings reads misname:
    variables, and keys of sections set as JSON objects in the environment."""
    env_file = Path(str(Settings.model_config["env_file"]))
    return misnamed([*environ, *dotenv_names(env_file)]) + misnamed_keys(environ)
