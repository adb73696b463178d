"""Memory (RSS) of `hippograph serve`: once ready, and after it memorized and searched.

Starts ``hippograph serve`` on a fresh data directory (embedded ArcadeDB, whose
JVM lives in the same process), reads its VmRSS when ``/readyz`` answers,
then memorizes the first LoCoMo dev conversation through GraphQL, one
memorize per session, runs every question of it as a search, and reads it
again. The model is whatever the environment configures, so two runs with
two ``HIPPOGRAPH_EMBEDDING__MODEL`` values (or two checkouts on
``PYTHONPATH``) compare models or versions.

    python -m bench.serve_rss [--file LOCOMO] [--json]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import httpx

from bench.common import ADMIN_HEADERS, LOCOMO, Report, locomo_samples, report_cli
from bench.stack import MEMORIZE, SEARCH, SESSION, USER, graphql_data, running


async def measure(sample: dict[str, Any]) -> Report:
    """RSS at ready and after ``sample``'s memorize and searches (a LoCoMo conversation)."""
    conversation = sample["conversation"]
    # Reflection would run behind the memorizes and blur the "after" figure.
    quiet = {"HIPPOGRAPH_MEMORIZE__REFLECT_AFTER_WRITE": "false"}
    async with (
        running("arcadedb", quiet) as stack,
        httpx.AsyncClient(base_url=stack.url, headers=ADMIN_HEADERS, timeout=600) as client,
    ):
        ready = stack.rss_mb()["serve"]
        await graphql_data(client, USER, {"id": "u", "name": "U"})
        turns = 0
        for key, value in conversation.items():
            if not (key.startswith("session_") and isinstance(value, list)):
                continue
            made = await graphql_data(client, SESSION, {"u": "u", "title": "s"})
            session = made["createSession"]["session"]["id"]
            messages = [{"speaker": t["speaker"], "content": t["text"]} for t in value]
            turns += len(messages)
            await graphql_data(client, MEMORIZE, {"u": "u", "s": session, "m": messages})
        for qa in sample["qa"]:
            await graphql_data(client, SEARCH, {"u": "u", "q": qa["question"]})
        after = stack.rss_mb()["serve"]
    return {"ready_mib": ready, "after_mib": after, "turns": turns, "searches": len(sample["qa"])}


def show(report: Report, args: argparse.Namespace) -> None:
    """The two figures, with what came between them."""
    print(
        f"serve RSS: {report['ready_mib']} MiB once ready, {report['after_mib']} MiB after "
        f"memorizing {report['turns']} turns and {report['searches']} searches"
    )


def main() -> None:
    """Print the figures (JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=LOCOMO)
    report_cli(parser, lambda a: measure(locomo_samples(a.file)[0]), show)


if __name__ == "__main__":
    main()
