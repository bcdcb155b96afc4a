"""The real-transcript question set stays valid (schema, size, targets that exist, paraphrases without the target's
rare words), and bench/transcripts.py scores an index correctly: keys map back to messages, metrics add up. The
scoring is checked on the real transcripts in ../shared, else on the committed synthetic ones with questions made of
their own messages; what only the real set can show is one test, so a clone without ../shared skips it once."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import transcripts  # noqa: E402

from conftest import FIXTURES  # noqa: E402

SYNTHETIC = REPO / "tests" / "fixtures" / "transcripts"
FORMATS = ("claude-code", "codex", "openclaw", "specstory")


@pytest.fixture(scope="module")
def questions() -> list[dict[str, Any]]:
    return transcripts.load_questions()


@pytest.fixture(scope="module")
def corpus_root() -> Path:
    """The real transcripts when ../shared is present, else the committed synthetic ones."""
    return FIXTURES if FIXTURES.is_dir() else SYNTHETIC


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, corpus_root: Path) -> Iterator[transcripts.Corpus]:
    """The transcripts indexed keyword-only (the question checks and the scoring need no vectors)."""
    built = transcripts.open_corpus(root=corpus_root, index_dir=tmp_path_factory.mktemp("tq"), embedder=None)
    yield built
    built.engine.close()


@pytest.fixture(scope="module")
def asked(questions: list[dict[str, Any]], corpus: transcripts.Corpus, corpus_root: Path) -> list[dict[str, Any]]:
    """Questions about this corpus: the real set on the real transcripts, else a message's own opening words."""
    if corpus_root == FIXTURES:
        return questions
    keys = [key for key, text in sorted(corpus.text_of.items()) if len(text.split()) >= 8][:8]
    return [
        {
            "id": f"own-{n}",
            "question": corpus.text_of[key][:200],
            "kind": ("original", "paraphrase")[n % 2],
            "targets": [key],
            "file": key.split("#", 1)[0],
        }
        for n, key in enumerate(keys)
    ]


def test_question_file_schema(questions: list[dict[str, Any]]) -> None:
    assert len(questions) >= 60
    assert len({q["id"] for q in questions}) == len(questions)
    kinds = [q["kind"] for q in questions]
    assert set(kinds) == {"original", "paraphrase"}
    assert kinds.count("paraphrase") * 2 >= len(questions)
    for q in questions:
        assert set(q) == {"id", "question", "kind", "targets", "file"}, q["id"]
        assert q["question"].strip() and q["targets"], q["id"]
        assert all("#" in t for t in q["targets"]), q["id"]
        assert q["file"] == q["targets"][0].split("#", 1)[0], q["id"]
    assert {q["file"].split("/", 1)[0] for q in questions} == set(FORMATS)


def test_the_tune_set_never_targets_an_evaluation_message() -> None:
    """Tuning on a message the evaluation set asks about would leak it into the figures reported: the two files'
    targets (and ids) are disjoint. Reads only the files, so it runs without ../shared."""
    tune = transcripts.load_questions(transcripts.QUESTION_SETS["tune"])
    evaluated = transcripts.load_questions(transcripts.QUESTION_SETS["eval"])
    evaluated_targets = {t for q in evaluated for t in q["targets"]}
    clashing = [q["id"] for q in tune if set(q["targets"]) & evaluated_targets]
    assert not clashing, f"tune questions that target an evaluation message: {clashing}"
    assert not {q["id"] for q in tune} & {q["id"] for q in evaluated}
    assert len({q["id"] for q in tune}) == len(tune)


def test_the_bag_set_asks_only_about_tune_targets() -> None:
    """The keyword-bag set (`--questions bags`) is written from the tune set's messages: each target is a tune target,
    none an evaluation one, and its questions are short searches, not sentences. Reads only the files."""
    bags = transcripts.load_questions(transcripts.QUESTION_SETS["bags"])
    tune_targets = {t for q in transcripts.load_questions(transcripts.QUESTION_SETS["tune"]) for t in q["targets"]}
    evaluated = transcripts.load_questions(transcripts.QUESTION_SETS["eval"])
    assert len(bags) >= 30 and len({q["id"] for q in bags}) == len(bags)
    assert [q["id"] for q in bags if not set(q["targets"]) <= tune_targets] == []
    assert not {q["id"] for q in bags} & {q["id"] for q in evaluated}
    for q in bags:
        assert set(q) == {"id", "question", "kind", "targets", "file"}, q["id"]
        assert q["file"] == q["targets"][0].split("#", 1)[0], q["id"]
        assert len(q["question"].split()) <= 8 and "?" not in q["question"], q["id"]


