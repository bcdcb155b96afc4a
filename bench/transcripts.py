"""Retrieval quality on real transcripts: hand-written questions over ../shared/fixtures/transcripts.

LoCoMo measures chat between two people; this set measures what memlens is for, finding a coding-agent message weeks
later, in the four real formats. Each question in bench/data/transcript_questions.json names its target messages as
"<path under fixtures/transcripts>#<messageId>": the messageId a search hit shows (Claude Code: the uuid of the
message's first line; OpenClaw: the record's id; Codex and SpecStory have no ids, so "L<line>"), which the same
file always gets again when it is re-indexed. A target list holds every message that answers the question (the same
message copied into another file, or an answer and the request it answers); a question counts as found when any of
them is.

Before scoring, the set is checked against the index: every target must exist, and a "paraphrase" question must not
use a rare word of its targets (one in fewer than 1 % of the indexed messages; words as the keyword analyser gives
them), as it is or by a common 5-letter prefix; the share of its content words found in the targets is reported. It
is an evaluation set: never tune on it.
bench/data/transcript_questions_tune.json is the set to tune on (`--questions tune`): other questions, other target
messages. bench/data/transcript_questions_bags.json (`--questions bags`) asks about the tune set's targets as an editor
user types a search, a few keywords or half-remembered words; its "answered" column is how often a search about
something the transcripts hold is not met with silence. `--set` changes the index's settings (chunking, embedding: a
cache of its own), `--variant` names search settings tried on the same index, as in bench/locomo.py.

    python -m bench.transcripts [--json] [--no-cache] [--questions eval|tune|bags|PATH] [--no-shared-words]
        [--ranks] [--set KEY=VALUE …] [--variant NAME:KEY=VALUE[,KEY=VALUE] …]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import platformdirs

from bench.common import SHARED, load_shared_embedder, machine_info, named_only
from bench.locomo import bench_settings, parse_overrides, parse_variants, search_variants
from memlens.engine.engine import Engine
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings

REPO = Path(__file__).resolve().parents[1]
TRANSCRIPTS = SHARED / "fixtures" / "transcripts"
QUESTIONS = REPO / "bench" / "data" / "transcript_questions.json"
QUESTION_SETS = {
    "eval": QUESTIONS,
    "tune": REPO / "bench" / "data" / "transcript_questions_tune.json",
    "bags": REPO / "bench" / "data" / "transcript_questions_bags.json",
}
CACHE = Path(platformdirs.user_cache_dir("memlens")) / "bench" / "transcripts"
MODES = ("keyword", "vector", "hybrid")
KINDS = ("original", "paraphrase")
DEPTH = 50  # messages scored per question (MRR counts a target found this deep)
RARE_SHARE = 0.01  # a word in fewer than this share of the units is rare (distinctive)
STEM = 5  # two words sharing their first STEM letters count as one word in the paraphrase check


@dataclass
class Corpus:
    """The indexed transcripts seen as messages: which message each unit belongs to (tool results too), and each
    message's text (tool results left out: the paraphrase check weighs words among messages)."""

    engine: Engine
    key_of_unit: dict[int, str]
    text_of: dict[str, str]
    seconds: float = 0.0
    cpu_seconds: float = 0.0


@dataclass
class Check:
    """What the validator found: unknown targets, and for each paraphrase its overlap with its targets."""

    unknown: list[str] = field(default_factory=list)
    rare_shared: dict[str, list[str]] = field(default_factory=dict)  # question id → rare words shared with targets
    overlap: dict[str, float] = field(default_factory=dict)  # question id → share of content words in the targets

    @property
    def ok(self) -> bool:
        return not self.unknown and not self.rare_shared


def cached_index(settings: Settings) -> Path:
    """The cached index of the shared transcripts for these settings: one for each chunking and model (an index
    keeps the chunking it was built with)."""
    key = json.dumps([vars(settings.chunking), vars(settings.embedding)], sort_keys=True)
    return CACHE / hashlib.sha1(key.encode()).hexdigest()[:12]


def load_questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    questions: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["questions"]
    return questions


def message_key(path: str | Path, message_id: str, root: Path) -> str:
    """The stable id of a message: its file relative to the transcripts folder, '#', its messageId."""
    return f"{Path(path).relative_to(root).as_posix()}#{message_id}"


