"""The deletion fixpoint: what is derived only from the deleted set goes, the rest stays."""

from __future__ import annotations

from hippograph.cascade import (
    DerivationClosure,
    deletion_report,
    plan_deletion,
    root_label,
    too_large,
)
from tests.support import T0, memory


def test_a_chain_derived_only_from_the_root_goes_with_it() -> None:
    plan = plan_deletion(["m1"], {"u1": ["m1"], "a": ["u1"], "b": ["a"]})
    assert plan.deleted == ("a", "b", "m1", "u1")
    assert plan.kept == ()


def test_a_node_with_another_source_is_kept_and_so_is_what_derives_from_it() -> None:
    plan = plan_deletion(["m1"], {"a": ["m1", "m2"], "b": ["a"]})
    assert plan.deleted == ("m1",)
    # b loses no source, so it is not reported as kept: only a, which loses m1.
    assert plan.kept == ("a",)


def test_a_diamond_closing_on_the_deleted_set_goes_whole() -> None:
    sources = {"l": ["r"], "x": ["r"], "top": ["l", "x"]}
    assert plan_deletion(["r"], sources).deleted == ("l", "r", "top", "x")


def test_a_diamond_with_one_side_kept_keeps_its_top() -> None:
    sources = {"l": ["r"], "x": ["r", "other"], "top": ["l", "x"]}
    plan = plan_deletion(["r"], sources)
    assert plan.deleted == ("l", "r")
    assert plan.kept == ("top", "x")


def test_a_reflection_over_a_deleted_and_a_kept_memory_is_kept() -> None:
    sources = {"a": ["m1"], "b": ["m2"], "refl": ["a", "b"]}
    plan = plan_deletion(["m1"], sources)
    assert plan.deleted == ("a", "m1")
    assert plan.kept == ("refl",)


def test_several_roots_delete_what_derives_from_them_together() -> None:
    sources = {"a": ["m1", "m2"], "b": ["m2", "m3"]}
    plan = plan_deletion(["m1", "m2"], sources)
    assert plan.deleted == ("a", "m1", "m2")
    assert plan.kept == ("b",)


def test_duplicate_edges_count_once() -> None:
    # A reflection may both derive from and summarise the same memory.
    plan = plan_deletion(["a"], {"refl": ["a", "a"]})
    assert plan.deleted == ("a", "refl")


def test_a_root_is_deleted_even_when_it_has_other_sources() -> None:
    # A MemUnit derives from several messages; deleting it is what was asked.
    plan = plan_deletion(["u"], {"u": ["m1", "m2"], "a": ["u"]})
    assert plan.deleted == ("a", "u")


def test_a_cycle_of_derivations_is_kept() -> None:
    plan = plan_deletion(["m"], {"a": ["m", "b"], "b": ["a"]})
    assert plan.deleted == ("m",)
    assert plan.kept == ("a",)


def test_a_long_chain_plans_in_linear_time() -> None:
    n = 10_000
    sources = {f"n{i:05}": [f"n{i - 1:05}"] for i in range(1, n)}
    plan = plan_deletion(["n00000"], sources)
    assert len(plan.deleted) == n


def test_the_plan_does_not_depend_on_input_order() -> None:
    sources = {"c": ["b", "a"], "b": ["r"], "a": ["r", "z"], "d": ["c"]}
    reordered = {k: list(reversed(v)) for k, v in reversed(list(sources.items()))}
    assert plan_deletion(["r"], sources) == plan_deletion(["r"], reordered)


def test_the_report_counts_by_label() -> None:
    a = memory("ann", "a", at=T0)
    b = memory("ann", "b", at=T0)
    root = memory("ann", "root", at=T0)
    closure = DerivationClosure(
        roots=(root,), derived={a.id: a, b.id: b}, sources={a.id: (root.id,), b.id: (root.id, "x")}
    )
    report = deletion_report(root.id, closure)
    assert {n.id for n in report.deleted} == {root.id, a.id}
    assert [n.id for n in report.kept] == [b.id]
    assert report.counts == {"Session": 0, "Message": 0, "MemUnit": 0, "Memory": 2}
    assert report.deleted_ids == {root.id, a.id}
    assert not report.applied


def test_errors_name_the_root() -> None:
    assert root_label("ses_01HZZZZZZZZZZZZZZZZZZZZZZZ") == "session"
    assert root_label("nope") == "node"
    error = too_large("msg_1", 10)
    assert error.field == "id"
    assert "more than 10" in error.message