def test_the_question_sets_hold_on_the_real_transcripts(
    questions: list[dict[str, Any]], corpus: transcripts.Corpus, corpus_root: Path
) -> None:
    """Every target exists, no paraphrase uses a rare word of its target (and the check catches one that does), the
    tune set asks about other messages than the evaluation set, and a message searched by its own words comes back
    under its key. One test: without ../shared it is skipped once."""
    if corpus_root != FIXTURES:
        pytest.skip(f"real transcripts not found at {FIXTURES} (../shared is absent)")
    check = transcripts.check_questions(questions, corpus)
    assert check.unknown == []
    assert check.rare_shared == {}
    assert set(check.overlap) == {q["id"] for q in questions if q["kind"] == "paraphrase"}

    target = "openclaw/f967d602-325a-4a45-8d54-ee17484cfd96.jsonl#338bfb91"  # the pirogue summary
    bad = [
        {"id": "leak", "kind": "paraphrase", "question": "the story about the pirogue", "targets": [target]},
        {"id": "stem", "kind": "paraphrase", "question": "the smugglers in that story", "targets": [target]},
        {"id": "gone", "kind": "original", "question": "x", "targets": ["openclaw/nope.jsonl#1"]},
    ]
    check = transcripts.check_questions(bad, corpus)
    assert check.unknown == ["openclaw/nope.jsonl#1"]
    assert check.rare_shared["leak"] == corpus.engine.keyword.tokens("pirogue")  # as the keyword analyser gives it
    assert any("~" in w for w in check.rare_shared["stem"])  # "smugglers" against the target's "smuggled"
    assert not check.ok

    tune = transcripts.load_questions(transcripts.QUESTION_SETS["tune"])
    assert len(tune) >= 45 and sum(q["kind"] == "paraphrase" for q in tune) >= 35
    assert not {q["id"] for q in tune} & {q["id"] for q in questions}
    evaluated = {t for q in questions for t in q["targets"]}
    assert [q["id"] for q in tune if set(q["targets"]) & evaluated] == []  # tuning never sees an evaluation target
    check = transcripts.check_questions(tune, corpus)
    assert check.unknown == [] and check.rare_shared == {}
    # the "forgot the words" paraphrases share no content word at all with their targets (bench/paraphrase_overlap.py)
    strict = [q for q in tune if q.get("source") == "forgot-words"]
    assert len(strict) >= 20
    assert {q["id"]: transcripts.shared_words(q, corpus)[1] for q in strict} == {q["id"]: [] for q in strict}
    assert all(q["file"] not in {e["file"] for e in questions} for q in strict)  # other sessions than the evaluation's
    assert transcripts.check_questions(transcripts.load_questions(transcripts.QUESTION_SETS["bags"]), corpus).ok

    for key in (
        "specstory/.specstory/history/2026-05-10_09-00-00Z-where-is-save-implemented.md#L83",
        "codex/2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl#L17",
        "claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl#1beab74f-197e-4133-87be-aee57bee402e",
    ):
        words = corpus.text_of[key][:300]
        assert transcripts.ranked_messages(corpus, words, "keyword")[0] == key
        assert transcripts.shown_messages(corpus, words, "keyword", corpus_root)[0] == key


def test_shared_words_are_the_question_content_words_its_targets_hold(corpus: transcripts.Corpus) -> None:
    """A question made of its target's own words shares them all; one of words the target lacks shares none; stop
    words and one-letter fragments are no content words, and a word meets its target's other form through the
    stemmer. The target is a message no evaluation question asks about (a tune set's session, or a synthetic one)."""
    evaluated = {q["file"] for q in transcripts.load_questions()}
    key = next(k for k, text in sorted(corpus.text_of.items()) if k.split("#")[0] not in evaluated and len(text) > 80)
    item = {"id": "own", "kind": "paraphrase", "question": " ".join(corpus.text_of[key].split()[:30]), "targets": [key]}
    words, shared = transcripts.shared_words(item, corpus)
    assert words and shared == words
    other = dict(item, question="the of and it's zyxwvut qqqplorf")
    assert transcripts.shared_words(other, corpus) == (["zyxwvut", "qqqplorf"], [])
    own = corpus.engine.keyword.unstemmed_words(corpus.text_of[key])
    plural = next(w for w in own if w.isalpha() and len(w) > 3 and not w.endswith("s")) + "s"
    assert transcripts.shared_words(dict(item, question=plural), corpus)[1] != []


