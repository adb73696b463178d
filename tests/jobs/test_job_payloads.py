"""Job payloads: one typed value per kind, stored and read by one codec."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from hippograph.errors import InvalidInput
from hippograph.forgetting import ForgetPolicy, ForgetRequest, HardDeleteStrategy
from hippograph.jobs import JobKind
from hippograph.services.forgetting import ForgetJob
from hippograph.services.job_payloads import decode_payload, encode_payload
from hippograph.services.memorize import HistoryLine, MemorizeJob
from hippograph.services.reflection import ReflectJob

# Parameters as records written before payloads were typed hold them.
OLD_MEMORIZE: dict[str, object] = {
    "session_id": "ses_1",
    "user_ids": ["caro", "mel"],
    "group_id": None,
    "source_type": "conversation",
    "flush": False,
    "history": [{"speaker": "Mel", "content": "Hi!", "ts": "2023-05-08T13:50:00+00:00"}],
}
OLD_FORGET: dict[str, object] = {
    "user_id": "ann",
    "policy": "hard_delete",
    "strategy": "capacity_based",
    "threshold": None,
    "max_age_days": None,
    "max_capacity": 10,
    "memory_ids": [],
    "dry_run": True,
}


def test_records_stored_before_typed_payloads_still_load() -> None:
    memorize = decode_payload(JobKind.MEMORIZE, json.dumps(OLD_MEMORIZE, sort_keys=True))
    assert memorize == MemorizeJob(
        session_id="ses_1",
        user_ids=("caro", "mel"),
        flush=False,
        history=(
            HistoryLine(speaker="Mel", content="Hi!", ts=datetime(2023, 5, 8, 13, 50, tzinfo=UTC)),
        ),
    )
    reflect = decode_payload(JobKind.REFLECT, '{"force": true, "user_id": "ann"}')
    assert reflect == ReflectJob(user_id="ann", force=True)
    forget = decode_payload(JobKind.FORGET, json.dumps(OLD_FORGET))
    assert isinstance(forget, ForgetJob)
    assert forget.dry_run
    assert forget.request == ForgetRequest(
        "ann", ForgetPolicy.HARD_DELETE, HardDeleteStrategy.CAPACITY_BASED, max_capacity=10
    )


@pytest.mark.parametrize(
    "work",
    [
        MemorizeJob(session_id="ses_1", user_ids=("caro",), group_id="g1", source_type="chat"),
        ReflectJob(user_id="ann"),
        ForgetJob.of(
            ForgetRequest(
                "ann", ForgetPolicy.HARD_DELETE, HardDeleteStrategy.IMPORTANCE_BASED, threshold=0.2
            ),
            dry_run=False,
        ),
    ],
)
def test_a_payload_reads_back_as_the_value_stored(
    work: MemorizeJob | ReflectJob | ForgetJob,
) -> None:
    assert decode_payload(work.kind, encode_payload(work)) == work


def test_the_record_kind_decides_which_payload_is_read() -> None:
    stored = encode_payload(ReflectJob(user_id="ann"))
    with pytest.raises(ValidationError):
        decode_payload(JobKind.FORGET, stored.replace('"user_id"', '"someone"'))
    assert isinstance(decode_payload(JobKind.FORGET, stored), ForgetJob)


def test_a_stored_forget_request_that_makes_no_sense_fails_when_run() -> None:
    work = decode_payload(JobKind.FORGET, json.dumps(OLD_FORGET | {"strategy": None}))
    assert isinstance(work, ForgetJob)
    with pytest.raises(InvalidInput, match="strategy"):
        _ = work.request


def test_a_forget_job_carries_every_field_of_a_forget_request_with_its_default() -> None:
    # ForgetJob is flat, because stored records name the fields, so it spells
    # them again; a request field it lacked would be dropped without a word
    # (pydantic ignores names it does not declare), and the job run without it.
    declared = {
        field.name: None if field.default is dataclasses.MISSING else field.default
        for field in dataclasses.fields(ForgetRequest)
    }
    carried = {
        name: None if field.is_required() else field.default
        for name, field in ForgetJob.model_fields.items()
        if name not in {"kind", "dry_run"}
    }
    assert carried == declared
