"""Settings come from HIPPOGRAPH_* env (nested with __) and fail naming the setting."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from hippograph.addresses import redis_url, shown
from hippograph.cli import main
from hippograph.settings import Settings


def test_defaults_are_the_embedded_service_on_loopback() -> None:
    settings = Settings(_env_file=None)
    assert settings.graph.server == "arcadedb"
    assert settings.graph.embedded
    assert str(settings.graph.data_dir) == "data"
    assert (settings.api.host, settings.api.port) == ("127.0.0.1", 8000)


def test_nested_env_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPPOGRAPH_API__PORT", "9001")
    monkeypatch.setenv("HIPPOGRAPH_LIMITS__MAX_TOP_K", "17")
    settings = Settings(_env_file=None)
    assert settings.api.port == 9001
    assert settings.limits.max_top_k == 17


def test_neo4j_without_a_uri_fails_naming_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPPOGRAPH_GRAPH__SERVER", "neo4j")
    with pytest.raises(ValidationError, match="HIPPOGRAPH_GRAPH__URI"):
        Settings(_env_file=None)


def test_the_cli_reports_bad_configuration_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPPOGRAPH_API__PORT", "not-a-port")
    with pytest.raises(SystemExit, match="HIPPOGRAPH_API__PORT"):
        main(["export-schema", "--output", "-"])


def test_the_keyword_posting_budget_is_read_and_must_be_positive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HIPPOGRAPH_SEARCH__KEYWORD_POSTING_BUDGET", "5000")
    assert Settings(_env_file=None).search.keyword_posting_budget == 5000
    monkeypatch.setenv("HIPPOGRAPH_SEARCH__KEYWORD_POSTING_BUDGET", "0")
    with pytest.raises(SystemExit, match="HIPPOGRAPH_SEARCH__KEYWORD_POSTING_BUDGET"):
        main(["export-schema", "--output", "-"])


def test_an_address_is_shown_without_its_password() -> None:
    assert shown("redis://:s3cret@10.0.0.5:6380/2") == "redis://:***@10.0.0.5:6380/2"
    assert shown("rediss://app:s3cret@cache/0") == "rediss://app:***@cache/0"
    assert shown("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"
    with pytest.raises(ValueError, match="port") as refused:
        redis_url("redis://:s3cret@cache:port/0")
    assert "s3cret" not in str(refused.value)
