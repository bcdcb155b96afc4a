"""The benchmarks run end to end on tiny inputs, so they never rot: exact figures where a tiny input fixes them (a
synthetic LoCoMo conversation with known answers, the speed corpus's chunk arithmetic), structure elsewhere."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import SHARED
from memlens.engine.sources.openclaw import OpenClawParser
from memlens.engine.vectors.embedder import Embedder
from vector_files import write_vector_file

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import (  # noqa: E402
    keyword_latency,
    keyword_pruning,
    locomo,
    locomo_data,
    query_sets,
    search_memory,
    search_profile,
    speed,
    speed_report,
    vector_open,
    vector_search_cost,
)
from bench.corpus import make_corpus, open_engine  # noqa: E402

LOCOMO = SHARED / "datasets" / "locomo"


def test_evidence_ids_parse_leniently() -> None:
    counts = locomo_data.EvidenceCounts()
    ids = locomo_data.parse_evidence(["D1:3", "D8:6; D9:17", "D:11:26", "D30:05", "D"], counts)
    assert ids == ["D1:3", "D8:6", "D9:17", "D11:26", "D30:5"]
    assert (counts.clean, counts.repaired, counts.skipped) == (1, 3, 1)


def test_session_dates_parse() -> None:
    when = locomo_data.parse_session_date("1:56 pm on 8 May, 2023")
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
    scores = locomo.score_question(locomo_data.Question("q", 4, ["D1:2", "D1:3"]), [2, 1], index)
    assert scores["R@5"] == 0.5 and scores["MRR"] == 1.0 and scores["chunk R@1"] == 0.5
    assert locomo.score_question(locomo_data.Question("q", 5, []), [2], index)["R@5"] == 1.0


def test_score_question_counts_exactly_k_turns() -> None:
    """Evidence at ranks 5 and 6: half of it is within the top 5, all of it within the top 10; MRR is 1/5."""
    turns = {u: f"D1:{u}" for u in range(1, 61)}
    index = locomo.BuiltIndex(
        engine=None,  # type: ignore[arg-type]
        turn_of=turns,
        chunk_of={u: 100 + (u - 1) // 4 for u in turns},  # four turns per chunk
        chunk_of_turn={t: 100 + (u - 1) // 4 for u, t in turns.items()},
        seconds=0.0,
        units=60,
        chunks=15,
    )
    scores = locomo.score_question(locomo_data.Question("q", 4, ["D1:5", "D1:6"]), list(range(1, 61)), index)
    assert (scores["R@5"], scores["R@10"], scores["R@50"]) == (0.5, 1.0, 1.0)
    assert scores["MRR"] == 0.2
    assert (scores["chunk R@1"], scores["chunk R@3"]) == (0.0, 1.0)  # both in the second chunk
    late = locomo.score_question(locomo_data.Question("q", 4, ["D1:50", "D1:60"]), list(range(1, 61)), index)
    assert late["R@50"] == 0.5 and late["MRR"] == 0.02  # rank 50 counts (for R@50 and MRR), rank 60 does not
    beyond = locomo.score_question(locomo_data.Question("q", 4, ["D1:51"]), list(range(1, 61)), index)
    assert beyond["R@50"] == 0.0 and beyond["MRR"] == 0.0  # rank 51 and beyond count for nothing


@pytest.mark.slow  # runs the benchmark
def test_locomo_benchmark_runs(embedder: Embedder, tmp_path: Path) -> None:
    files = sorted(LOCOMO.glob("*.json"))
    if not files:
        pytest.skip(f"LoCoMo data not found at {LOCOMO} (../shared is absent)")
    conversation = locomo_data.load_conversation(files[0], max_sessions=2)
    paths = locomo_data.write_transcripts(conversation, tmp_path / "t")
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


def qa(question: str, evidence: list[str], category: int) -> dict[str, object]:
    return {"question": question, "answer": "x", "evidence": evidence, "category": category}


def tiny_locomo(path: Path) -> Path:
    """A LoCoMo-format conversation whose answers are known: three questions name words only their evidence turn
    holds, one question's evidence shares no word with it (a miss in every keyword ranking), one is adversarial."""
    session_1 = [
        ("Alice", "Morning! I finally moved to Murano for the glassblowing apprenticeship."),
        ("Bob", "That sounds wonderful, how is the weather there?"),
        ("Alice", "Foggy most days, but the lagoon is beautiful."),
        ("Bob", "My cousin adopted a greyhound named Biscuit last week."),
        ("Alice", "Lovely. I am saving up for a vintage Vespa scooter."),
        ("Bob", "Nice, anything else new?"),
    ]
    session_2 = [
        ("Bob", "I started learning the bassoon at the community orchestra."),
        ("Alice", "Good for you."),
        ("Bob", "Rehearsals are on Thursday evenings."),
        ("Alice", "Quiet week here, mostly reading."),
    ]
    data = {
        "speaker_a": "Alice",
        "speaker_b": "Bob",
        "session_1_date_time": "10:00 am on 3 March, 2023",
        "session_1": [{"speaker": s, "dia_id": f"D1:{i}", "text": t} for i, (s, t) in enumerate(session_1, 1)],
        "session_2_date_time": "6:30 pm on 9 March, 2023",
        "session_2": [{"speaker": s, "dia_id": f"D2:{i}", "text": t} for i, (s, t) in enumerate(session_2, 1)],
        "qa": [
            qa("Where did Alice do her glassblowing apprenticeship?", ["D1:1"], 4),
            qa("What is the name of the greyhound?", ["D1:4"], 4),
            qa("Which instrument is Bob learning at the orchestra?", ["D2:1"], 4),
            qa("What colour is the kayak?", ["D2:4"], 1),
            qa("Did Alice buy a horse?", [], 5),
        ],
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_locomo_benchmark_scores_a_conversation_with_known_answers(tmp_path: Path) -> None:
    """Keyword ranking on the tiny conversation: three evidence turns come first, one is never retrieved, and the
    adversarial question counts as recalled. Any slip in the pipeline (dia_id ↔ unit mapping, turn order, the
    recall or MRR arithmetic, the averaging) changes these exact figures."""
    path = tiny_locomo(tmp_path / "tiny.json")
    conversation = locomo_data.load_conversation(path)
    assert [len(s.turns) for s in conversation.sessions] == [6, 4]
    assert conversation.sessions[1].start.day == 9 and conversation.questions[4].evidence == []
    report = locomo.evaluate([path], runs=("keyword",))
    assert report["dataset"]["questions"] == 5
    assert report["dataset"]["conversations"][0]["units"] == 10
    summary = report["runs"]["keyword"]["all"]
    # 3 of 4 questions with evidence have it first; the 4th never; the adversarial one counts as recalled
    assert summary["R@5"] == summary["R@50"] == 80.0
    assert summary["MRR"] == 0.75  # over the four questions with evidence
    by_category = report["runs"]["keyword"]["byCategory"]
    assert by_category["4 single-hop"]["R@5"] == 100.0 and by_category["4 single-hop"]["MRR"] == 1.0
    assert by_category["1 multi-hop"]["R@50"] == 0.0 and by_category["5 adversarial"]["R@5"] == 100.0


def test_locomo_vector_run_reaches_every_turn(tmp_path: Path, embedder: Embedder) -> None:
    """Vector search ranks every unit, so on ten turns recall@50 is complete, even for the question whose evidence
    shares no word with it; the distinctive questions still find their turn in the top 5."""
    path = tiny_locomo(tmp_path / "tiny.json")
    report = locomo.evaluate([path], runs=("vector",), embedder=embedder)
    summary = report["runs"]["vector"]["all"]
    assert summary["R@50"] == 100.0
    assert report["runs"]["vector"]["byCategory"]["4 single-hop"]["R@5"] == 100.0


def test_speed_corpus_arithmetic_keyword_only(capsys: pytest.CaptureFixture[str]) -> None:
    """--no-vectors: the corpus has exactly the chunks its generator promises (8 sections per memory note, 12
    exchanges of two messages per session), all found by the cold index and unchanged on a warm start."""
    argv = ["--sizes", "200", "--queries", "20", "--appends", "0", "--no-shared", "--no-vectors", "--json"]
    report = speed.main(argv, embedder=None)
    capsys.readouterr()
    size = report["sizes"][0]
    memory, sessions = size["corpus"]["memoryFiles"], size["corpus"]["transcriptFiles"]
    assert (memory, sessions) == (12, 8)  # round(200 / 2 / 8), round(200 / 2 / 12)
    cold = size["coldKeyword"]
    assert cold["files"] == memory + sessions
    assert cold["memoryChunks"] == memory * speed.MEMORY_SECTIONS
    assert cold["chunks"] == memory * speed.MEMORY_SECTIONS + sessions * speed.EXCHANGES
    assert cold["units"] == memory * speed.MEMORY_SECTIONS + sessions * speed.EXCHANGES * 2
    assert cold["badLines"] == cold["filesFailed"] == cold["unitsEmbedded"] == 0
    assert 1 <= cold["keywordSegments"] <= cold["files"]  # one commit per batch of files at most, merged by tantivy
    assert size["warmStart"]["filesUnchanged"] == size["warmStart"]["files"] == memory + sessions
    assert size["search"]["keyword"]["queries"] == 20


@pytest.mark.slow  # runs the benchmark
def test_speed_benchmark_runs(embedder: Embedder, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--sizes", "200", "--queries", "20", "--appends", "3", "--raw-sample", "200", "--no-shared", "--json"]
    report = speed.main(argv, embedder=embedder)
    assert json.loads(capsys.readouterr().out)["benchmark"] == "speed"
    size = report["sizes"][0]
    assert (
        size["coldKeyword"]["chunks"] == size["coldVectors"]["chunks"] == 192 and size["coldKeyword"]["badLines"] == 0
    )
    assert size["coldVectors"]["unitsEmbedded"] == size["coldVectors"]["units"] == 288
    assert size["rawEmbedding"]["textsPerS"] > 0 and size["embedRatio"] > 0
    for name in ("keyword", "hybrid", "vector", "queryEmbedding"):
        q = size["search"][name]
        assert 0 < q["p50Ms"] <= q["p95Ms"] <= q["p99Ms"]
    assert size["warmStart"]["filesUnchanged"] == size["warmStart"]["files"] > 0
    append = size["appendToSearchable"]
    assert append["appends"] == 3 and append["missed"] == 0 and append["p50Ms"] > 0
    checked = {t["what"] for t in report["targets"]}
    assert checked >= {"keyword p50 ms", "peak RSS MB, indexing in the benchmark process"}
    assert "| target |" in speed_report.format_report(report)


@pytest.mark.slow  # a fresh process
def test_search_process_memory_is_measured_in_a_fresh_process(embedder: Embedder, tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", 60)
    with open_engine(corpus, tmp_path / "index", embedder) as engine:
        engine.sync()
    result = search_memory.measure(tmp_path, queries=5)
    assert result["units"] > 0 and result["vectors"] == result["units"], result
    assert result["peakRssMB"] >= result["rssMB"] > 0 and result["anonMB"] > 0 and result["fileMB"] > 0
    where = result["residentMB"]  # by what is mapped: the parts add up to the RSS, the catalog named apart
    assert where["anonymous"] > 0 and "catalog.sqlite3" in where and "other files" in where, where
    assert sum(where.values()) == pytest.approx(result["rssMB"], abs=2.0)
    for spent in (*result["firstPassCpuMs"].values(), *result["warmCpuMs"].values()):
        assert 0 < spent["p50"] <= spent["p99"]
    assert set(result["warmCpuMs"]) == {"keyword", "hybrid", "vector"}
    assert "skipped" in search_memory.measure(tmp_path / "absent", queries=1)  # a failure is said, not raised


@pytest.mark.slow  # two fresh processes
def test_keyword_latency_answers_alike_in_two_processes(embedder: Embedder, tmp_path: Path) -> None:
    """Its digest is what an A/B compares trees by: two runs of one tree must give the same."""
    corpus = make_corpus(tmp_path / "corpus", 60)
    with open_engine(corpus, tmp_path / "index", embedder) as engine:
        engine.sync()
    first, second = (keyword_latency.measure(tmp_path, queries=5) for _ in range(2))
    assert first["units"] > 0 and first["queries"] == 5, first
    assert first["resultsSha256"] == second["resultsSha256"]
    spent = first["cpuMs"]
    assert 0 < spent["search"]["p50"] <= spent["search"]["p99"]
    assert spent["text"]["p50"] > 0 and spent["context"]["p50"] > 0  # both tantivy searches were timed
    assert "skipped" in keyword_latency.measure(tmp_path / "absent", queries=1)


@pytest.mark.slow  # a fresh process, and the model in this one
def test_hybrid_latency_and_profile_time_the_vector_side(embedder: Embedder, tmp_path: Path) -> None:
    """`--mode hybrid` times the query's embedding and the vector search beside tantivy's; the profile names the
    functions a hybrid search ran and digests its answers."""
    corpus = make_corpus(tmp_path / "corpus", 60)
    with open_engine(corpus, tmp_path / "index", embedder) as engine:
        engine.sync()
    result = keyword_latency.measure(tmp_path, queries=5, mode="hybrid")
    assert result["mode"] == "hybrid" and result["queries"] == 5, result
    spent = result["cpuMs"]
    assert spent["embed"]["p50"] > 0 and spent["vectors"]["p50"] > 0 and spent["text"]["p50"] > 0, spent
    assert result["resultsSha256"] != keyword_latency.measure(tmp_path, queries=5)["resultsSha256"]
    report = search_profile.profile(tmp_path, mode="hybrid", queries=3, seed=43, warmup=1, top=60, dump=None)
    assert report.startswith("hybrid: 3 searches") and "answers " in report
    assert "embed_query" in report and "rescore" in report  # the vector side and the ranking were profiled


def test_latency_asks_pastes_and_event_questions(tmp_path: Path) -> None:
    """`--set pastes` asks pasted errors and slices of the index's own messages, whose verbatim pass is timed;
    `--set events` asks about the days around events, whose dating is timed; each digests apart from the
    realistic queries."""
    corpus = make_corpus(tmp_path / "corpus", 60)
    with open_engine(corpus, tmp_path / "index", None) as engine:
        engine.sync()
        pastes = query_sets.query_set("pastes", engine, realistic=["a", "b", "c", "d"], seed=3)
    assert pastes[0] == query_sets.pasted_errors()[0] and len(pastes) == 4
    assert query_sets.PASTE_CHARS[0] <= len(pastes[1]) <= query_sets.PASTE_CHARS[1]
    plain = keyword_latency.measure(tmp_path, queries=6)
    pasted = keyword_latency.measure(tmp_path, queries=6, asking="pastes")
    events = keyword_latency.measure(tmp_path, queries=6, asking="events")
    assert pasted["set"] == "pastes" and events["set"] == "events", (pasted, events)
    assert pasted["cpuMs"]["verbatim"]["mean"] > 0, pasted["cpuMs"]
    assert events["cpuMs"]["event"]["p50"] > 0, events["cpuMs"]
    assert len({plain["resultsSha256"], pasted["resultsSha256"], events["resultsSha256"]}) == 3


def test_keyword_pruning_rewrite_gives_the_flat_querys_top_k(tmp_path: Path) -> None:
    """The MaxScore rewrite it measures must find what the flat query finds, with the same scores, whenever its
    split holds (the bench's figures mean nothing otherwise)."""
    corpus = make_corpus(tmp_path / "corpus", 300)
    with open_engine(corpus, tmp_path / "index", None) as engine:
        engine.sync()
    result = keyword_pruning.measure(tmp_path, queries=20, repeat=1, depths=(5, 5))
    for field in ("text", "context"):
        counts = result["counts"][field]
        assert counts["split"] > 0 and counts["requiredExact"] == counts["split"], result
        assert set(result["cpuMs"][field]) == {"flat", "constant", "top10", "required", "candidates"}


def test_the_vector_files_open_is_timed_and_another_layout_is_said(tmp_path: Path) -> None:
    import numpy as np

    from memlens.engine.vectors import vector_file
    from memlens.engine.vectors.quantized_rows import QuantizedRows

    count = 300
    rows = np.random.default_rng(1).standard_normal((count, 16)).astype(np.float32)
    path = vector_file.file_for(tmp_path / "index", "m")
    path.parent.mkdir()
    write_vector_file(path, QuantizedRows.of(rows), count=count, code_bytes=2)
    result = vector_open.child(tmp_path, 3)
    assert result["rows"] == count and len(result["cpuMs"]) == 3 and result["fileBytes"] == path.stat().st_size
    data = bytearray(path.read_bytes())
    data[:8] = b"MLVEC03\n"  # a layout this tree rebuilds rather than reads
    path.write_bytes(bytes(data))
    assert "skipped" in vector_open.child(tmp_path, 1)


def test_vector_search_cost_times_each_filter_and_the_parts(tmp_path: Path) -> None:
    import numpy as np

    from memlens.engine.vectors import vector_file
    from memlens.engine.vectors.quantized_rows import QuantizedRows
    from memlens.engine.vectors.vector_index import EXACT_ROWS

    count = EXACT_ROWS + 900  # past the exact scan: the codes are used
    rows = np.random.default_rng(2).standard_normal((count, 16)).astype(np.float32)
    quantized = QuantizedRows.of(rows)
    path = vector_file.file_for(tmp_path / "index", "m")
    path.parent.mkdir()
    write_vector_file(
        path,
        quantized,
        count=count,
        code_bytes=2,
        codes=quantized.sign_codes(),
        labels=["memory", "transcript"] * (count // 2),
    )
    result = vector_search_cost.child(tmp_path, 4)
    assert result["rows"] == count and set(result["cpuMs"]) == {"none", "leaveOutKind", "roleUser"}
    assert set(result["partsMs"]) == {"codes", "int8RowsRead", "int8Scores", "refined"}
    assert "skipped" in vector_search_cost.measure(tmp_path / "elsewhere", queries=1)


def test_an_ab_compiles_each_tree_even_where_bytecode_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whole processes of two trees are timed on equal terms only with both compiled: with PYTHONDONTWRITEBYTECODE
    (sys.dont_write_bytecode) a tree never compiled pays the compilation in every process."""
    from bench.common import compile_trees

    package = tmp_path / "server" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "module.py").write_text("VALUE = 1\n")
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    compile_trees(tmp_path / "server")
    assert {p.name.split(".")[0] for p in (package / "__pycache__").glob("*.pyc")} == {"__init__", "module"}


def test_a_benchmark_cache_holding_a_folder_it_does_not_name_is_built_again(tmp_path: Path) -> None:
    """A command once pointed at a benchmark's cached index with another workspace left that folder in it (an index
    remembers its folders and searches them): the benchmark's index then holds its own folders alone."""
    from bench.common import named_only

    from memlens.engine.engine import Engine
    from memlens.settings import Settings

    own, other, index = tmp_path / "own", tmp_path / "other", tmp_path / "index"
    for folder, word in ((own, "heron"), (other, "pelican")):
        folder.mkdir()
        (folder / "MEMORY.md").write_text(f"# Notes\n\nThe {word} nests by the river.\n", encoding="utf-8")

    def opened(workspace: Path) -> Engine:
        return Engine([workspace], Settings(), index_dir=index, embedder=False)

    with opened(other) as stray:
        stray.sync()
    engine = named_only(lambda: opened(own), index)
    try:
        engine.sync()
        assert engine.unnamed_source_folders() == []
        assert engine.search("pelican", mode="keyword")["results"] == []
        assert engine.search("heron", mode="keyword")["results"]
    finally:
        engine.close()
