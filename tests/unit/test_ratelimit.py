"""The token bucket, pinned to hand-computed waits."""

from __future__ import annotations

import pytest

from hippograph.ratelimit import RateLimiter


def test_a_burst_passes_then_the_rate_applies() -> None:
    limiter = RateLimiter(rate=2.0, burst=3)
    assert [limiter.check("k", 0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    # Empty: one token comes back every 0.5 s.
    assert limiter.check("k", 0.0) == pytest.approx(0.5)
    assert limiter.check("k", 0.25) == pytest.approx(0.25)
    assert limiter.check("k", 0.5) == 0.0
    assert limiter.check("k", 0.5) == pytest.approx(0.5)


def test_tokens_refill_up_to_the_burst_only() -> None:
    limiter = RateLimiter(rate=1.0, burst=2)
    limiter.check("k", 0.0)
    limiter.check("k", 0.0)
    # An hour idle refills two tokens, not 3,600.
    assert [limiter.check("k", 3600.0) for _ in range(3)] == [0.0, 0.0, pytest.approx(1.0)]


def test_keys_have_their_own_buckets() -> None:
    limiter = RateLimiter(rate=1.0, burst=1)
    assert limiter.check("a", 0.0) == 0.0
    assert limiter.check("a", 0.0) > 0
    assert limiter.check("b", 0.0) == 0.0


def test_rate_zero_means_no_limit_and_retry_after_rounds_up() -> None:
    limiter = RateLimiter(rate=0.0, burst=1)
    assert not limiter.enabled
    assert all(limiter.check("k", 0.0) == 0.0 for _ in range(1000))
    assert RateLimiter.retry_after(0.01) == 1
    assert RateLimiter.retry_after(2.2) == 3


def test_the_oldest_idle_buckets_are_forgotten_past_max_keys() -> None:
    limiter = RateLimiter(rate=1.0, burst=1, max_keys=2)
    limiter.check("a", 0.0)
    limiter.check("b", 0.0)
    limiter.check("c", 0.0)  # "a" is dropped: a fresh bucket is full
    assert limiter.check("a", 0.0) == 0.0
    assert limiter.check("c", 0.0) > 0


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="rate must be"):
        RateLimiter(rate=-1.0, burst=1)
    with pytest.raises(ValueError, match="burst"):
        RateLimiter(rate=1.0, burst=0)


def test_admit_refuses_with_the_wait_in_whole_seconds_and_the_limit_named() -> None:
    limiter = RateLimiter(rate=0.5, burst=1)
    assert limiter.admit("k", 0.0) is None
    over = limiter.admit("k", 0.5)
    assert over is not None
    assert over.retry_after_s == 2  # 1.5 s to the next token, rounded up
    assert "at most 0.5 per second (bursts of 1); retry after 2 s" in over.message
    assert limiter.admit("k", 2.0) is None


def test_a_clock_that_goes_back_credits_nothing_twice() -> None:
    limiter = RateLimiter(rate=1.0, burst=1)
    assert limiter.check("k", 100.0) == 0.0
    assert limiter.check("k", 50.0) == pytest.approx(1.0)  # back: nothing comes back
    # Half a second after the latest reading, half a token: not a whole one again.
    assert limiter.check("k", 100.5) == pytest.approx(0.5)
    assert not limiter.spent("other", 0.0)
    assert limiter.spent("k", 100.5)
