"""The memory filter as one Cypher predicate, shared by listing and search."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hippograph.models import MemoryFilter

# A predicate on the variable ``m``; every clause is switched off by a null
# parameter, so one constant query serves every combination of filters.
FILTER_M = (
    "($kinds IS NULL OR m.kind IN $kinds)"
    " AND ($levels IS NULL OR m.level IN $levels)"
    " AND ($categories IS NULL OR m.category IN $categories)"
    " AND ($session_id IS NULL OR m.session_id = $session_id)"
    " AND ($min_importance IS NULL OR m.importance >= $min_importance)"
    " AND ($created_after IS NULL OR m.created_at >= $created_after)"
    " AND ($created_before IS NULL OR m.created_at < $created_before)"
    " AND ($domain IS NULL OR m.domain = $domain)"
    " AND ($include_consolidated OR NOT coalesce(m.consolidated, false))"
    " AND ($include_superseded OR m.valid_to IS NULL OR m.valid_to > $now)"
    " AND ($include_deleted OR m.deleted_at IS NULL)"
)


def filter_params(f: MemoryFilter, now: datetime) -> dict[str, Any]:
    """The parameters :data:`FILTER_M` reads."""
    return {
        # None is "any"; an empty list (a search's levels its mode hides) is none.
        "kinds": [k.value for k in f.kinds] if f.kinds is not None else None,
        "levels": [v.value for v in f.levels] if f.levels is not None else None,
        "categories": [c.value for c in f.categories] if f.categories is not None else None,
        "session_id": f.session_id,
        "min_importance": f.min_importance,
        "created_after": f.created_after,
        "created_before": f.created_before,
        "domain": f.domain,
        "include_consolidated": f.include_consolidated,
        "include_superseded": f.include_superseded,
        "include_deleted": f.include_deleted,
        "now": now,
    }