def open_corpus(
    *, root: Path, index_dir: Path, embedder: Embedder | None, overrides: dict[str, Any] | None = None
) -> Corpus:
    """Index `root` through the real Engine (default settings and `overrides`, agents' own folders off) and map
    units to messages."""
    workspace = index_dir / "workspace"  # an empty workspace: only the transcripts are indexed
    workspace.mkdir(parents=True, exist_ok=True)
    wall, cpu = time.perf_counter(), time.process_time()
    settings = bench_settings(overrides)
    engine = named_only(
        lambda: Engine(
            [workspace],
            settings,
            extra_transcripts=[root],
            index_dir=index_dir / "index",
            embedder=embedder if embedder is not None else False,
        ),
        index_dir / "index",
    )
    engine.sync()
    corpus = Corpus(engine, {}, {}, time.perf_counter() - wall, time.process_time() - cpu)
    resolved = root.resolve()
    for session in engine.catalog.all_sessions():
        # every unit its file holds: a target may name a message's copy in another file (catalog/copies.py)
        for unit in engine.catalog.session_units(session["key"], after=-1, count=1 << 30, copies=True):
            key = message_key(session["path"], str(unit["message_id"]), resolved)
            corpus.key_of_unit[int(unit["id"])] = key
            if unit["kind"] == "tool":
                continue  # ranked like any hit, but no question is about a command's output: not a message here
            corpus.text_of[key] = (corpus.text_of.get(key, "") + "\n" + str(unit["text"])).strip()
    return corpus


def _stem_match(word: str, tokens: Iterable[str]) -> list[str]:
    """Tokens equal to `word` or sharing its first STEM letters (both at least STEM long)."""
    if len(word) < STEM:
        return [t for t in tokens if t == word]
    return [t for t in tokens if t == word or (len(t) >= STEM and t[:STEM] == word[:STEM])]


def check_questions(questions: Sequence[dict[str, Any]], corpus: Corpus) -> Check:
    """Every target exists; no paraphrase shares a rare word with its targets (see the module docstring)."""
    check = Check()
    keyword = corpus.engine.keyword
    # rare among messages, not units: the check gives the same answer however the index splits long messages
    words_of = [set(keyword.tokens(text)) for text in corpus.text_of.values()]
    for item in questions:
        check.unknown += [t for t in item["targets"] if t not in corpus.text_of]
        if item["kind"] != "paraphrase":
            continue
        words = keyword.content_words(item["question"])
        target_tokens = set(keyword.tokens(" ".join(corpus.text_of.get(t, "") for t in item["targets"])))
        check.overlap[item["id"]] = round(sum(w in target_tokens for w in words) / max(1, len(words)), 3)
        pairs = [(w, t) for w in words for t in _stem_match(w, target_tokens)]
        candidates = list(dict.fromkeys(t for _, t in pairs))
        rare = {t for t in candidates if sum(t in words for words in words_of) < RARE_SHARE * len(words_of)}
        # a rare (distinctive) word of the targets that the question uses, as it is or with the same stem
        shared = [w if w == t else f"{w}~{t}" for w, t in pairs if t in rare]
        if shared:
            check.rare_shared[item["id"]] = shared
    return check


def shared_words(item: dict[str, Any], corpus: Corpus) -> tuple[list[str], list[str]]:
    """A question's content words (stemmed, one-letter fragments such as the "t" of "wasn't" left out) and those of
    them its targets' text holds: a question asked by someone who forgot the words shares none
    (bench/paraphrase_overlap.py)."""
    keyword = corpus.engine.keyword
    words = [w for w in keyword.content_words(item["question"]) if len(w) > 1]
    target_words = set(keyword.tokens(" ".join(corpus.text_of.get(t, "") for t in item["targets"])))
    return words, [w for w in words if w in target_words]


def score(ranked: Sequence[str], targets: Iterable[str]) -> dict[str, float]:
    """P@1, R@5, R@10 (the question is found when any target is in the top k) and reciprocal rank of the first."""
    wanted = set(targets)
    first = next((i for i, key in enumerate(ranked, 1) if key in wanted), None)
    scores = {"P@1": float(first == 1)}
    scores |= {f"R@{k}": float(first is not None and first <= k) for k in (5, 10)}
    scores["MRR"] = 1.0 / first if first else 0.0
    return scores


def ranked_messages(corpus: Corpus, question: str, mode: str) -> list[str]:
    """The engine's ranking as message keys, best first (a message split into parts counts once)."""
    ranking = corpus.engine.rank(question, mode=mode, limit=DEPTH)
    keys = (corpus.key_of_unit.get(h.unit_id) for h in ranking.hits)
    return list(dict.fromkeys(k for k in keys if k is not None))


