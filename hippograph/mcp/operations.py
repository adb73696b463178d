"""The GraphQL documents the MCP tools and resources run, from ``operations.graphql`` here.

That file is MCP's part of the project's one folder of operations
(``operations/mcp.graphql`` links to it; tests/test_contract.py validates
each operation against the schema). Each selects what an agent acts on —
ids, text, scores and their breakdown, job states — and the error members of
every result union (``McpProblem``), which ``Gateway.outcome`` turns into
tool errors.
"""

from __future__ import annotations

from pathlib import Path

from hippograph.graphql_documents import operations

_DOCUMENTS = {
    op.name: op.document for op in operations(Path(__file__).with_name("operations.graphql"))
}

CREATE_SESSION = _DOCUMENTS["McpCreateSession"]
DROP_SESSION = _DOCUMENTS["McpDropSession"]
MEMORIZE = _DOCUMENTS["McpMemorize"]
JOB = _DOCUMENTS["McpJob"]
SEARCH = _DOCUMENTS["McpSearch"]
APPLY_MEMORY_OPS = _DOCUMENTS["McpApplyMemoryOps"]
MEMORY = _DOCUMENTS["McpMemory"]
PROVENANCE = _DOCUMENTS["McpProvenance"]
REFLECT = _DOCUMENTS["McpReflect"]
FORGET = _DOCUMENTS["McpForget"]
USERS = _DOCUMENTS["McpUsers"]
USER_MEMORIES = _DOCUMENTS["McpUserMemories"]
CREATE_USER = _DOCUMENTS["McpCreateUser"]
MEMORIES = _DOCUMENTS["McpMemories"]
DELETE_USER = _DOCUMENTS["McpDeleteUser"]
