"""``HippoGraph`` (sync) against the real server: every method, and every way it refuses."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from hippograph_client import (
    BadUserInput,
    Conflict,
    Direction,
    EdgeType,
    EntityKind,
    Forbidden,
    ForgetPolicy,
    HippoGraph,
    InvalidOperation,
    JobKind,
    JobStatus,
    MemoryFilter,
    MemoryKind,
    MemoryOp,
    MemoryOpKind,
    NewMessage,
    NotFound,
    RateLimited,
    SearchMethod,
    Unauthenticated,
)

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.server.app import create_app
from tests.api.conftest import ADMIN_KEY, make_settings
from tests.client.conftest import LiveServer
from tests.graphs import TestDatabase
from tests.serving import serving

pytestmark = pytest.mark.only_on("arcadedb", "the client tests the API surface, not Cypher")

LISBON = [
    NewMessage("ana", "I moved to Lisbon last month.", client_id="m1"),
    NewMessage("bot", "How do you like it?", client_id="m2"),
    NewMessage("ana", "I love it, and my favourite food is pastel de nata.", client_id="m3"),
]


def _user(admin: HippoGraph, user_id: str) -> str:
    """A user with one session; returns the session id."""
    admin.create_user(user_id, user_id.title())
    return admin.create_session(user_id, "chat").id


def test_memorize_then_search_then_walk_back_to_the_messages(admin: HippoGraph) -> None:
    session = _user(admin, "ana")
    done = admin.memorize("ana", session, LISBON)
    assert [m.content for m in done.messages] == [m.content for m in LISBON]
    assert done.created == 3
    assert done.counts is not None
    assert done.counts.memories > 0

    found = admin.search("ana", "Where does Ana live?", top_k=3, method=SearchMethod.HYBRID)
    assert found.method is SearchMethod.HYBRID
    best = found.hits[0]
    assert best.memory is not None
    assert "Lisbon" in best.memory.content
    assert best.breakdown.final == pytest.approx(best.score)
    assert best.memory.user_id == "ana"

    walk = admin.provenance(best.memory.id, depth=4, direction=Direction.DOWN)
    assert walk is not None
    assert walk.root.id == best.memory.id
    messages = {n.id: n.text for n in walk.nodes if n.type == "Message"}
    assert "I moved to Lisbon last month." in messages.values()
    assert all(e.type in EdgeType for e in walk.edges)
    assert {p.target for p in walk.paths} <= set(messages)

    again_by_id = admin.memory(best.memory.id)
    assert again_by_id is not None
    assert again_by_id.content == best.memory.content
    page = admin.memories("ana", first=1)
    assert len(page.memories) == 1
    assert page.has_next_page
    assert page.end_cursor
    rest = admin.memories("ana", first=50, after=page.end_cursor)
    assert page.memories[0].id not in {m.id for m in rest.memories}

    again = admin.memorize("ana", session, LISBON)
    assert again.created == 0  # a replay stores nothing


def test_a_queued_memorize_is_waited_for(admin: HippoGraph) -> None:
    session = _user(admin, "bea")
    done = admin.memorize("bea", session, LISBON, queue=True)
    assert done.job is not None
    assert done.job.kind is JobKind.MEMORIZE
    assert done.job.status is JobStatus.SUCCEEDED
    assert done.counts == done.job.counts
    assert done.counts.memories > 0
    assert admin.job(done.job.id) == done.job
    assert admin.wait_for_job(done.job.id) == done.job


def test_memory_ops_add_update_boost_delete(admin: HippoGraph) -> None:
    _user(admin, "cid")
    tea = admin.add_memory("cid", "Cid drinks green tea", kind=MemoryKind.SEMANTIC, importance=0.4)
    assert tea.kind is MemoryKind.SEMANTIC
    assert tea.importance == pytest.approx(0.4)

    applied = admin.apply_memory_ops(
        "cid",
        [MemoryOp.add("Cid is learning Portuguese", importance=0.8), MemoryOp.boost(tea.id)],
    )
    assert [r.op for r in applied.results] == [MemoryOpKind.ADD, MemoryOpKind.BOOST]
    added = admin.memory(applied.results[0].memory_id or "")
    assert added is not None
    assert added.content == "Cid is learning Portuguese"
    boosted = admin.memory(tea.id)
    assert boosted is not None
    assert boosted.importance == pytest.approx(0.7)

    newer = admin.update_memory(tea.id, content="Cid drinks black tea")
    assert newer.id != tea.id
    assert newer.content == "Cid drinks black tea"
    old = admin.memory(tea.id)
    assert old is not None
    assert old.valid_to is not None

    deleted = admin.delete_memory(newer.id)
    assert deleted.id == newer.id
    assert not deleted.hard
    gone = admin.memory(newer.id)
    assert gone is not None
    assert gone.deleted_at is not None
    current = admin.memories("cid", filter=MemoryFilter(kinds=(MemoryKind.SEMANTIC,)))
    assert {m.content for m in current.memories} == {"Cid is learning Portuguese"}


def test_reflect_and_forget(admin: HippoGraph) -> None:
    _user(admin, "dov")
    for text in ("Dov plays the cello", "Dov plays cello in an orchestra", "Dov loves Bach"):
        admin.add_memory("dov", text, importance=0.9)
    reflected = admin.reflect("dov", force=True, wait=True)
    assert reflected.job.kind is JobKind.REFLECT
    assert reflected.job.status is JobStatus.SUCCEEDED

    report = admin.forget("dov", dry_run=True).report
    assert report is not None
    assert report.dry_run
    assert report.policy is ForgetPolicy.FUZZ
    assert report.counts.scanned >= 3

    queued = admin.forget("dov", queue=True, wait=True)
    assert queued.report is None
    assert queued.job is not None
    assert queued.job.kind is JobKind.FORGET
    assert queued.job.status is JobStatus.SUCCEEDED
    assert queued.job.forget_counts is not None
    assert queued.job.forget_counts.scanned >= 3


def test_a_user_is_forgotten_after_a_dry_run(admin: HippoGraph) -> None:
    session = _user(admin, "eve")
    admin.memorize("eve", session, [NewMessage("eve", "I moved to Lisbon last month.")])
    dry = admin.delete_user("eve")
    assert (dry.user_id, dry.applied) == ("eve", False)
    assert (dry.counts.sessions, dry.counts.messages) == (1, 1)
    assert dry.counts.memories >= 1
    assert dry.other_users_nodes == 0
    assert admin.user("eve") is not None
    done = admin.delete_user("eve", dry_run=False)
    assert done.applied
    assert done.counts == dry.counts
    assert admin.user("eve") is None
    with pytest.raises(NotFound):
        admin.delete_user("eve")
    with pytest.raises(BadUserInput):
        admin.delete_user("not an id!")


def test_a_limited_key_is_refused_another_users_data(admin: HippoGraph, live: LiveServer) -> None:
    session = _user(admin, "eli")
    secret = admin.add_memory("eli", "Eli's locker code is 4711")
    _user(admin, "fay")
    key = admin.create_api_key("fay's app", user_ids=["fay"])
    assert key.user_ids == ("fay",)
    assert not key.admin
    with HippoGraph(live.url, key.key) as fay:
        assert fay.viewer().user_ids == ("fay",)
        with pytest.raises(NotFound):
            fay.search("eli", "locker code")
        with pytest.raises(NotFound) as refused:
            fay.memorize("eli", session, LISBON)
        assert refused.value.code == "NOT_FOUND"
        with pytest.raises(NotFound):
            fay.apply_memory_ops("eli", [MemoryOp.delete(secret.id)])
        assert fay.memory(secret.id) is None
        assert fay.provenance(secret.id) is None
        assert fay.user("eli") is None
        with pytest.raises(Forbidden):
            fay.create_api_key("escalation", admin=True)
    with pytest.raises(Conflict):
        admin.create_user("eli", "Another Eli")
    still = admin.memory(secret.id)
    assert still is not None
    assert still.deleted_at is None
    assert admin.memories("eli").memories == (still,)


def test_bad_input_raises_bad_user_input_and_changes_nothing(admin: HippoGraph) -> None:
    session = _user(admin, "gus")
    before = admin.memories("gus", first=200)
    with pytest.raises(BadUserInput) as refused:
        admin.add_memory("gus", "Gus likes jazz", importance=2.0)
    assert refused.value.field == "importance"
    with pytest.raises(BadUserInput):
        admin.apply_memory_ops("gus", [MemoryOp.add("ok"), MemoryOp.add("\x00")])
    with pytest.raises(BadUserInput):
        admin.search("gus", "jazz", top_k=0)
    with pytest.raises(BadUserInput):
        admin.memorize("gus", session, [NewMessage("gus", "")])
    with pytest.raises(InvalidOperation):
        admin.create_user("gus2", 42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="topk"):
        admin.search("gus", "jazz", topk=3)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="timeout"):
        admin.memorize("gus", session, LISBON, job_timeout=0)
    assert admin.memories("gus", first=200) == before
    assert admin.user("gus2") is None


async def test_the_blocking_client_works_inside_a_running_event_loop(live: LiveServer) -> None:
    # A notebook or a framework's sync handler calls it with a loop running:
    # the client's own loop, on its own thread, does the work.
    before = threading.active_count()
    with HippoGraph(live.url, live.admin_key) as hg:
        assert hg.viewer().admin
    hg.close()  # twice: nothing more to do
    assert threading.active_count() == before  # its thread is gone


def test_a_wrong_key_is_unauthenticated(live: LiveServer) -> None:
    with (
        HippoGraph(live.url, "hg_not-a-key-anyone-made") as stranger,
        pytest.raises(Unauthenticated) as refused,
    ):
        stranger.viewer()
    assert refused.value.code == "UNAUTHENTICATED"
    with pytest.raises(ValueError, match="API key"):
        HippoGraph(live.url, "  ")


def test_over_the_rate_limit_raises_rate_limited_with_retry_after(
    graph_db: TestDatabase, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    settings = make_settings(graph_db, tmp_path, rate_limit_per_s=0.01, rate_limit_burst=1)
    app = create_app(settings, embedder=embedder, **graph_db.start)
    with serving(app) as url, HippoGraph(url, ADMIN_KEY) as hg:
        assert hg.viewer().admin
        with pytest.raises(RateLimited) as refused:
            hg.viewer()
    assert refused.value.retry_after is not None
    assert refused.value.retry_after >= 1


def test_messages_stored_first_are_memorized_later_and_their_entities_listed(
    admin: HippoGraph, live: LiveServer
) -> None:
    session = _user(admin, "ida")
    stored = admin.add_messages(session, LISBON)
    assert (stored.created, stored.existing) == (3, 0)
    again = admin.add_messages(session, LISBON[:2])  # a replay, by client id
    assert (again.created, again.existing) == (0, 2)
    assert [m.id for m in again.messages] == [m.id for m in stored.messages[:2]]
    assert admin.memories("ida").memories == ()  # nothing derived yet
    # memorize finds them by client id and derives what they hold
    done = admin.memorize("ida", session, LISBON)
    assert done.created == 0
    assert done.counts is not None
    assert done.counts.messages == 3

    pages, after = [], None
    while True:
        page = admin.entities("ida", first=2, after=after)
        pages.append(page)
        if not page.has_next_page:
            break
        after = page.end_cursor
    everything = [e for p in pages for e in p.entities]
    assert len(pages) > 1
    assert everything == list(admin.entities("ida", first=200).entities)
    by_norm = {e.norm: e for e in everything}
    assert by_norm["lisbon"].kind is EntityKind.PLACE
    assert by_norm["lisbon"].mention_count >= 1
    assert {e.user_id for e in everything} == {"ida"}

    with pytest.raises(BadUserInput):
        admin.add_messages(session, [NewMessage("ida", "")])
    with pytest.raises(BadUserInput):
        admin.entities("ida", first=0)
    missing = session[:-1] + ("1" if session[-1] == "0" else "0")
    with pytest.raises(NotFound):
        admin.add_messages(missing, LISBON)
    key = admin.create_api_key("joe's app", user_ids=["joe"])
    with HippoGraph(live.url, key.key) as joe:
        with pytest.raises(NotFound):
            joe.entities("ida")
        with pytest.raises(NotFound):
            joe.add_messages(session, [NewMessage("joe", "hello")])
    assert admin.add_messages(session, LISBON).existing == 3
