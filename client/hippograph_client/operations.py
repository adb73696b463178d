"""Every GraphQL document the client sends (``operations/client.graphql``)."""

# Written by `python -m codegen` from operations/client.graphql: edit that, then run it again.

from __future__ import annotations

VIEWER = """
query Viewer { viewer { keyId admin userIds } }
"""

CREATE_API_KEY = """
mutation CreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) {
    __typename
    ... on ApiKeyCreated { id key name admin userIds createdAt }
    ...Problem
  }
}
fragment Problem on Error {
  message code ... on InputError { field } ... on NotFoundError { missingId: id }
}
"""

CREATE_USER = """
mutation CreateUser($input: CreateUserInput!) {
  createUser(input: $input) {
    __typename
    ... on UserCreated { user { ...UserFields } }
    ...Problem
  }
}
fragment UserFields on User { id name createdAt }
fragment Problem on Error {
  message code ... on InputError { field } ... on NotFoundError { missingId: id }
}
"""

USER = """
query User($id: ID!) { user(id: $id) { ...UserFields } }
fragment UserFields on User { id name createdAt }
"""

CREATE_SESSION = """
mutation CreateSession($input: CreateSessionInput!) {
  createSession(input: $input) {
    __typename
    ... on SessionCreated { session { ...SessionFields } }
    ...Problem
  }
}
fragment SessionFields on Session { id userId title startedAt }
fragment Problem on Error {
  message code ... on InputError { field } ... on NotFoundError { missingId: id }
}
"""

ADD_MESSAGES = """
mutation AddMessages($input: AddMessagesInput!) {
  addMessages(input: $input) {
    __typename
    ... on MessagesAdded { messages { ...MessageFields } created existing }
    ...Problem
  }
}
fragment MessageFields on Message { id sessionId userId speaker role content ts seq clientId }
fragment Problem on Error {
  message code ... on InputError { field } ... on NotFoundError { missingId: id }
}
"""

ENTITIES = """
query Entities($userId: ID!, $first: Int, $after: String) {
  entities(userId: $userId, first: $first, after: $after) {
    edges { node { id userId name norm kind mentionCount } }
    pageInfo { hasNextPage endCursor }
  }
}
"""

MEMORIZE = """
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
fragment MessageFields on Message { id sessionId userId speaker role content ts seq clientId }
fragment JobCountFields on JobCounts {
  messages memunits memories superseded pending reflections consolidated
}
fragment JobFields on Job {
  id kind status userIds createdAt startedAt finishedAt attempts error
  counts { ...JobCountFields }
  usage { promptTokens completionTokens calls }
  forgetCounts { ...ForgetCountFields }
}
fragment Problem on Error {
  message code ... on InputError { field } ... on NotFoundError { missingId: id }
}
fragment ForgetCountFields on ForgetCounts {
  scanned exempt unchanged changed promoted fuzzed restored softDeleted hardDeleted cascaded
  batches levelMoves { fromLevel toLevel count }
}
"""

JOB = """
query Job($id: ID!) { job(id: $id) { ...JobFields } }
fragment JobFields on Job {
  id kind status userIds createdAt startedAt finishedAt attempts error
  counts { ...JobCountFields }
  usage { promptTokens completionTokens calls }
  forgetCounts { ...ForgetCountFields }
}
fragment JobCountFields on JobCounts {
  messages memunits memories superseded pending reflections consolidated
}
fragment ForgetCountFields on ForgetCounts {
  scanned exempt unchanged changed promoted fuzzed restored softDeleted hardDeleted cascaded
  batches levelMoves { fromLevel toLevel count }
}
"""

SEARCH = """
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
fragment MemoryFields on Memory {
  id userId kind content originalContent level category importance source verified
  createdAt lastAccessedAt accessCount validFrom validTo consolidated domain topic sessionId
  deletedAt aboutStart aboutEnd
}
fragment MemUnitFields on MemUnit {
  id userIds sessionId groupId summary narrative subject participants keywords ts sourceType
}
"""

MEMORY = """
query Memory($id: ID!) { memory(id: $id) { ...MemoryFields } }
fragment MemoryFields on Memory {
  id userId kind content originalContent level category importance source verified
  createdAt lastAccessedAt accessCount validFrom validTo consolidated domain topic sessionId
  deletedAt aboutStart aboutEnd
}
"""

MEMORIES = """
query Memories($userId: ID!, $filter: MemoryFilterInput, $first: Int, $after: String) {
  memories(userId: $userId, filter: $filter, first: $first, after: $after) {
    edges { node { ...MemoryFields } }
    pageInfo { hasNextPage endCursor }
  }
}
fragment MemoryFields on Memory {
  id userId kind content originalContent level category importance source verified
  createdAt lastAccessedAt accessCount validFrom validTo consolidated domain topic sessionId
  deletedAt aboutStart aboutEnd
}
"""

