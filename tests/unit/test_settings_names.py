"""A variable that looks like a setting and names none is named, with the setting it was likely meant to be."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from hippograph.settings_names import (
    READ_ELSEWHERE,
    dotenv_names,
    misnamed,
    misnamed_keys,
    setting_variables,
    startup_warnings,
)

ROOT = Path(__file__).resolve().parents[2]


def test_a_misspelt_setting_is_named_with_the_setting_meant() -> None:
    assert misnamed(["HIPPOGRAPH_GRAPH__SERVRE", "HIPPOGRAPH_REDIS_URL"]) == [
        "HIPPOGRAPH_GRAPH__SERVRE is set but names no setting, so it changes nothing "
        "(did you mean HIPPOGRAPH_GRAPH__SERVER?)",
        "HIPPOGRAPH_REDIS_URL is set but names no setting, so it changes nothing "
        "(did you mean HIPPOGRAPH_REDIS__URL?)",
    ]


def test_a_misspelt_key_of_a_section_set_as_json_is_named_with_the_key_meant() -> None:
    # pydantic-settings reads the section's JSON and ignores a key it does not know.
    assert misnamed_keys(
        {
            "HIPPOGRAPH_SEARCH": '{"exact_scan_maxx": 5, "exact_scan_max": 3}',
            "hippograph_memorize": '{"entitys": true, "colour": 1}',
            "HIPPOGRAPH_GRAPH": "[1]",  # not an object, and
            "HIPPOGRAPH_API": "{",  # not JSON: the settings refuse those themselves
            "HIPPOGRAPH_LOG_LEVEL": '{"a": 1}',  # a setting, not a section
        }
    ) == [
        "HIPPOGRAPH_SEARCH sets 'exact_scan_maxx', which names no setting there, so it "
        "changes nothing (did you mean exact_scan_max?)",
        "hippograph_memorize sets 'entitys', which names no setting there, so it changes "
        "nothing (did you mean entities?)",
        "hippograph_memorize sets 'colour', which names no setting there, so it changes nothing",
    ]


def test_a_name_like_no_setting_gets_no_guess() -> None:
    assert misnamed(["HIPPOGRAPH_FOO"]) == [
        "HIPPOGRAPH_FOO is set but names no setting, so it changes nothing"
    ]


@pytest.mark.parametrize(
    "name",
    [
        "HIPPOGRAPH_GRAPH__SERVER",
        "hippograph_api__port",  # matched in capitals, as pydantic-settings does
        "HIPPOGRAPH_API",  # a whole section, as a JSON object
        "HIPPOGRAPH_LOG_LEVEL",
        "HIPPOGRAPH_API_KEY",  # hippograph mcp's key
        "PATH",
        "HIPPOGRAPHX",
    ],
)
def test_settings_sections_other_programs_variables_and_other_prefixes_pass(name: str) -> None:
    assert misnamed([name]) == []


def test_every_setting_of_every_section_is_known() -> None:
    known = setting_variables()
    assert {"HIPPOGRAPH_SEARCH__COMMON_TERM_SHARE", "HIPPOGRAPH_FORGETTING__FULL_ABOVE"} <= known
    assert len(known) > 120


def test_the_variables_read_elsewhere_are_read_somewhere() -> None:
    # Each is excused because a program of the project reads it: say where.
    sources = [
        ROOT / "README.md",
        *(ROOT / "hippograph").rglob("*.py"),
        *(ROOT / "bench").rglob("*.py"),
    ]
    readers = {
        name: [
            str(path.relative_to(ROOT))
            for path in sources
            if path.name != "settings_names.py" and name in path.read_text(encoding="utf-8")
        ]
        for name in READ_ELSEWHERE
    }
    assert [name for name, where in readers.items() if not where] == []


def test_a_dotenv_files_names_are_read_as_pydantic_settings_reads_them(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text(
        "# a comment\n\nHIPPOGRAPH_API__PORT=9000\nexport HIPPOGRAPH_API__PROT = 1\n"
        "  HIPPOGRAPH_LOG_LEVEL='debug'\nnot a line\n"
    )
    assert dotenv_names(env) == [
        "HIPPOGRAPH_API__PORT",
        "HIPPOGRAPH_API__PROT",
        "HIPPOGRAPH_LOG_LEVEL",
    ]
    assert dotenv_names(tmp_path / "missing") == []
    assert dotenv_names(tmp_path) == []  # a folder named .env


def test_startup_reads_the_environment_and_the_dotenv_file_of_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("HIPPOGRAPH_EMBEDING__MODEL=bge-small-en-v1.5\n")
    environ = {
        "HIPPOGRAPH_GRAPH__SERVRE": "neo4j",
        "HOME": "/root",
        "HIPPOGRAPH_SEARCH": '{"exact_scan_maxx": 5}',
    }
    warnings = startup_warnings(environ)
    assert [w.split()[0] for w in warnings] == [
        "HIPPOGRAPH_EMBEDING__MODEL",
        "HIPPOGRAPH_GRAPH__SERVRE",
        "HIPPOGRAPH_SEARCH",
    ]


# Named on purpose though no setting reads them.
NOT_SETTINGS = {
    "HIPPOGRAPH_ADMIN_KEY": "docker-compose.yml's own variable, passed on as HIPPOGRAPH_API__ADMIN_KEY",
    "HIPPOGRAPH_GRAPH__SERVRE": "the README's example of a misspelt setting",
}


def test_every_variable_the_code_and_docs_name_is_read() -> None:
    # A renamed setting leaves its old name in messages and docs: a reader sets it for nothing.
    files = subprocess.run(
        ["git", "ls-files", "*.py", "*.md", "*.graphql", "*.js", "*.mjs", "*.yml", "Dockerfile"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    named = {
        name
        for file in files
        # tests misspell on purpose; decision records keep the names of their day
        if not file.startswith(("tests/", "docs/decisions/")) and (ROOT / file).is_file()
        for name in re.findall(r"HIPPOGRAPH_[A-Z0-9_]*[A-Z0-9]", (ROOT / file).read_text())
    }
    assert len(named) > 100
    assert misnamed(named - set(NOT_SETTINGS)) == []
