"""How far a clock is from Redis's, and when that is worth a warning."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from jobs.clock_skew import clock_skew, skew_warning

T0 = datetime(2026, 11, 29, 12, tzinfo=UTC)


def test_the_servers_reading_is_taken_as_the_middle_of_the_request() -> None:
    # Asked at T0, answered 2 s later: the server read its clock at about T0 + 1 s.
    assert clock_skew(T0, T0 + timedelta(seconds=1), T0 + timedelta(seconds=2)) == 0.0
    assert clock_skew(T0, T0 - timedelta(seconds=9), T0 + timedelta(seconds=2)) == 10.0
    assert clock_skew(T0, T0 + timedelta(seconds=31), T0) == -31.0


def test_a_skew_within_a_sixth_of_the_lease_is_not_worth_a_word() -> None:
    assert skew_warning(0.0, 30.0) is None
    assert skew_warning(5.0, 30.0) is None
    assert skew_warning(-5.0, 30.0) is None


def test_a_larger_skew_is_named_with_its_direction_and_the_setting_behind_the_limit() -> None:
    ahead = skew_warning(5.5, 30.0)
    assert ahead is not None
    assert ahead.startswith("this host's clock is 5.5 s ahead of Redis's, more than the 5.0 s")
    assert "HIPPOGRAPH_JOBS__LEASE_S=30" in ahead
    assert "NTP" in ahead
    behind = skew_warning(-12.0, 60.0)
    assert behind is not None
    assert behind.startswith("this host's clock is 12.0 s behind Redis's, more than the 10.0 s")
