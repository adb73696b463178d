"""Per-key request rate limits: a token bucket for each API key.

Each key may make ``burst`` requests at once, and then ``rate`` per second.
Buckets live in this process: behind several API processes each enforces its
own share, which bounds a client's rate without a round trip to Redis on
every request. Time comes in as a monotonic ``now`` (seconds), so the
arithmetic is pinned by unit tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cachetools import LRUCache


def bucket(key_id: str | None, address: str | None) -> str:
    """The bucket a request spends from: its key's, else (no key) its address's.

    One naming for every door (``/graphql``, ``/mcp``, the websocket), so a
    key has one budget whichever it uses.
    """
    return f"key:{key_id}" if key_id is not None else f"address:{address or 'unknown'}"


@dataclass(frozen=True, slots=True)
class OverLimit:
    """A request refused by the limit: the ``Retry-After`` seconds, and what to tell the caller."""

    retry_after_s: int
    message: str


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    """Token buckets by key; ``check`` spends a token or says how long to wait."""

    def __init__(self, rate: float, burst: int, *, max_keys: int = 100_000) -> None:
        if rate < 0 or burst < 1:
            raise ValueError("rate must be ≥ 0 and burst ≥ 1")
        self.rate = rate
        self.burst = burst
        # A full bucket is the same as no bucket: past max_keys the least
        # recently used go first, and come back full if their key returns.
        self._buckets: LRUCache[str, _Bucket] = LRUCache(max_keys)

    @property
    def enabled(self) -> bool:
        """False when the rate is 0: every request passes."""
        return self.rate > 0

    def _refilled(self, key: str, now: float) -> _Bucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = _Bucket(float(self.burst), now)
            self._buckets[key] = bucket
        elif now > bucket.updated:
            # A clock that went back credits nothing: the time since the
            # latest reading was credited already.
            elapsed = now - bucket.updated
            bucket.tokens = min(float(self.burst), bucket.tokens + elapsed * self.rate)
            bucket.updated = now
        return bucket

    def spent(self, key: str, now: float) -> bool:
        """Whether ``key``'s next request would be refused (nothing is spent)."""
        return self.enabled and self._refilled(key, now).tokens < 1.0

    def check(self, key: str, now: float) -> float:
        """Spend one token of ``key``'s bucket: 0 if allowed, else seconds until one is free."""
        if not self.enabled:
            return 0.0
        bucket = self._refilled(key, now)
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / self.rate

    @staticmethod
    def retry_after(wait_s: float) -> int:
        """The ``Retry-After`` header's whole seconds for a wait (at least 1)."""
        return max(1, math.ceil(wait_s))

    def admit(self, key: str, now: float) -> OverLimit | None:
        """Spend one token of ``key``'s bucket: None if allowed, else the refusal.

        Every door (``/graphql``, ``/mcp``, the subscriptions' websocket) refuses
        with this one message, under its own transport's code.
        """
        wait = self.check(key, now)
        if wait <= 0:
            return None
        seconds = self.retry_after(wait)
        return OverLimit(
            seconds,
            f"too many requests for this key: at most {self.rate:g} per second "
            f"(bursts of {self.burst}); retry after {seconds} s",
        )