ADD_MEMORY = """
mutation AddMemory($input: AddMemoryInput!) { addMemory(input: $input) {
    __typename
    ... on MemoryPayload { memory { ...MemoryFields } }
    ...Problem
} }
fragment MemoryFields on Memory {
  id userId kind content originalContent level category importance source verified
  createdAt lastAccessedAt accessCount validFrom validTo consolidated domain topic sessionId
  deletedAt aboutStart aboutEnd
}
fragment Problem on Error {
  message code ... on InputError { field } ... on NotFoundError { missingId: id }
}
"""

UPDATE_MEMORY = """
mutation UpdateMemory($input: UpdateMemoryInput!) { updateMemory(input: $input) {
    __typename
    ... on MemoryPayload { memory { ...MemoryFields } }
    ...Problem
} }
fragment MemoryFields on Memory {
  id userId kind content originalContent level category importance source verified
  createdAt lastAccessedAt accessCount validFrom validTo consolidated domain topic sessionId
  deletedAt aboutStart aboutEnd
}
fragment Problem on Error {
  message code ... on InputError { field } ... on NotFoundError { missingId: id }
}
"""

DELETE_MEMORY = """
mutation DeleteMemory($input: DeleteMemoryInput!) {
  deleteMemory(input: $input) {
    __typename
    ... on MemoryDeleted { id hard }
    ...Problem
  }
}
fragment Problem on Error {
  message code ... on InputError { field } ... on NotFoundError { missingId: id }
}
"""

DELETE_USER = """
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
fragment Problem on Error {
  message code ... on InputError { field } ... on NotFoundError { missingId: id }
}
"""

APPLY_MEMORY_OPS = """
mutation ApplyMemoryOps($input: ApplyMemoryOpsInput!) {
  applyMemoryOps(input: $input) {
    __typename
    ... on MemoryOpsApplied { results { index op memoryId supersededId } }
    ...Problem
  }
}
fragment Problem on Error {
  message code ... on InputError { field } ... on NotFoundError { missingId: id }
}
"""

PROVENANCE = """
query Provenance($id: ID!, $depth: Int, $direction: Direction) {
  provenance(id: $id, depth: $depth, direction: $direction) {
    root { ...NodeFields }
    nodes { ...NodeFields }
    edges { source type target }
    paths { nodeIds edgeTypes target }
    pathsTruncated
  }
}
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

REFLECT = """
mutation Reflect($userId: ID!, $force: Boolean) {
  reflect(userId: $userId, force: $force) {
    __typename
    ... on ReflectQueued { job { ...JobFields } }
    ...Problem
  }
}
fragment JobFields on Job {
  id kind status userIds createdAt startedAt finishedAt attempts error
  counts { ...JobCountFields }
  usage { promptTokens completionTokens calls }
  forgetCounts { ...ForgetCountFields }
}
fragment Problem on Error {
  message code ... on InputError { field } ... on NotFoundError { missingId: id }
}
fragment JobCountFields on JobCounts {
  messages memunits memories superseded pending reflections consolidated
}
fragment ForgetCountFields on ForgetCounts {
  scanned exempt unchanged changed promoted fuzzed restored softDeleted hardDeleted cascaded
  batches levelMoves { fromLevel toLevel count }
}
"""

FORGET = """
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
fragment ForgetCountFields on ForgetCounts {
  scanned exempt unchanged changed promoted fuzzed restored softDeleted hardDeleted cascaded
  batches levelMoves { fromLevel toLevel count }
}
fragment JobFields on Job {
  id kind status userIds createdAt startedAt finishedAt attempts error
  counts { ...JobCountFields }
  usage { promptTokens completionTokens calls }
  forgetCounts { ...ForgetCountFields }
}
fragment Problem on Error {
  message code ... on InputError { field } ... on NotFoundError { missingId: id }
}
fragment JobCountFields on JobCounts {
  messages memunits memories superseded pending reflections consolidated
}
"""

ALL = (
    VIEWER,
    CREATE_API_KEY,
    CREATE_USER,
    USER,
    CREATE_SESSION,
    ADD_MESSAGES,
    ENTITIES,
    MEMORIZE,
    JOB,
    SEARCH,
    MEMORY,
    MEMORIES,
    ADD_MEMORY,
    UPDATE_MEMORY,
    DELETE_MEMORY,
    DELETE_USER,
    APPLY_MEMORY_OPS,
    PROVENANCE,
    REFLECT,
    FORGET,
)
"""Every document above."""
