"""The GraphQL documents the MCP tools and resources run (``operations/mcp.graphql``)."""

# Written by `python -m codegen` from operations/mcp.graphql: edit that, then run it again.

from __future__ import annotations

CREATE_SESSION = """
mutation McpCreateSession($userId: ID!, $title: String!) {
  createSession(input: {userId: $userId, title: $title}) {
    __typename
    ... on SessionCreated { session { id } }
    ...McpProblem
  }
}
fragment McpProblem on Error { code message ... on InputError { field } }
"""

DROP_SESSION = """
mutation McpDropSession($id: ID!) {
  deleteWithProvenance(input: {id: $id, dryRun: false, expectedDeleted: [$id]}) {
    __typename
    ... on DeletionReport { applied }
    ...McpProblem
  }
}
fragment McpProblem on Error { code message ... on InputError { field } }
"""

MEMORIZE = """
mutation McpMemorize($input: MemorizeInput!) {
  memorize(input: $input) {
    __typename
    ... on Memorized {
      created
      messages { id seq speaker }
      counts { messages memunits memories superseded pending reflections consolidated }
      job { ...McpJobFields }
    }
    ...McpProblem
  }
}
fragment McpJobFields on Job {
  id kind status userIds createdAt startedAt finishedAt error
  counts { messages memunits memories superseded pending reflections consolidated }
}
fragment McpProblem on Error { code message ... on InputError { field } }
"""

JOB = """
query McpJob($id: ID!) { job(id: $id) { ...McpJobFields } }
fragment McpJobFields on Job {
  id kind status userIds createdAt startedAt finishedAt error
  counts { messages memunits memories superseded pending reflections consolidated }
}
"""

SEARCH = """
query McpSearch($userId: ID!, $query: String!, $topK: Int!, $method: SearchMethod!,
                $filter: MemoryFilterInput, $touch: Boolean!) {
  search(userId: $userId, query: $query, topK: $topK, method: $method, filter: $filter,
         touch: $touch) {
    method strategy mode fallback touched
    period { label start end }
    hits {
      score similarity level
      memory { ...McpMemoryFields }
      memUnit { id summary }
      breakdown {
        semantic keyword relevance context timeMatch entity fused recency importance final
        vectorRank keywordRank methods fallback
      }
    }
  }
}
fragment McpMemoryFields on Memory {
  id userId kind content level category importance createdAt validFrom validTo topic sessionId
}
"""

APPLY_MEMORY_OPS = """
mutation McpApplyMemoryOps($input: ApplyMemoryOpsInput!) {
  applyMemoryOps(input: $input) {
    __typename
    ... on MemoryOpsApplied { results { index op memoryId supersededId } }
    ...McpProblem
  }
}
fragment McpProblem on Error { code message ... on InputError { field } }
"""

MEMORY = """
query McpMemory($id: ID!) { memory(id: $id) { ...McpMemoryFields } }
fragment McpMemoryFields on Memory {
  id userId kind content level category importance createdAt validFrom validTo topic sessionId
}
"""

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
}
"""

REFLECT = """
mutation McpReflect($userId: ID!, $force: Boolean!) {
  reflect(userId: $userId, force: $force) {
    __typename
    ... on ReflectQueued { job { ...McpJobFields } }
    ...McpProblem
  }
}
fragment McpJobFields on Job {
  id kind status userIds createdAt startedAt finishedAt error
  counts { messages memunits memories superseded pending reflections consolidated }
}
fragment McpProblem on Error { code message ... on InputError { field } }
"""

FORGET = """
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
    ...McpProblem
  }
}
fragment McpProblem on Error { code message ... on InputError { field } }
"""

USERS = """
query McpUsers($first: Int!, $after: String) {
  users(first: $first, after: $after) {
    edges { node { id name createdAt } }
    pageInfo { hasNextPage endCursor }
  }
}
"""

USER_MEMORIES = """
query McpUserMemories($userId: ID!, $filter: MemoryFilterInput!, $first: Int!) {
  user(id: $userId) { id name createdAt }
  memories(userId: $userId, filter: $filter, first: $first) {
    edges { node { ...McpMemoryFields } }
  }
}
fragment McpMemoryFields on Memory {
  id userId kind content level category importance createdAt validFrom validTo topic sessionId
}
"""

CREATE_USER = """
mutation McpCreateUser($id: ID!, $name: String!) {
  createUser(input: {id: $id, name: $name}) {
    __typename
    ... on UserCreated { user { id name createdAt } }
    ...McpProblem
  }
}
fragment McpProblem on Error { code message ... on InputError { field } }
"""

MEMORIES = """
query McpMemories($userId: ID!, $filter: MemoryFilterInput!, $first: Int!, $after: String) {
  user(id: $userId) { id }
  memories(userId: $userId, filter: $filter, first: $first, after: $after) {
    edges { node { ...McpMemoryFields } }
    pageInfo { hasNextPage endCursor }
  }
}
fragment McpMemoryFields on Memory {
  id userId kind content level category importance createdAt validFrom validTo topic sessionId
}
"""

DELETE_USER = """
mutation McpDeleteUser($id: ID!, $dryRun: Boolean!) {
  deleteUser(input: {id: $id, dryRun: $dryRun}) {
    __typename
    ... on UserDeletion {
      userId applied otherUsersNodes kept
      counts { sessions messages memUnits memories }
    }
    ...McpProblem
  }
}
fragment McpProblem on Error { code message ... on InputError { field } }
"""

ALL = (
    CREATE_SESSION,
    DROP_SESSION,
    MEMORIZE,
    JOB,
    SEARCH,
    APPLY_MEMORY_OPS,
    MEMORY,
    PROVENANCE,
    REFLECT,
    FORGET,
    USERS,
    USER_MEMORIES,
    CREATE_USER,
    MEMORIES,
    DELETE_USER,
)
"""Every document above."""