def shown_messages(corpus: Corpus, question: str, mode: str, root: Path) -> list[str]:
    """What `memlens search` shows with default settings: one hit per chunk, none below the answer threshold."""
    results = corpus.engine.search(question, mode=mode)["results"]
    return [message_key(r["path"], str(r["messageId"]), root.resolve()) for r in results if r.get("messageId")]


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Means as percentages (MRR as a fraction) over the rows' scores."""
    out: dict[str, Any] = {"questions": len(rows)}
    if not rows:
        return out
    for key in rows[0]["scores"]:
        mean = sum(r["scores"][key] for r in rows) / len(rows)
        out[key] = round(mean, 3) if key == "MRR" else round(100 * mean, 1)
    return out


def evaluate(
    questions: Sequence[dict[str, Any]],
    corpus: Corpus,
    *,
    root: Path,
    modes: Sequence[str] = MODES,
    variants: dict[str, dict[str, Any]] | None = None,
    overrides: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Rank every question in every mode; score the ranking and what search shows; summarise by kind and format.

    Each of `variants` (search settings on top of `overrides`) runs every mode again on the same index, reported as
    "<mode> <variant>"."""
    runs: dict[str, Any] = {}
    own = corpus.engine.settings.search
    searches = {"": own} | {k: v for k, v in search_variants(overrides, variants).items() if k}
    for suffix, search in searches.items():
        corpus.engine.settings.search = search
        for mode in modes:
            runs[mode + suffix] = _evaluate_mode(questions, corpus, root=root, mode=mode)
    corpus.engine.settings.search = own
    return runs


def _evaluate_mode(questions: Sequence[dict[str, Any]], corpus: Corpus, *, root: Path, mode: str) -> dict[str, Any]:
    """One mode under the engine's current search settings: scores by kind and format, and the misses."""
    rows: list[dict[str, Any]] = []
    wall, cpu = time.perf_counter(), time.process_time()
    for item in questions:
        ranked = ranked_messages(corpus, item["question"], mode)
        scores = score(ranked[:DEPTH], item["targets"])
        shown = shown_messages(corpus, item["question"], mode, root)
        shown_scores = score(shown, item["targets"])
        scores["shown R@5"], scores["shown R@10"] = shown_scores["R@5"], shown_scores["R@10"]
        scores["answered"] = float(bool(shown))
        first = next((i for i, k in enumerate(ranked, 1) if k in set(item["targets"])), None)
        rows.append({"id": item["id"], "kind": item["kind"], "file": item["file"], "scores": scores,
                     "rank": first, "top": ranked[:3]})  # fmt: skip
    seconds, cpu_seconds = time.perf_counter() - wall, time.process_time() - cpu
    formats = sorted({r["file"].split("/", 1)[0] for r in rows})
    return {
        "all": summarise(rows),
        "byKind": {k: summarise([r for r in rows if r["kind"] == k]) for k in KINDS},
        "byFormat": {f: summarise([r for r in rows if r["file"].startswith(f + "/")]) for f in formats},
        "msPerQuestion": round(1000 * seconds / max(1, len(rows)), 1),
        "cpuMsPerQuestion": round(1000 * cpu_seconds / max(1, len(rows)), 1),
        "ranks": {r["id"]: r["rank"] for r in rows},  # the first target's place, None when not ranked
        "misses": [
            {"id": r["id"], "kind": r["kind"], "rank": r["rank"], "top": r["top"]}
            for r in rows
            if not r["scores"]["R@5"]
        ],
    }


def format_report(report: dict[str, Any]) -> str:
    m = report["machine"]
    lines = [
        f"CPU: {m['cpu']} ({m['cores']} cores); load average at start {m['loadavg']}, at end {report['loadavgEnd']}",
        f"indexed {report['corpus']['messages']} messages ({report['corpus']['units']} units) in "
        f"{report['corpus']['indexSeconds']} s wall, {report['corpus']['indexCpuSeconds']} s CPU",
        f"questions: {report['questions']['total']} ({report['questions']['paraphrase']} paraphrases); "
        f"paraphrase content words found in their targets: mean {report['check']['meanOverlap']:.0%}, "
        f"max {report['check']['maxOverlap']:.0%}; rare words shared: none",
        "",
        "| mode | kind | questions | P@1 | R@5 | R@10 | MRR | shown R@5 | shown R@10 | answered | ms/q (CPU) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for mode, run in report["runs"].items():
        for kind, s in [("all", run["all"]), *run["byKind"].items()]:
            if not s["questions"]:
                continue  # a set of one kind (the bags are all "original")
            timing = f"{run['msPerQuestion']} ({run['cpuMsPerQuestion']})" if kind == "all" else ""
            cells = [mode, kind, s["questions"], s["P@1"], s["R@5"], s["R@10"], f"{s['MRR']:.3f}"]
            cells += [s["shown R@5"], s["shown R@10"], s["answered"], timing]
            lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    lines += ["", "R@5 by format (all questions):"]
    for mode, run in report["runs"].items():
        cells = [f"{f} {s['R@5']} ({s['questions']})" for f, s in run["byFormat"].items()]
        lines.append(f"  {mode}: " + ", ".join(cells))
    text = {q["id"]: q["question"] for q in report["questionList"]}
    if report.get("showRanks"):
        modes = list(report["runs"])
        lines += [
            "",
            "the first target's place by mode (-: not among the messages ranked): id, " + ", ".join(modes),
        ]
        for q in report["questionList"]:
            places = [report["runs"][m]["ranks"].get(q["id"]) for m in modes]
            lines.append(f"  {q['id']} " + " ".join(f"{p if p else '-':>3}" for p in places) + f"  {q['question']}")
    lines += ["", "hybrid misses (no target in the top 5): id, kind, rank of the first target, question, top hit"]
    for miss in report["runs"].get("hybrid", {}).get("misses", []):
        top = miss["top"][0] if miss["top"] else "-"
        lines.append(f"  {miss['id']} {miss['kind']} rank {miss['rank']}: {text[miss['id']]!r} -> {top}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the full report as JSON")
    parser.add_argument("--no-cache", action="store_true", help=f"index into a temporary folder, not {CACHE}")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated, of " + ", ".join(MODES))
    parser.add_argument(
        "--questions",
        default="eval",
        help="eval (report on it), tune (tune on it), bags (keyword searches about tune targets), or a file's path",
    )
    parser.add_argument(
        "--no-shared-words",
        action="store_true",
        help="only the paraphrases that share no content word with their targets (bench/paraphrase_overlap.py)",
    )
    parser.add_argument("--ranks", action="store_true", help="list each question's first target place in each mode")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a setting for the index")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME:KEY=VALUE[,KEY=VALUE]",
        help="search settings tried on the same index, reported as '<mode> NAME'",
    )
    args = parser.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if unknown := [m for m in modes if m not in MODES]:
        parser.error(f"unknown modes {unknown}")
    if not TRANSCRIPTS.is_dir():
        raise SystemExit(f"the shared transcripts are not at {TRANSCRIPTS}")
    questions = load_questions(QUESTION_SETS.get(args.questions, Path(args.questions)))
    overrides, variants = parse_overrides(args.set), parse_variants(args.variant)
    machine = machine_info()
    embedder = load_shared_embedder(bench_settings(overrides)) if modes != ["keyword"] else None
    with contextlib.ExitStack() as stack:
        if args.no_cache:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        else:
            folder = cached_index(bench_settings(overrides))
        corpus = open_corpus(root=TRANSCRIPTS, index_dir=folder, embedder=embedder, overrides=overrides)
        stack.callback(corpus.engine.close)
        check = check_questions(questions, corpus)
        if not check.ok:
            raise SystemExit(f"the question set is invalid: unknown targets {check.unknown}; "
                             f"paraphrases sharing rare words with their targets {check.rare_shared}")  # fmt: skip
        if args.no_shared_words:
            questions = [q for q in questions if q["kind"] == "paraphrase" and not shared_words(q, corpus)[1]]
        runs = evaluate(questions, corpus, root=TRANSCRIPTS, modes=modes, variants=variants, overrides=overrides)
        overlaps = list(check.overlap.values())
        report: dict[str, Any] = {
            "benchmark": "transcripts",
            "machine": machine,
            "loadavgEnd": machine_info()["loadavg"],
            "corpus": {
                "root": str(TRANSCRIPTS),
                "messages": len(corpus.text_of),
                "units": len(corpus.key_of_unit),
                "indexSeconds": round(corpus.seconds, 2),
                "indexCpuSeconds": round(corpus.cpu_seconds, 2),
                "cached": not args.no_cache,
            },
            "questions": {
                "set": args.questions,
                "total": len(questions),
                "paraphrase": sum(q["kind"] == "paraphrase" for q in questions),
            },
            "check": {
                "overlap": check.overlap,
                "meanOverlap": sum(overlaps) / max(1, len(overlaps)),
                "maxOverlap": max(overlaps, default=0.0),
            },
            "settings": {"overrides": overrides, "variants": variants},
            "runs": runs,
            "questionList": [{"id": q["id"], "question": q["question"]} for q in questions],
            "showRanks": args.ranks,
        }
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return report


if __name__ == "__main__":
    main()
