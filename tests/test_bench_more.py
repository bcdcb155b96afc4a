"""The hover and reconcile benchmarks run end to end on tiny corpora, so they never rot: the corpus they build has
exactly the files and chunks the generator promises, and every file is seen (and unchanged) by the reconcile."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import hover, reconcile, regex_probe, speed  # noqa: E402
from bench.common import process_cpu_s  # noqa: E402


def corpus_shape(chunks: int) -> tuple[int, int, int]:
    """(memory notes, transcript sessions, chunks) of speed.make_corpus(chunks), from its documented rule."""
    memory = max(1, round(chunks / 2 / speed.MEMORY_SECTIONS))
    sessions = max(3, round(chunks / 2 / speed.EXCHANGES))
    return memory, sessions, memory * speed.MEMORY_SECTIONS + sessions * speed.EXCHANGES


@pytest.mark.slow  # runs the benchmark
def test_hover_benchmark_on_a_tiny_corpus(tmp_path: Path) -> None:
    # 300 chunks: on 120, none of the six words hovered got an answer past the calibrated gate once the question
    # penalty (search.questionPenalty) lowered the scores of their best hits
    report = hover.main(["--chunks", "300", "--hovers", "10", "--work-dir", str(tmp_path), "--json"])
    assert report["totalChunks"] == corpus_shape(300)[2]
    for key in ("firstHoverMs", "repeatedHoverMs"):
        assert report[key]["n"] == 10
        assert 0 < report[key]["p50"] <= report[key]["p95"] <= report[key]["max"]
    assert 0 < report["hoversWithContent"] <= 10
    cpu = report["serverCpuMsPerHover"]  # the first hovers load the model and search: the server did work
    assert cpu["first"] is not None and cpu["first"] > 0 and cpu["repeated"] is not None


def test_process_cpu_is_read_from_proc() -> None:
    """The hover benchmark reads the server's CPU from /proc/PID/stat: checked against this process's own count."""
    deadline = time.process_time() + 0.3
    while time.process_time() < deadline:  # burn a little CPU so the clock-tick reading is well above zero
        pass
    read = process_cpu_s(os.getpid())
    assert read is not None and abs(read - time.process_time()) < 0.05


def test_reconcile_benchmark_on_a_tiny_corpus() -> None:
    report = reconcile.main(["--chunks", "200", "--runs", "2", "--json"])
    memory, sessions, _ = corpus_shape(200)
    assert report["files"] == report["unchanged"] == memory + sessions == 20
    assert len(report["reconcileS"]) == 2 and report["totalP50S"] > 0


@pytest.mark.slow  # the real model and a whole sync of a copied corpus
def test_append_cost_benchmark_on_a_tiny_prebuilt_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bench import append_cost, synthetic_vectors
    from bench.corpus import make_corpus, open_engine

    corpus = make_corpus(tmp_path / "corpus", 40)
    with open_engine(corpus, tmp_path / "index-kw", None) as engine:
        engine.sync()
    synthetic_vectors.main([str(corpus.root), str(tmp_path / "index-kw"), str(tmp_path / "prebuilt")])
    report = append_cost.main([str(tmp_path / "prebuilt"), "--appends", "3", "--workdir", str(tmp_path)])
    assert report["appendSync"]["appends"] == 3 and report["appendSync"]["cpuP50Ms"] > 0
    assert report["reopen"]["vectors"] == report["disk"]["units"] > 0
    disk = report["disk"]
    assert disk["catalogVectorBlobsPerUnit"] == 0 and disk["vectorFilesPerUnit"] > 0  # the file holds the vectors
    assert json.loads(capsys.readouterr().out)["disk"] == disk
    # in place: the appends go to the prebuilt corpus itself, reached through its symlink
    again = append_cost.main([str(tmp_path / "prebuilt"), "--appends", "2", "--in-place"])
    assert again["appendSync"]["appends"] == 2
    assert again["disk"]["units"] == again["firstOpen"]["vectors"] + 2  # both appended messages, embedded


@pytest.mark.slow  # a whole sync and three appends, about 2 s
def test_copied_appends_benchmark_counts_each_message_of_a_session_held_by_several_files_once(tmp_path: Path) -> None:
    from bench import copied_appends

    report = copied_appends.main(["--messages", "30", "--copies", "3", "--appends", "3", "--workdir", str(tmp_path)])
    assert (report["messages"], report["files"], report["appends"]) == (30, 3, 3)  # it checked the count itself
    assert report["cpuP50Ms"] > report["copiesCpuP50Ms"] > 0 and report["catalogBytes"] > 0


def test_regex_probe_tries_every_module_pattern(capsys: pytest.CaptureFixture[str]) -> None:
    patterns = regex_probe.module_patterns()
    assert "memlens.redaction.values._CAMEL_CASE" in patterns and len(patterns) > 100
    # a table's rows and the literals written in a function's calls are probed too
    assert any(name.startswith("memlens.engine.ranking.dates._NO_DAY_FORMS[") for name in patterns)
    inline = {p.pattern for name, p in patterns.items() if name.startswith("memlens.lsp.hover:")}
    assert r"[._\-]+" in inline  # hover.py's re.split(r"[._\-]+", identifier)
    regex_probe.main(["--length", "8", "--top", "3"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{len(patterns)} patterns") and len(lines) == 4
