"""The benchmarks run end to end on tiny inputs, so they never rot (structure and sane values, not numbers)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from memlens.engine.embedder import Embedder
from memlens.engine.sources.openclaw import OpenClawParser

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import locomo, speed  # noqa: E402

LOCOMO = REPO.parent / "shared" / "datasets" / "locomo"


def test_evidence_ids_parse_leniently() -> None:
    counts = locomo.EvidenceCounts()
    ids = locomo.parse_evidence(["D1:3", "D8:6; D9:17", "D:11:26", "D30:05", "D"], counts)
    assert ids == ["D1:3", "D8:6", "D9:17", "D11:26", "D30:5"]
    assert (counts.clean, counts.repaired, counts.skipped) == (1, 3, 1)


def test_session_dates_parse() -> None:
    when = locomo.parse_session_date("1:56 pm on 8 May, 2023")
    assert (when.year, when.month, when.day, when.hour, when.minute) == (2023, 5, 8, 13, 56)


def test_score_question_follows_the_paper() -> None:
    index = locomo.BuiltIndex(
        engine=None,  # type: ignore[arg-type]
        turn_of={1: "D1:1", 2: "D1:2", 3: "D1:3"},
        chunk_of={1: 10, 2: 10, 3: 11},
        chunk_of_turn={"D1:1": 10, "D1:2": 10, "D1:3": 11},
        seconds=0.0,
        units=3,
        chunks=2,
    )
    scores = locomo.score_question(locomo.Question("q", 4, ["D1:2", "D1:3"]), [2, 1], index)
    assert scores["R@5"] == 0.5 and scores["MRR"] == 1.0 and scores["chunk R@1"] == 0.5
    assert locomo.score_question(locomo.Question("q", 5, []), [2], index)["R@5"] == 1.0


def test_locomo_benchmark_runs(embedder: Embedder, tmp_path: Path) -> None:
    files = sorted(LOCOMO.glob("*.json"))
    if not files:
        pytest.skip(f"LoCoMo data not found at {LOCOMO} (../shared is absent)")
    conversation = locomo.load_conversation(files[0], max_sessions=2)
    paths = locomo.write_transcripts(conversation, tmp_path / "t")
    data = paths[0].read_bytes()
    assert OpenClawParser().sniff(data.decode().splitlines()[:5], paths[0])
    parsed = OpenClawParser().parse(data, paths[0])
    assert [r.message_id for r in parsed.records] == [t.dia_id for t in conversation.sessions[0].turns]

    report = locomo.evaluate(files[:1], max_sessions=2, max_questions=10, embedder=embedder)
    assert set(report["runs"]) == set(locomo.RUNS)
    assert report["dataset"]["questions"] == len(conversation.questions[:10]) > 0
    for run in report["runs"].values():
        summary = run["all"]
        for k in locomo.TURN_KS:
            assert 0.0 <= summary[f"R@{k}"] <= 100.0
        assert summary["R@5"] <= summary["R@10"] <= summary["R@25"] <= summary["R@50"]
        assert 0.0 <= summary["MRR"] <= 1.0
        assert run["msPerQuery"] > 0
    assert "DRAGON" in locomo.format_table(report)


def test_speed_benchmark_runs(embedder: Embedder, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--sizes", "200", "--queries", "20", "--appends", "3", "--raw-sample", "200", "--no-shared", "--json"]
    report = speed.main(argv, embedder=embedder)
    assert json.loads(capsys.readouterr().out)["benchmark"] == "speed"
    size = report["sizes"][0]
    assert size["coldKeyword"]["chunks"] > 100 and size["coldKeyword"]["badLines"] == 0
    assert size["coldVectors"]["unitsEmbedded"] == size["coldVectors"]["units"]
    assert size["rawEmbedding"]["textsPerS"] > 0 and size["embedRatio"] > 0
    for name in ("keyword", "hybrid", "vector", "queryEmbedding"):
        q = size["search"][name]
        assert 0 < q["p50Ms"] <= q["p95Ms"] <= q["p99Ms"]
    assert size["warmStart"]["filesUnchanged"] == size["warmStart"]["files"] > 0
    append = size["appendToSearchable"]
    assert append.get("missed", 0) == 0 and append["p50Ms"] > 0
    assert {t["what"] for t in report["targets"]} >= {"keyword p50 ms", "peak RSS MB"}
    assert "| target |" in speed.format_report(report)
