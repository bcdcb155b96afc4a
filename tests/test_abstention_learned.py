"""Abstention in a hybrid search the learned ranker orders: its own query-level answerable model (fitted with the
absent-topic tune questions, calibration.ANSWERABLE[LEARNED_HYBRID]) silences a topic the index never held, and still
answers one it holds, in other words than the note's."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from memlens.engine.engine import Engine
from memlens.engine.ranking.calibration import LEARNED_HYBRID, QUERY_FEATURES, answerable
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings

NOTES = {
    "dlq.md": "# DLQ\n\nThe orders DLQ backed up overnight; we added the missing route and redrove the queue.",
    "deploy.md": "# Deploys\n\nWe switched the checkout service to blue-green deploys with a manual rollback step.",
    "team.md": "# Team\n\nWe decided to move the weekly planning meeting to Tuesday mornings.",
    "db.md": "# Database\n\nThe reporting replica lagged behind the primary; we raised work_mem, added an index.",
}


def engine_over_notes(tmp_path: Path, embedder: Embedder) -> Engine:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    for name, text in NOTES.items():
        (workspace / "memory" / name).write_text(text, encoding="utf-8")
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.search = replace(settings.search, ranker="learned")
    engine = Engine([workspace], settings, index_dir=tmp_path / "index", embedder=embedder)
    engine.sync()
    return engine


def test_the_learned_model_reads_every_query_feature() -> None:
    high = (0.9, 0.0, 0.6, 0.9, 2.0, 0.0)
    assert len(high) == len(QUERY_FEATURES)
    low_learned = (0.9, 0.0, 0.6, 0.9, -2.0, 0.0)
    absent_words = (0.9, 0.6, 0.6, 0.9, 2.0, 0.0)
    assert answerable(LEARNED_HYBRID, high) > answerable(LEARNED_HYBRID, low_learned)
    assert answerable(LEARNED_HYBRID, high) > answerable(LEARNED_HYBRID, absent_words)


def test_a_topic_never_held_gets_nothing_and_one_held_is_answered(tmp_path: Path, embedder: Embedder) -> None:
    with engine_over_notes(tmp_path, embedder) as engine:
        absent = "How did we configure the Zigbee pairing in the firmware updater?"
        assert engine.search(absent, mode="hybrid")["results"] == []
        assert engine.search(absent, mode="hybrid", min_score=0)["results"]  # the gate, not an empty ranking
        answered = engine.search("what did we do when the dead letter queue filled up?", mode="hybrid")["results"]
        assert answered and answered[0]["relPath"] == "memory/dlq.md"


def test_names_are_read_in_any_cased_script_and_not_from_a_sentence_opening() -> None:
    from memlens.engine.ranking.query_facts import names

    assert names("How did we set up Meilisearch? Kafka too, with gRPC on iOS for GDPR") == [
        "Meilisearch",
        "gRPC",
        "iOS",
        "GDPR",
    ]
    assert names("Как мы настроили кэш в Москве?") == ["Москве"]
    assert names("what did Ελένη say about the Οδυσσέας release") == ["Ελένη", "Οδυσσέας"]
    assert names("how did we fix the dead-letter queue backup") == []