def test_score_counts_the_first_target() -> None:
    assert transcripts.score(["a", "b", "c"], ["a"]) == {"P@1": 1.0, "R@5": 1.0, "R@10": 1.0, "MRR": 1.0}
    ranked = [f"m{i}" for i in range(12)]
    assert transcripts.score(ranked, ["m6", "m11"]) == {"P@1": 0.0, "R@5": 0.0, "R@10": 1.0, "MRR": 1 / 7}
    assert transcripts.score(ranked, ["m4"]) == {"P@1": 0.0, "R@5": 1.0, "R@10": 1.0, "MRR": 0.2}  # 5th counts
    assert transcripts.score(ranked, ["zz"]) == {"P@1": 0.0, "R@5": 0.0, "R@10": 0.0, "MRR": 0.0}


def test_evaluate_on_a_few_questions(
    asked: list[dict[str, Any]], corpus: transcripts.Corpus, corpus_root: Path
) -> None:
    originals = [q for q in asked if q["kind"] == "original"]
    sample = originals[:4] + [q for q in asked if q["kind"] == "paraphrase"][:4]
    runs = transcripts.evaluate(sample, corpus, root=corpus_root, modes=("keyword",))
    run = runs["keyword"]
    assert run["all"]["questions"] == 8
    assert run["byKind"]["original"]["questions"] == run["byKind"]["paraphrase"]["questions"] == 4
    for summary in (run["all"], *run["byKind"].values()):
        assert 0 <= summary["P@1"] <= summary["R@5"] <= summary["R@10"] <= 100
        assert 0 <= summary["MRR"] <= 1
        assert summary["shown R@5"] <= summary["answered"]
    assert {m["id"] for m in run["misses"]} <= {q["id"] for q in sample}
    assert sum(s["questions"] for s in run["byFormat"].values()) == 8


def test_the_report_of_a_set_of_one_kind_leaves_the_other_out(
    asked: list[dict[str, Any]], corpus: transcripts.Corpus, corpus_root: Path
) -> None:
    """The bag set has no paraphrase: its report has no paraphrase row (it failed on the empty summary)."""
    sample = [q for q in asked if q["kind"] == "original"][:2]
    runs = transcripts.evaluate(sample, corpus, root=corpus_root, modes=("keyword",))
    machine = {"cpu": "test", "cores": 1, "loadavg": [0.0, 0.0, 0.0]}
    report = {
        "machine": machine,
        "loadavgEnd": machine["loadavg"],
        "corpus": {"messages": 1, "units": 1, "indexSeconds": 0.0, "indexCpuSeconds": 0.0},
        "questions": {"total": 2, "paraphrase": 0},
        "check": {"meanOverlap": 0.0, "maxOverlap": 0.0},
        "runs": runs,
        "questionList": [{"id": q["id"], "question": q["question"]} for q in sample],
    }
    rows = [line for line in transcripts.format_report(report).splitlines() if line.startswith("| keyword |")]
    assert [row.split(" | ")[1] for row in rows] == ["all", "original"]


def test_a_variant_ranks_again_on_the_same_index_with_its_settings(
    asked: list[dict[str, Any]], corpus: transcripts.Corpus, corpus_root: Path
) -> None:
    sample = [q for q in asked if q["kind"] == "original"][:3]
    before = corpus.engine.settings.search
    runs = transcripts.evaluate(
        sample, corpus, root=corpus_root, modes=("keyword",), variants={"top1": {"search.maxResults": 1}}
    )
    assert set(runs) == {"keyword", "keyword top1"}
    assert runs["keyword"]["all"]["R@5"] == runs["keyword top1"]["all"]["R@5"]  # the ranking is the same …
    assert runs["keyword top1"]["all"]["shown R@5"] <= runs["keyword top1"]["all"]["P@1"]  # … what is shown is 1 hit
    assert corpus.engine.settings.search is before  # the engine's own settings are back
