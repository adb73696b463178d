"""The one retry policy: races by count, contention and outages by time, paced by one curve."""

from __future__ import annotations

from graph.retry import Failure, RetryPolicy


def test_a_lost_race_is_retried_a_set_number_of_times() -> None:
    policy = RetryPolicy(races=2)
    assert not policy.gives_up(Failure.RACE, retries=0, elapsed_s=100.0)
    assert not policy.gives_up(Failure.RACE, retries=1, elapsed_s=100.0)
    assert policy.gives_up(Failure.RACE, retries=2, elapsed_s=0.0)


def test_contention_and_outages_have_their_own_time_budgets() -> None:
    policy = RetryPolicy(transient_s=15.0, unavailable_s=3.0)
    assert not policy.gives_up(Failure.TRANSIENT, retries=50, elapsed_s=14.9)
    assert policy.gives_up(Failure.TRANSIENT, retries=1, elapsed_s=15.0)
    assert not policy.gives_up(Failure.UNAVAILABLE, retries=50, elapsed_s=2.9)
    assert policy.gives_up(Failure.UNAVAILABLE, retries=1, elapsed_s=3.0)


def test_pauses_double_with_jitter_up_to_one_second() -> None:
    policy = RetryPolicy()
    for retry, ceiling in ((1, 0.04), (2, 0.08), (5, 0.64), (6, 1.0), (40, 1.0)):
        for _ in range(50):
            assert ceiling / 2 <= policy.delay(retry) <= ceiling


async def test_attempts_count_the_pauses_of_one_operation() -> None:
    attempts = RetryPolicy(races=2).attempts()
    assert not attempts.exhausted(Failure.RACE)
    await attempts.pause()
    await attempts.pause()
    assert attempts.retries == 2
    assert attempts.exhausted(Failure.RACE)
    assert not attempts.exhausted(Failure.TRANSIENT)  # a new operation's budget, just started
