"""The GraphQL documents the MCP tools and resources run (one per operation).

They select what an agent can act on — ids, text, scores and their
breakdown, job states — and the error members of every result union, which
``Gateway.outcome`` turns into tool errors.
"""

from __future__ import annotations

# Every mutation result union ends with these: the error members as data.
_ERRORS = """
    ... on Error { code message }
    ... on InputError { field }
"""

_JOB = "id kind status userIds createdAt startedAt finishedAt error " + (
    "counts { messages memunits memories superseded pending reflections consolidated }"
)

_MEMORY = (
    "id userId kind content level category importance createdAt validFrom validTo topic sessionId"
)

CREATE_SESSION = (
    """
mutation McpCreateSession($userId: ID!, $title: String!) {
  createSession(input: {userId: $userId, title: $title}) {
    __typename
    ... on SessionCreated { session { id } }
    """
    + _ERRORS
    + """
  }
}"""
)

DROP_SESSION = (
    """
mutation McpDropSession($id: ID!) {
  deleteWithProvenance(input: {id: $id, dryRun: false, expectedDeleted: [$id]}) {
    __typename
    ... on DeletionReport { applied }
    """
    + _ERRORS
    + """
  }
}"""
)

MEMORIZE = (
    """
mutation McpMemorize($input: MemorizeInput!) {
  memorize(input: $input) {
    __typename
    ... on Memorized {
      created
      messages { id seq speaker }
      counts { messages memunits memories superseded pending reflections consolidated }
      job { """
    + _JOB
    + """ }
    }
    """
    + _ERRORS
    + """
  }
}"""
)

JOB = "query McpJob($id: ID!) { job(id: $id) { " + _JOB + " } }"

SEARCH = (
    """
query McpSearch($userId: ID!, $query: String!, $topK: Int!, $method: SearchMethod!,
                $filter: MemoryFilterInput, $touch: Boolean!) {
  search(userId: $userId, query: $query, topK: $topK, method: $method, filter: $filter,
         touch: $touch) {
    method strategy mode fallback touched
    period { label start end }
    hits {
      score similarity level
      memory { """
    + _MEMORY
    + """ }
      memUnit { id summary }
      breakdown {
        semantic keyword relevance context timeMatch entity fused recency importance final
        vectorRank keywordRank methods fallback
      }
    }
  }
}"""
)

APPLY_MEMORY_OPS = (
    """
mutation McpMemoryOps($input: ApplyMemoryOpsInput!) {
  applyMemoryOps(input: $input) {
    __typename
    ... on MemoryOpsApplied { results { index op memoryId supersededId } }
    """
    + _ERRORS
    + """
  }
}"""
)

MEMORY = "query McpMemory($id: ID!) { memory(id: $id) { " + _MEMORY + " } }"

PROVENANCE = """
query McpProvenance($id: ID!, $depth: Int!, $direction: Direction!) {
  provenance(id: $id, depth: $depth, direction: $direction) {
    root { id }
    nodes {
      __typename id
      ... on Memory { kind content }
      ... on Message { speaker content ts }
      ... on MemUnit { summary }
    }
    edges { source type target }
    paths { nodeIds edgeTypes target }
    pathsTruncated
  }
}"""

REFLECT = (
    """
mutation McpReflect($userId: ID!, $force: Boolean!) {
  reflect(userId: $userId, force: $force) {
    __typename
    ... on ReflectQueued { job { """
    + _JOB
    + """ } }
    """
    + _ERRORS
    + """
  }
}"""
)

FORGET = (
    """
mutation McpForget($input: ForgetInput!) {
  forget(input: $input) {
    __typename
    ... on ForgetReport {
      userId policy strategy dryRun asOf changesTruncated
      counts {
        scanned exempt unchanged changed promoted fuzzed restored softDeleted hardDeleted
        cascaded batches
      }
      changes { memoryId action weight fromLevel toLevel promoted reason }
    }
    """
    + _ERRORS
    + """
  }
}"""
)

USERS = """
query McpUsers($first: Int!, $after: String) {
  users(first: $first, after: $after) {
    edges { node { id name createdAt } }
    pageInfo { hasNextPage endCursor }
  }
}"""

USER_MEMORIES = (
    """
query McpUserMemories($userId: ID!, $filter: MemoryFilterInput!, $first: Int!) {
  user(id: $userId) { id name createdAt }
  memories(userId: $userId, filter: $filter, first: $first) {
    edges { node { """
    + _MEMORY
    + """ } }
  }
}"""
)

CREATE_USER = (
    """
mutation McpCreateUser($id: ID!, $name: String!) {
  createUser(input: {id: $id, name: $name}) {
    __typename
    ... on UserCreated { user { id name createdAt } }
    """
    + _ERRORS
    + """
  }
}"""
)

MEMORIES = (
    """
query McpMemories($userId: ID!, $filter: MemoryFilterInput!, $first: Int!, $after: String) {
  user(id: $userId) { id }
  memories(userId: $userId, filter: $filter, first: $first, after: $after) {
    edges { node { """
    + _MEMORY
    + """ } }
    pageInfo { hasNextPage endCursor }
  }
}"""
)

DELETE_USER = (
    """
mutation McpDeleteUser($id: ID!, $dryRun: Boolean!) {
  deleteUser(input: {id: $id, dryRun: $dryRun}) {
    __typename
    ... on UserDeletion {
      userId applied otherUsersNodes kept
      counts { sessions messages memUnits memories }
    }
    """
    + _ERRORS
    + """
  }
}"""
)
