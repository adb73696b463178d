"""docs/examples runs as a reader pastes it into GraphiQL: every operation, file after file.

Each file names what its variables and ``…_REPLACE_WITH_…`` ids are (an id an
earlier step printed); here they are taken from those earlier answers. No
operation may answer an error, nor a mutation an error member.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hippograph.graphql_documents import operations
from tests.api.conftest import Api

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"

# Where each variable and placeholder comes from: an earlier operation's answer, by path.
SOURCES = {
    "sessionId": ("CreateSession", "createSession.session.id"),
    "ses_REPLACE_WITH_A_SESSION_ID": ("CreateSession", "createSession.session.id"),
    "messageId": ("AddMessages", "addMessages.messages.0.id"),
    "msg_REPLACE_WITH_A_MESSAGE_ID": ("AddMessages", "addMessages.messages.0.id"),
    "memoryId": ("AddMemory", "addMemory.memory.id"),
    "mem_REPLACE_WITH_A_MEMORY_ID": ("CorrectMemory", "updateMemory.memory.id"),
    "keyId": ("CreateKeyForAlice", "createApiKey.id"),
    # The example's Memorize is small, so it ran at once and queued no job: a
    # well-formed id of none, which `job` answers with null.
    "job_REPLACE_WITH_A_JOB_ID": ("Memorize", None),
    "mem_REPLACE_WITH_A_REFLECTION_ID": ("Reflections", "memories.edges.0.node.id"),
    "job_REPLACE_WITH_THE_JOB_ID": ("Trim", "forget.job.id"),
}
_PLACEHOLDER = re.compile(r"\b\w+_REPLACE_WITH_\w+")


def _at(answer: dict[str, Any], path: str) -> Any:
    value: Any = answer
    for step in path.split("."):
        value = value[int(step)] if isinstance(value, list) else value[step]
    return value


def _settle(api: Api, answer: dict[str, Any]) -> None:
    """Wait for the jobs an answer queued, as a reader waits before the next step."""
    for job_id in re.findall(r'"(job_[0-9A-Z]{26})"', json.dumps(answer)):
        job = api.finished_job("query($id: ID!) { job(id: $id) { status } }", job_id, 60)
        assert job["status"] == "SUCCEEDED", (job_id, job)


def test_every_example_runs_in_order_without_an_error(api: Api) -> None:
    answers: dict[str, dict[str, Any]] = {}

    def source(name: str) -> Any:
        operation, path = SOURCES[name]
        return _at(answers[operation], path) if path else "job_" + "0" * 26

    ran = []
    for path in sorted(EXAMPLES.glob("*.graphql")):
        for op in operations(path):
            document = _PLACEHOLDER.sub(lambda m: str(source(m.group(0))), op.document)
            variables = {name: source(name) for name in re.findall(r"\$(\w+):", document)}
            body = api.post(document, variables)
            assert body["_status"] == 200, (op.name, body)
            assert not body.get("errors"), (op.name, body)
            printed = json.dumps(body["data"])
            assert not re.search(r'"__typename": "\w*Error"', printed), (op.name, printed)
            answers[op.name] = body["data"]
            _settle(api, body["data"])
            ran.append(op.name)
    assert len(ran) >= 25
