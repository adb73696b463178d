"""Search candidates from the graph's indexes; ranking is not done here but in hippograph/.

Neo4j 5 and ArcadeDB cannot filter a vector index before ranking, so scoping a
vector search to one user takes one of two paths, chosen by the caller from
the user's memory count (docs/design.md §1): an exact scan of that user's
memories, or the index asked for more candidates than needed and filtered
afterwards. Neo4j 2026.01 and later filter by user inside the memory index
(Cypher 25's SEARCH clause); the dialect says which query a server gets.
Keyword search is scoped inside the full-text index (``user_key:<token>^0``,
which matches without adding to the score). Keyword hits come back without a
cosine: the keyword query starts before the query is embedded, so the caller
asks :meth:`SearchGraph.cosines` for theirs once the vector is ready (one
small query by id). Scores come back as plain cosine similarity whatever the
server reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction, Record

from graph.candidate_rows import CANDIDATES_M, CANDIDATES_N, candidate
from graph.cypher import cypher
from graph.dialect import IndexDialect
from graph.driver import GraphDriver, fetch
from graph.filters import FILTER_M, filter_params
from graph.records import vector_param
from hippograph.models import MemoryFilter
from hippograph.scoring import Candidate
from hippograph.text import user_token

MAX_QUERY_TERMS = 64

FILTER_U = (
    "($session_id IS NULL OR n.session_id = $session_id)"
    " AND ($created_after IS NULL OR n.ts >= $created_after)"
    " AND ($created_before IS NULL OR n.ts < $created_before)"
)

VECTOR_EXACT = cypher(
    "search.VECTOR_EXACT",
    "MATCH (m:Memory {user_id: $user_id}) "
    "WHERE m.embedding IS NOT NULL AND " + FILTER_M + " "
    "WITH m, vector.similarity.cosine(m.embedding, $vector) AS score "
    "ORDER BY score DESC, m.id ASC LIMIT $k "
    "RETURN " + CANDIDATES_M,
)
VECTOR_INDEX = cypher(
    "search.VECTOR_INDEX",
    "CALL db.index.vector.queryNodes($index, $candidates, $vector) YIELD node AS m, score "
    "WHERE m.user_id = $user_id AND " + FILTER_M + " "
    "RETURN " + CANDIDATES_M,
)
# The index name is part of the text: SEARCH takes no parameter for it.
VECTOR_SEARCH = cypher(
    "search.VECTOR_SEARCH",
    "CYPHER 25 MATCH (m:Memory) "
    "SEARCH m IN (VECTOR INDEX memory_embedding FOR $vector "
    "WHERE m.user_id = $user_id LIMIT $candidates) SCORE AS score "
    "WHERE " + FILTER_M + " "
    "RETURN " + CANDIDATES_M,
)
# One small user's memory vectors, for memorize to compare a call's turns
# with in memory (services/said_before.py): one read per call. Measured on
# embedded ArcadeDB, 300 memories and 22 turns: 33 ms, against 108 ms for an
# exact query per turn and 170 ms for all turns in one UNWIND query.
MEMORY_VECTORS = cypher(
    "search.MEMORY_VECTORS",
    "MATCH (m:Memory {user_id: $user_id}) "
    "WHERE m.embedding IS NOT NULL AND " + FILTER_M + " "
    "RETURN collect([m.id, m.embedding]) AS rows",
)
KEYWORD = cypher(
    "search.KEYWORD",
    "CALL db.index.fulltext.queryNodes($index, $lucene, {limit: $candidates}) "
    "YIELD node AS m, score "
    "WHERE m.user_id = $user_id AND " + FILTER_M + " "
    "RETURN " + CANDIDATES_M,
)
# A user's MemUnits are found through the full-text index's user_key, which
# holds a token for each user a unit is shared with: a group conversation's
# unit lives in its owner's session, and a path through the guest's own
# sessions would miss it. A query of the key alone, without a limit, returns
# every node that carries it on both servers; the user_ids test guards
# against a (vanishingly unlikely) collision of two users' tokens.
USER_MEMUNITS = (
    "CALL db.index.fulltext.queryNodes($index, $user_lucene) YIELD node AS n "
    "WHERE $user_id IN n.user_ids "
)
UNIT_VECTOR_EXACT = cypher(
    "search.UNIT_VECTOR_EXACT",
    USER_MEMUNITS + "AND n.embedding IS NOT NULL AND " + FILTER_U + " "
    "WITH n, vector.similarity.cosine(n.embedding, $vector) AS score "
    "ORDER BY score DESC, n.id ASC LIMIT $k "
    "RETURN " + CANDIDATES_N,
)
UNIT_VECTOR_INDEX = cypher(
    "search.UNIT_VECTOR_INDEX",
    "CALL db.index.vector.queryNodes($index, $candidates, $vector) YIELD node AS n, score "
    "WHERE $user_id IN n.user_ids AND " + FILTER_U + " "
    "RETURN " + CANDIDATES_N,
)
UNIT_KEYWORD = cypher(
    "search.UNIT_KEYWORD",
    "CALL db.index.fulltext.queryNodes($index, $lucene, {limit: $candidates}) "
    "YIELD node AS n, score "
    "WHERE $user_id IN n.user_ids AND " + FILTER_U + " "
    "RETURN " + CANDIDATES_N,
)
SAMPLE_SEARCH_TEXT = cypher(
    "search.SAMPLE_SEARCH_TEXT",
    "MATCH (m:Memory {user_id: $user_id}) RETURN m.search_text AS text LIMIT $limit",
)
# The people of a user's recent conversations, for the query the vector side
# embeds (hippograph/query_names.py). Bounded twice, so a user with one
# endless session costs no more than one with many short ones.
RECENT_SPEAKERS = cypher(
    "search.RECENT_SPEAKERS",
    "MATCH (s:Session {user_id: $user_id}) "
    "WITH s ORDER BY s.started_at DESC LIMIT $sessions "
    "MATCH (m:Message {session_id: s.id}) "
    "WITH m LIMIT $messages "
    "RETURN DISTINCT m.speaker AS speaker",
)
COUNT_USER_MEMUNITS = cypher("search.COUNT_USER_MEMUNITS", USER_MEMUNITS + "RETURN count(n) AS n")
COUNT_MEMUNITS = cypher("search.COUNT_MEMUNITS", "MATCH (n:MemUnit) RETURN count(n) AS n")
COSINES = cypher(
    "search.COSINES",
    "UNWIND $ids AS id MATCH (m:Memory {id: id}) WHERE m.embedding IS NOT NULL "
    "RETURN collect([id, vector.similarity.cosine(m.embedding, $vector)]) AS rows",
)
# The memories at given (session, seq) positions, with their cosine: the turns
# around the best hits, which the context stage of ranking may bring in.
NEIGHBOURS = cypher(
    "search.NEIGHBOURS",
    "UNWIND $positions AS position "
    "MATCH (m:Memory {session_id: position[0]}) "
    "WHERE m.seq = position[1] AND m.user_id = $user_id AND m.embedding IS NOT NULL AND "
    + FILTER_M
    + " WITH m, vector.similarity.cosine(m.embedding, $vector) AS score "
    "RETURN " + CANDIDATES_M,
)
UNIT_COSINES = cypher(
    "search.UNIT_COSINES",
    "UNWIND $ids AS id MATCH (n:MemUnit {id: id}) WHERE n.embedding IS NOT NULL "
    "RETURN collect([id, vector.similarity.cosine(n.embedding, $vector)]) AS rows",
)
TOUCH = cypher(
    "search.TOUCH",
    "UNWIND $ids AS id MATCH (m:Memory {id: id}) "
    "SET m.last_accessed_at = $now, m.access_count = coalesce(m.access_count, 0) + 1 "
    "RETURN count(m) AS touched",
)


def lucene_query(user_id: str, terms: Sequence[str], scoped: bool = True) -> str:
    """The full-text query: any of ``terms``, only among ``user_id``'s nodes when ``scoped``.

    ``terms`` come from :func:`hippograph.text.query_terms`, which emits word
    characters only, so none of them can be read as Lucene syntax. The user
    clause has boost 0: it filters without changing BM25 scores. It costs a
    walk of the user's whole posting list, though, so for a user who owns most
    of the index the caller drops it, asks for more hits and lets the Cypher
    ``user_id`` test filter (see ``hippograph/services/search_pipeline/vector.py``).
    """
    words = " OR ".join([t for t in terms if t.isalnum()][:MAX_QUERY_TERMS])
    return f"{user_clause(user_id)}^0 AND ({words})" if scoped else words


def user_clause(user_id: str) -> str:
    """The full-text clause that matches the nodes of ``user_id`` (``user_key``)."""
    return f"user_key:{user_token(user_id)}"


def _unit_params(memory_filter: MemoryFilter) -> dict[str, Any]:
    return {
        "session_id": memory_filter.session_id,
        "created_after": memory_filter.created_after,
        "created_before": memory_filter.created_before,
    }


class SearchGraph:
    """Search candidates from the graph's indexes."""

    def __init__(self, graph: GraphDriver, dialect: IndexDialect) -> None:
        self._graph = graph
        self._dialect = dialect

    async def _rows(self, query: Any, params: dict[str, Any]) -> list[Record]:
        return await self._graph.query(query, params)

    async def _collected(self, query: Any, params: dict[str, Any]) -> list[Sequence[Any]]:
        """The rows a query that returns one ``collect(...) AS rows`` record gathered."""
        records = await self._rows(query, params)
        return list(records[0]["rows"]) if records else []

    def _by_vector(self, rows: list[Sequence[Any]], exact: bool, unit: bool) -> list[Candidate]:
        cosine = self._dialect.exact_cosine if exact else self._dialect.index_cosine
        hits = [candidate(r, unit, similarity=cosine(r[-1])) for r in rows]
        hits.sort(key=lambda c: (-(c.similarity or 0.0), c.id))
        return hits

    def _by_keyword(self, rows: list[Sequence[Any]], unit: bool) -> list[Candidate]:
        hits = [candidate(r, unit, similarity=None, keyword_score=float(r[-1])) for r in rows]
        hits.sort(key=lambda c: (-(c.keyword_score or 0.0), c.id))
        return hits

    async def vector_exact(
        self,
        user_id: str,
        vector: Sequence[float],
        k: int,
        memory_filter: MemoryFilter,
        now: datetime,
    ) -> list[Candidate]:
        """The ``k`` most similar of the user's memories, by exact cosine."""
        params = filter_params(memory_filter, now) | {
            "user_id": user_id,
            "vector": vector_param(vector),
            "k": k,
        }
        return self._by_vector(await self._collected(VECTOR_EXACT, params), exact=True, unit=False)

    async def memory_vectors(
        self, user_id: str, memory_filter: MemoryFilter, now: datetime
    ) -> list[tuple[str, list[float]]]:
        """The user's memories that pass ``memory_filter``, with their vectors (a small
        user's: the caller bounds it by the memory count)."""
        params = filter_params(memory_filter, now) | {"user_id": user_id}
        rows = await self._collected(MEMORY_VECTORS, params)
        return [(str(i), list(vector)) for i, vector in rows]

    async def vector_index(
        self,
        user_id: str,
        vector: Sequence[float],
        candidates: int,
        memory_filter: MemoryFilter,
        now: datetime,
    ) -> list[Candidate]:
        """The user's memories among the index's ``candidates`` nearest, most similar first.

        Where the index filters by user (:meth:`scoped_vector_index`) the
        ``candidates`` nearest are all the user's; otherwise they are everyone's.
        """
        params = filter_params(memory_filter, now) | {
            "index": self._dialect.indexes.memory_vector,
            "user_id": user_id,
            "vector": vector_param(vector),
            "candidates": candidates,
        }
        query = VECTOR_SEARCH if self.scoped_vector_index() else VECTOR_INDEX
        return self._by_vector(await self._collected(query, params), exact=False, unit=False)

    def scoped_vector_index(self) -> bool:
        """Whether :meth:`vector_index` keeps to the user inside the index."""
        return self._dialect.scopes_memory_vectors

    async def keyword(
        self,
        user_id: str,
        terms: Sequence[str],
        candidates: int,
        memory_filter: MemoryFilter,
        now: datetime,
        scoped: bool = True,
    ) -> list[Candidate]:
        """The user's best BM25 matches for ``terms``, best first, without a cosine."""
        if not terms:
            return []
        params = filter_params(memory_filter, now) | {
            "index": self._dialect.indexes.memory_text,
            "lucene": lucene_query(user_id, terms, scoped),
            "user_id": user_id,
            "candidates": candidates,
        }
        return self._by_keyword(await self._collected(KEYWORD, params), unit=False)

    async def unit_vector_exact(
        self, user_id: str, vector: Sequence[float], k: int, memory_filter: MemoryFilter
    ) -> list[Candidate]:
        """The ``k`` most similar of the user's MemUnits (those of group conversations
        included), by exact cosine."""
        scope = _unit_params(memory_filter) | self._user_units(user_id)
        params = scope | {"vector": vector_param(vector), "k": k}
        return self._by_vector(
            await self._collected(UNIT_VECTOR_EXACT, params), exact=True, unit=True
        )

    async def unit_vector_index(
        self, user_id: str, vector: Sequence[float], candidates: int, memory_filter: MemoryFilter
    ) -> list[Candidate]:
        """The user's MemUnits among the index's ``candidates`` nearest."""
        params = _unit_params(memory_filter) | {
            "index": self._dialect.indexes.memunit_vector,
            "user_id": user_id,
            "vector": vector_param(vector),
            "candidates": candidates,
        }
        return self._by_vector(
            await self._collected(UNIT_VECTOR_INDEX, params), exact=False, unit=True
        )

    async def unit_keyword(
        self,
        user_id: str,
        terms: Sequence[str],
        candidates: int,
        memory_filter: MemoryFilter,
        scoped: bool = True,
    ) -> list[Candidate]:
        """The user's best BM25 MemUnit matches for ``terms``, best first, without a cosine."""
        if not terms:
            return []
        params = _unit_params(memory_filter) | {
            "index": self._dialect.indexes.memunit_text,
            "lucene": lucene_query(user_id, terms, scoped),
            "user_id": user_id,
            "candidates": candidates,
        }
        return self._by_keyword(await self._collected(UNIT_KEYWORD, params), unit=True)

    async def cosines(self, ids: Sequence[str], vector: Sequence[float]) -> dict[str, float]:
        """Cosine of each memory in ``ids`` to ``vector``."""
        return await self._cosines(COSINES, ids, vector)

    async def neighbours(
        self,
        user_id: str,
        positions: Sequence[tuple[str, int]],
        vector: Sequence[float],
        memory_filter: MemoryFilter,
        now: datetime,
    ) -> list[Candidate]:
        """The user's memories at these (session id, seq) positions, with their cosine."""
        if not positions:
            return []
        params = filter_params(memory_filter, now) | {
            "user_id": user_id,
            "positions": [[session_id, seq] for session_id, seq in positions],
            "vector": vector_param(vector),
        }
        return self._by_vector(await self._collected(NEIGHBOURS, params), exact=True, unit=False)

    async def unit_cosines(self, ids: Sequence[str], vector: Sequence[float]) -> dict[str, float]:
        """Cosine of each MemUnit in ``ids`` to ``vector``."""
        return await self._cosines(UNIT_COSINES, ids, vector)

    async def _cosines(
        self, query: Any, ids: Sequence[str], vector: Sequence[float]
    ) -> dict[str, float]:
        if not ids:
            return {}
        rows = await self._collected(query, {"ids": list(ids), "vector": vector_param(vector)})
        return {r[0]: self._dialect.exact_cosine(r[1]) for r in rows}

    async def count_units(self, user_id: str | None) -> int:
        """How many MemUnits ``user_id`` has (everyone's when None)."""
        if user_id is None:
            rows = await self._rows(COUNT_MEMUNITS, {})
        else:
            rows = await self._rows(COUNT_USER_MEMUNITS, self._user_units(user_id))
        return int(rows[0]["n"])

    def _user_units(self, user_id: str) -> dict[str, Any]:
        """The parameters of :data:`USER_MEMUNITS`: every MemUnit ``user_id`` shares."""
        return {
            "index": self._dialect.indexes.memunit_text,
            "user_lucene": user_clause(user_id),
            "user_id": user_id,
        }

    async def sample_search_text(self, user_id: str, limit: int) -> list[str]:
        """The indexed text of up to ``limit`` of a user's memories (term statistics)."""
        rows = await self._rows(SAMPLE_SEARCH_TEXT, {"user_id": user_id, "limit": limit})
        return [str(r["text"] or "") for r in rows]

    async def speakers(self, user_id: str, sessions: int, messages: int) -> list[str]:
        """Who spoke in up to ``messages`` messages of the user's ``sessions`` latest sessions."""
        rows = await self._rows(
            RECENT_SPEAKERS, {"user_id": user_id, "sessions": sessions, "messages": messages}
        )
        return sorted({str(r["speaker"]) for r in rows if r["speaker"]})

    async def touch(self, memory_ids: Sequence[str], now: datetime) -> bool:
        """Mark memories as just recalled; best effort (see ``GraphDriver.write_once``)."""
        if not memory_ids:
            return True

        async def work(tx: AsyncManagedTransaction) -> None:
            await fetch(tx, TOUCH, {"ids": list(memory_ids), "now": now})

        return await self._graph.write_once(work)
