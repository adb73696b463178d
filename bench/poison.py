"""One tenant sends text that is not text; does another tenant notice?

Starts ``hippograph serve`` on loopback (embedded ArcadeDB, the real model)
with two agents, each with its own user and key. The victim runs
``--searches`` HYBRID searches (LoCoMo questions, ``--victims`` at a time)
and a memorize every tenth request; meanwhile the attacker sends, at
``--rate`` requests/s (below the default rate limit), searches and memorize
calls holding a lone UTF-16 surrogate (``"\\ud800"`` in the JSON). Counts the
victim's failures and how the attacker was answered. Bounded in count and
time, loopback only.

    .venv/bin/python -m bench.poison [--searches 300] [--rate 15] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
from collections import Counter
from typing import Any

import httpx

from bench.common import (
    ADMIN_HEADERS,
    Report,
    locomo_questions,
    locomo_turn_texts,
    machine,
    report_cli,
)
from bench.load import Client, _messages, _setup
from bench.stack import MEMORIZE, SEARCH, running


async def _victim(
    client: Client, questions: list[str], turns: list[str], count: int, outcomes: Counter[str]
) -> None:
    rng = random.Random(count)
    for index in range(count):
        if index % 10 == 9:
            texts = rng.sample(turns, 2)
            _, error = await client.call(MEMORIZE, _messages(client, texts))
        else:
            _, error = await client.call(SEARCH, {"u": client.user, "q": rng.choice(questions)})
        outcomes["ok" if not error else f"failed: {error[:60]}"] += 1


async def _attacker(
    client: Client, rate: float, stop: asyncio.Event, answers: Counter[str]
) -> None:
    poisoned = "what about \ud800 this"
    bodies = [
        {"query": SEARCH, "variables": {"u": client.user, "q": poisoned}},
        {"query": MEMORIZE, "variables": _messages(client, [poisoned])},
    ]
    index = 0
    while not stop.is_set():
        # ensure_ascii (the default) writes the surrogate as the escape \ud800.
        body = json.dumps(bodies[index % 2]).encode()
        response = await client.http.post(
            "/graphql",
            content=body,
            headers={**client.headers, "Content-Type": "application/json"},
        )
        errors = response.json().get("errors") or [{}]
        code = (errors[0].get("extensions") or {}).get("code", "none")
        answers[f"HTTP {response.status_code} {code}"] += 1
        index += 1
        await asyncio.sleep(1 / rate)


async def run(searches: int, victims: int, rate: float) -> dict[str, Any]:
    """The victim's outcomes and the attacker's answers."""
    turns, questions = locomo_turn_texts(), locomo_questions()
    async with (
        running("arcadedb", rate_limited=True) as stack,
        httpx.AsyncClient(base_url=stack.url, headers=ADMIN_HEADERS, timeout=120) as http,
    ):
        victim, attacker = await _setup(http, 2, turns)
        outcomes: Counter[str] = Counter()
        answers: Counter[str] = Counter()
        stop = asyncio.Event()
        attack = asyncio.create_task(_attacker(attacker, rate, stop, answers))
        share = searches // victims
        await asyncio.gather(
            *(_victim(victim, questions, turns, share, outcomes) for _ in range(victims))
        )
        stop.set()
        await attack
    failed = sum(n for outcome, n in outcomes.items() if outcome != "ok")
    return {
        "victim_requests": sum(outcomes.values()),
        "victim_failed": failed,
        "victim_outcomes": dict(outcomes.most_common(5)),
        "attacker_requests": sum(answers.values()),
        "attacker_answers": dict(answers),
        "machine": machine(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, default=300)
    parser.add_argument("--victims", type=int, default=4, help="victim requests in flight")
    parser.add_argument("--rate", type=float, default=15.0, help="attacker requests per second")
    report_cli(parser, lambda a: run(a.searches, a.victims, a.rate), show)


def show(report: Report, args: argparse.Namespace) -> None:
    """What the victim and the attacker got."""
    print(
        f"victim: {report['victim_failed']} of {report['victim_requests']} failed "
        f"{report['victim_outcomes']}\nattacker: {report['attacker_requests']} requests "
        f"answered {report['attacker_answers']}"
    )


if __name__ == "__main__":
    main()
