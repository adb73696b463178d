"""Every GraphQL document the client sends (tests/client/test_operations.py validates each
against schema.graphql, so a schema change that breaks one fails the suite).

Selections name the fields of the result types in ``results.py``; a field
added there is added to its fragment here.
"""

from __future__ import annotations

# The error members of every mutation's union, read by errors.from_error_member.
# NotFoundError's id is a String!, which cannot share a response key with a
# success member's ID! id: hence the alias.
PROBLEM = """
fragment Problem on Error {
  message code ... on InputError { field } ... on NotFoundError { missingId: id }
}
"""

USER_FIELDS = "fragment UserFields on User { id name createdAt }\n"

SESSION_FIELDS = "fragment SessionFields on Session { id userId title startedAt }\n"

MESSAGE_FIELDS = """
fragment MessageFields on Message { id sessionId userId speaker role content ts seq clientId }
"""

MEMUNIT_FIELDS = """
fragment MemUnitFields on MemUnit {
  id userIds sessionId groupId summary narrative subject participants keywords ts sourceType
}
"""

MEMORY_FIELDS = """
fragment MemoryFields on Memory {
  id userId kind content originalContent level category importance source verified
  createdAt lastAccessedAt accessCount validFrom validTo consolidated domain topic sessionId
  deletedAt aboutStart aboutEnd
}
"""

FORGET_COUNT_FIELDS = """
fragment ForgetCountFields on ForgetCounts {
  scanned exempt unchanged changed promoted fuzzed restored softDeleted hardDeleted cascaded
  batches levelMoves { fromLevel toLevel count }
}
"""

JOB_COUNT_FIELDS = """
fragment JobCountFields on JobCounts {
  messages memunits memories superseded pending reflections consolidated
}
"""

JOB_FIELDS = (
    """
fragment JobFields on Job {
  id kind status userIds createdAt startedAt finishedAt attempts error
  counts { ...JobCountFields }
  usage { promptTokens completionTokens calls }
  forgetCounts { ...ForgetCountFields }
}
"""
    + JOB_COUNT_FIELDS
    + FORGET_COUNT_FIELDS
)

NODE_FIELDS = """
fragment NodeFields on Node {
  __typename id
  ... on Message { content }
  ... on Memory { content }
  ... on MemUnit { summary }
  ... on Session { title }
  ... on User { name }
  ... on Entity { name }
}
"""

VIEWER = "query Viewer { viewer { keyId admin userIds } }"

CREATE_API_KEY = (
    """
mutation CreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) {
    __typename
    ... on ApiKeyCreated { id key name admin userIds createdAt }
    ...Problem
  }
}
"""
    + PROBLEM
)

CREATE_USER = (
    """
mutation CreateUser($input: CreateUserInput!) {
  createUser(input: $input) {
    __typename
    ... on UserCreated { user { ...UserFields } }
    ...Problem
  }
}
"""
    + USER_FIELDS
    + PROBLEM
)

USER = "query User($id: ID!) { user(id: $id) { ...UserFields } }\n" + USER_FIELDS

CREATE_SESSION = (
    """
mutation CreateSession($input: CreateSessionInput!) {
  createSession(input: $input) {
    __typename
    ... on SessionCreated { session { ...SessionFields } }
    ...Problem
  }
}
"""
    + SESSION_FIELDS
    + PROBLEM
)

ADD_MESSAGES = (
    """
mutation AddMessages($input: AddMessagesInput!) {
  addMessages(input: $input) {
    __typename
    ... on MessagesAdded { messages { ...MessageFields } created existing }
    ...Problem
  }
}
"""
    + MESSAGE_FIELDS
    + PROBLEM
)

ENTITIES = """
query Entities($userId: ID!, $first: Int, $after: String) {
  entities(userId: $userId, first: $first, after: $after) {
    edges { node { id userId name norm kind mentionCount } }
    pageInfo { hasNextPage endCursor }
  }
}
"""

MEMORIZE = (
    """
mutation Memorize($input: MemorizeInput!) {
  memorize(input: $input) {
    __typename
    ... on Memorized {
      messages { ...MessageFields }
      created
      counts { ...JobCountFields }
      job { ...JobFields }
    }
    ...Problem
  }
}
"""
    + MESSAGE_FIELDS
    + JOB_FIELDS
    + PROBLEM
)

JOB = "query Job($id: ID!) { job(id: $id) { ...JobFields } }\n" + JOB_FIELDS

