"""The last redaction pass over an answer (`redact_response`) and the names it carries: a hit's reference is its
session's and its message's names joined, and is checked as those two names, not as one text."""

from __future__ import annotations

from memlens.engine.answers.outbound import redact_response
from planted_secrets import PLANTED


def test_a_reference_of_an_all_digit_session_and_a_long_message_id_is_shown_whole() -> None:
    reference = "55604662:aaaaaaaa-0000-0000-0000-000000000165"
    answer = {"results": [{"reference": reference, "sessionId": "55604662-cf2a-4331-851a-ec234028f8ca"}]}
    assert redact_response(answer)["results"][0]["reference"] == reference


def test_a_secret_in_either_part_of_a_reference_is_masked() -> None:
    token = next(p.secret for p in PLANTED if p.kind == "github-pat-classic")
    for reference in (f"{token}:b93217ff", f"5b0e7d3c:{token}"):
        shown = redact_response({"reference": reference})["reference"]
        assert token not in shown and "[REDACTED:" in shown
