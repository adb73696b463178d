"""The README's GraphiQL walk-through runs as pasted, block by block."""

from __future__ import annotations

import json
import re

from tests.api.conftest import Api
from tests.documents import section

_BLOCK = re.compile(r"```graphql\n(.*?)```", re.DOTALL)
_PLACEHOLDER = re.compile(r"\b(ses|msg|mem)_…")


def walkthrough_blocks() -> list[str]:
    """The GraphQL blocks of the README's "A walk through GraphiQL" section."""
    walk = section("README.md", "A walk through GraphiQL")
    return [block.replace("\n   ", "\n") for block in _BLOCK.findall(walk)]


def test_every_step_of_the_walkthrough_runs_as_pasted(api: Api) -> None:
    blocks = walkthrough_blocks()
    assert len(blocks) >= 5
    seen: dict[str, str] = {}
    for block in blocks:
        # "ses_…" means "the session id step 1 printed": the first one seen.
        document = _PLACEHOLDER.sub(lambda m: seen[m.group(1)], block)
        body = api.post(document)
        assert body["_status"] == 200, (block, body)
        assert not body.get("errors"), (block, body)
        answer = json.dumps(body["data"])
        assert not re.search(r'"__typename": "\w*Error"', answer), (block, answer)
        for prefix in ("ses", "msg", "mem"):
            found = re.search(rf'"({prefix}_[0-9A-Z]+)"', answer)
            if found and prefix not in seen:
                seen[prefix] = found.group(1)