SEARCH = (
    """
query Search(
  $userId: ID!, $query: String!, $topK: Int, $method: SearchMethod, $scoring: ScoringInput,
  $mode: SearchMode, $filter: MemoryFilterInput, $candidates: Int, $radius: Float,
  $touch: Boolean, $target: SearchTarget
) {
  search(
    userId: $userId, query: $query, topK: $topK, method: $method, scoring: $scoring,
    mode: $mode, filter: $filter, candidates: $candidates, radius: $radius, touch: $touch,
    target: $target
  ) {
    method strategy mode fallback touched
    period { label start end month }
    hits {
      level score similarity
      memory { ...MemoryFields }
      memUnit { ...MemUnitFields }
      breakdown {
        semantic keyword relevance context timeMatch entity fused recency importance final
        vectorRank keywordRank methods fallback
      }
    }
  }
}
"""
    + MEMORY_FIELDS
    + MEMUNIT_FIELDS
)

MEMORY = "query Memory($id: ID!) { memory(id: $id) { ...MemoryFields } }\n" + MEMORY_FIELDS

MEMORIES = (
    """
query Memories($userId: ID!, $filter: MemoryFilterInput, $first: Int, $after: String) {
  memories(userId: $userId, filter: $filter, first: $first, after: $after) {
    edges { node { ...MemoryFields } }
    pageInfo { hasNextPage endCursor }
  }
}
"""
    + MEMORY_FIELDS
)

_MEMORY_RESULT = """
    __typename
    ... on MemoryPayload { memory { ...MemoryFields } }
    ...Problem
"""

ADD_MEMORY = (
    "mutation AddMemory($input: AddMemoryInput!) { addMemory(input: $input) {"
    + _MEMORY_RESULT
    + "} }\n"
    + MEMORY_FIELDS
    + PROBLEM
)

UPDATE_MEMORY = (
    "mutation UpdateMemory($input: UpdateMemoryInput!) { updateMemory(input: $input) {"
    + _MEMORY_RESULT
    + "} }\n"
    + MEMORY_FIELDS
    + PROBLEM
)

DELETE_MEMORY = (
    """
mutation DeleteMemory($input: DeleteMemoryInput!) {
  deleteMemory(input: $input) {
    __typename
    ... on MemoryDeleted { id hard }
    ...Problem
  }
}
"""
    + PROBLEM
)

DELETE_USER = (
    """
mutation DeleteUser($input: DeleteUserInput!) {
  deleteUser(input: $input) {
    __typename
    ... on UserDeletion {
      userId applied otherUsersNodes kept
      counts { sessions messages memUnits memories }
    }
    ...Problem
  }
}
"""
    + PROBLEM
)

APPLY_MEMORY_OPS = (
    """
mutation ApplyMemoryOps($input: ApplyMemoryOpsInput!) {
  applyMemoryOps(input: $input) {
    __typename
    ... on MemoryOpsApplied { results { index op memoryId supersededId } }
    ...Problem
  }
}
"""
    + PROBLEM
)

PROVENANCE = (
    """
query Provenance($id: ID!, $depth: Int, $direction: Direction) {
  provenance(id: $id, depth: $depth, direction: $direction) {
    root { ...NodeFields }
    nodes { ...NodeFields }
    edges { source type target }
    paths { nodeIds edgeTypes target }
    pathsTruncated
  }
}
"""
    + NODE_FIELDS
)

REFLECT = (
    """
mutation Reflect($userId: ID!, $force: Boolean) {
  reflect(userId: $userId, force: $force) {
    __typename
    ... on ReflectQueued { job { ...JobFields } }
    ...Problem
  }
}
"""
    + JOB_FIELDS
    + PROBLEM
)

FORGET = (
    """
mutation Forget($input: ForgetInput!) {
  forget(input: $input) {
    __typename
    ... on ForgetReport {
      userId policy strategy dryRun asOf changesTruncated
      counts { ...ForgetCountFields }
      changes { memoryId action weight fromLevel toLevel promoted reason }
    }
    ... on ForgetQueued { job { ...JobFields } }
    ...Problem
  }
}
"""
    + JOB_FIELDS
    + PROBLEM
)

ALL = (
    VIEWER,
    CREATE_API_KEY,
    CREATE_USER,
    USER,
    CREATE_SESSION,
    ADD_MESSAGES,
    MEMORIZE,
    JOB,
    SEARCH,
    MEMORY,
    MEMORIES,
    ENTITIES,
    ADD_MEMORY,
    UPDATE_MEMORY,
    DELETE_MEMORY,
    DELETE_USER,
    APPLY_MEMORY_OPS,
    PROVENANCE,
    REFLECT,
    FORGET,
)
"""Every document above: what the schema test validates."""
