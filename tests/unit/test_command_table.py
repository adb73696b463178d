"""The README's command-line table names every subcommand and option, and only those.

argparse refuses an option it does not know, so a wrong flag in the table fails
the first reader who pastes it; an option missing from it is one nobody finds.
"""

from __future__ import annotations

import argparse
import re

from hippograph.cli import build_parser
from tests.documents import section

# A flag, and the choices written after it where the table spells them out (a|b|c).
_FLAG = re.compile(r"(--[a-z][a-z-]*)(?: ([\w.]+(?:\|[\w.]+)+))?")
# The description column starts after a run of three or more spaces.
_COLUMN = re.compile(r"\s{3,}")

Command = tuple[str, ...]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _leaves(
    parser: argparse.ArgumentParser, path: Command = ()
) -> dict[Command, argparse.ArgumentParser]:
    """Every runnable subcommand, by its words."""
    children = _subcommands(parser)
    if not children:
        return {path: parser}
    found: dict[Command, argparse.ArgumentParser] = {}
    for name, child in children.items():
        found |= _leaves(child, (*path, name))
    return found


def _options(parser: argparse.ArgumentParser) -> dict[str, tuple[str, ...] | None]:
    """Each long option of a subcommand, with its choices (None: any value)."""
    return {
        flag: tuple(str(choice) for choice in action.choices) if action.choices else None
        for action in parser._actions
        for flag in action.option_strings
        if flag.startswith("--") and flag != "--help"
    }


def _synopses() -> list[str]:
    """Each command's synopsis in the table, its continuation lines joined to it."""
    block = section("README.md", "Command line").split("```\n", 2)[1]
    synopses: list[str] = []
    for line in block.splitlines():
        synopsis = _COLUMN.split(line.strip(), 1)[0]
        if line.startswith("hippograph "):
            synopses.append(synopsis)
        elif synopsis.startswith("["):  # the options of the line above, wrapped
            synopses[-1] += " " + synopsis
    return synopses


def _table() -> dict[Command, dict[str, tuple[str, ...] | None]]:
    """The flags the table gives each subcommand (``keys create … | list`` gives two)."""
    root = build_parser()
    table: dict[Command, dict[str, tuple[str, ...] | None]] = {}
    for synopsis in _synopses():
        path: Command = ()
        for alternative in synopsis.removeprefix("hippograph ").split(" | "):
            words = alternative.split()
            path = path[:-1]  # an alternative after " | " is the previous one's sibling
            parser = _parser_at(root, path)
            while words and words[0] in _subcommands(parser):
                parser = _subcommands(parser)[words[0]]
                path = (*path, words.pop(0))
            flags = table.setdefault(path, {})
            for flag, choices in _FLAG.findall(alternative):
                flags[flag] = tuple(choices.split("|")) if choices else flags.get(flag)
    return table


def _parser_at(root: argparse.ArgumentParser, path: Command) -> argparse.ArgumentParser:
    parser = root
    for word in path:
        parser = _subcommands(parser)[word]
    return parser


def test_the_table_names_every_subcommand_and_no_other() -> None:
    assert set(_table()) == set(_leaves(build_parser()))


def test_every_option_is_in_the_table_and_every_flag_there_exists() -> None:
    table = _table()
    for path, parser in _leaves(build_parser()).items():
        written = set(table.get(path, {}))
        assert written == set(_options(parser)), " ".join(path)


def test_the_choices_the_table_spells_out_are_the_parsers() -> None:
    table = _table()
    for path, parser in _leaves(build_parser()).items():
        options = _options(parser)
        for flag, choices in table.get(path, {}).items():
            if choices is not None:
                assert set(choices) == set(options.get(flag) or ()), (" ".join(path), flag)
