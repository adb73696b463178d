"""Search's candidate pipeline: one plan, then each stage's fetch.

Every stage is a module with a pure ``plan()`` (what to ask, decided from
the request and a few cached counts, no I/O) and an async ``fetch()`` (the
asking, against the store Protocols of ``services/search_store.py``):

* ``keyword``: the full-text side (scoped to the user or not, how many hits);
* ``vector``: the nearest neighbours (exact scan, or the index, growing);
* ``entity_walk``: memories that mention the entities the query names;
* ``context``: the turns beside the best hits (after a first ranking);
* ``speakers``: the query vector, with the speakers' names weighed down.

``plan.plan_search`` puts the stages' plans into one ``SearchPlan``;
``fetcher.CandidateFetcher`` runs the fetches, overlapped. The time signal
has no fetch: the period a query names (``hippograph/querytime.py``) is
read by the ranking (``hippograph/scoring.py``).
"""
