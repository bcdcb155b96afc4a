"""LoCoMo retrieval benchmark: recall of evidence turns in memlens rankings, beside the paper's DRAGON figures."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import platformdirs

from bench.common import SHARED, load_shared_embedder, machine_info, named_only
from bench.locomo_data import Conversation, EvidenceCounts, Question, load_conversation, write_transcripts
from memlens.engine.engine import Engine
from memlens.engine.ranking.rescoring import choose
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import SearchSettings, Settings, merge

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = SHARED / "datasets" / "locomo"
DEFAULT_CACHE = Path(platformdirs.user_cache_dir("memlens")) / "bench" / "locomo"
# The LoCoMo paper (Maharana et al., ACL 2024), Table 3: DRAGON retriever, unit = one dialog turn, all categories.
REFERENCE = {"R@5": 56.7, "R@10": 66.2, "R@25": 76.7, "R@50": 82.7}
TURN_KS = (5, 10, 25, 50)
CHUNK_KS = (1, 3, 5, 10)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
RUNS: dict[str, tuple[str, str]] = {
    "keyword": ("keyword", "weighted"),
    "vector": ("vector", "weighted"),
    "hybrid-weighted": ("hybrid", "weighted"),
    "hybrid-rrf": ("hybrid", "rrf"),
    "hybrid": ("hybrid", ""),  # the fusion of the settings (search.fusion, so a --variant can change it)
}


def search_variants(
    overrides: dict[str, Any] | None, variants: dict[str, dict[str, Any]] | None
) -> dict[str, SearchSettings]:
    """Search settings by label suffix: "" for `overrides` alone, " NAME" for each variant on top of them."""
    base = bench_settings(overrides).search
    return {"": base} | {
        f" {n}": bench_settings({**(overrides or {}), **v}).search for n, v in (variants or {}).items()
    }


def bench_settings(overrides: dict[str, Any] | None = None) -> Settings:
    """Default settings, agents' own folders off, plus `overrides` (camelCase keys as in .memlens.json)."""
    warnings: list[str] = []
    settings = merge(Settings(), overrides or {}, warnings)
    if warnings:
        raise SystemExit("bad --set: " + "; ".join(warnings))
    settings.transcripts.agent_defaults = False
    return settings


@dataclass
class BuiltIndex:
    engine: Engine
    turn_of: dict[int, str]  # unit id → dia_id
    chunk_of: dict[int, int]  # unit id → chunk id
    chunk_of_turn: dict[str, int]
    seconds: float
    units: int
    chunks: int


def cache_key(
    path: Path, settings: Settings, vectors: bool, max_sessions: int | None, max_questions: int | None
) -> str:
    """What a cached index depends on: the data file, the chunking and embedding settings, vectors or not."""
    digest = hashlib.sha1(path.read_bytes())
    digest.update(json.dumps([vars(settings.chunking), vars(settings.embedding), vectors, max_sessions]).encode())
    del max_questions  # questions do not change the index
    return f"{path.stem}-{digest.hexdigest()[:12]}"


def build_index(conversation: Conversation, root: Path, settings: Settings, embedder: Embedder | None) -> BuiltIndex:
    """Write the transcripts and index them through the real Engine (parser, chunker, tantivy, vectors).

    `root` may hold an earlier build (a cache): transcripts are rewritten only when their text changed, so the
    engine's sync finds nothing to do and keeps its vectors; a keyword schema change rebuilds tantivy alone."""
    transcripts = write_transcripts(conversation, root / "transcripts")
    workspace = root / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    engine = named_only(
        lambda: Engine(
            [workspace],
            settings,
            extra_transcripts=[transcripts[0].parent],
            index_dir=root / "index",
            embedder=embedder if embedder is not None else False,
        ),
        root / "index",
    )
    engine.sync()
    seconds = time.perf_counter() - started
    rows = engine.catalog.db.execute("SELECT id, message_id, chunk_id FROM units").fetchall()
    turn_of = {int(r[0]): str(r[1]) for r in rows}
    chunk_of = {int(r[0]): int(r[2]) for r in rows}
    chunk_of_turn = {str(r[1]): int(r[2]) for r in rows}
    return BuiltIndex(engine, turn_of, chunk_of, chunk_of_turn, seconds, len(rows), len(set(chunk_of.values())))


TUNE_CONVERSATIONS = ("26", "30", "41")  # what defaults and fitted models may be chosen on; 42 and 43 are held out


@contextlib.contextmanager
def tune_index(name: str, settings: Settings, embedder: Embedder) -> Iterator[tuple[Conversation, BuiltIndex]]:
    """A tune conversation and its cached index with vectors, asked "a day after the talk"; closed on exit."""
    path = DEFAULT_DATA / f"{name}.json"
    conversation = load_conversation(path, None, None)
    index = build_index(conversation, DEFAULT_CACHE / cache_key(path, settings, True, None, None), settings, embedder)
    index.engine.retriever.now = last_message_time(index) + 86400.0
    try:
        yield conversation, index
    finally:
        index.engine.close()


def last_message_time(index: BuiltIndex) -> float:
    row = index.engine.catalog.db.execute("SELECT MAX(ts) FROM units").fetchone()
    return float(row[0] or 0.0)


def score_question(question: Question, unit_ids: Sequence[int], index: BuiltIndex) -> dict[str, float | None]:
    """Turn recall@k (paper definition; no evidence → 1), MRR of the first evidence turn, chunk recall@k."""
    turns = [index.turn_of[u] for u in unit_ids if u in index.turn_of]
    chunks = list(dict.fromkeys(index.chunk_of[u] for u in unit_ids if u in index.chunk_of))
    evidence = question.evidence
    scores: dict[str, float | None] = {}
    for k in TURN_KS:
        top = set(turns[:k])
        scores[f"R@{k}"] = sum(e in top for e in evidence) / len(evidence) if evidence else 1.0
    for k in CHUNK_KS:
        top_chunks = set(chunks[:k])
        hit = [index.chunk_of_turn.get(e) in top_chunks for e in evidence]
        scores[f"chunk R@{k}"] = sum(hit) / len(hit) if evidence else 1.0
    sessions = {_session_of(e) for e in evidence}
    scores["session R@10"] = float(any(_session_of(t) in sessions for t in turns[:10])) if evidence else 1.0
    first = next((i for i, t in enumerate(turns[: max(TURN_KS)], 1) if t in evidence), None)
    scores["MRR"] = (1.0 / first if first else 0.0) if evidence else None
    return scores


def _session_of(dia_id: str) -> str:
    """D3:5 → D3 (the LoCoMo session a turn belongs to)."""
    return dia_id.partition(":")[0]


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean of each metric over the rows (MRR over questions with evidence), as percentages except MRR."""
    if not rows:
        return {"questions": 0}
    out: dict[str, Any] = {"questions": len(rows)}
    for key in rows[0]["scores"]:
        values = [r["scores"][key] for r in rows if r["scores"][key] is not None]
        mean = sum(values) / len(values) if values else 0.0
        out[key] = round(mean, 4) if key == "MRR" else round(100 * mean, 2)
    return out


def evaluate(
    paths: Sequence[Path],
    runs: Sequence[str] = tuple(RUNS),
    overrides: dict[str, Any] | None = None,
    groups: dict[str, list[str]] | None = None,
    max_sessions: int | None = None,
    max_questions: int | None = None,
    embedder: Embedder | None = None,
    progress: bool = False,
    variants: dict[str, dict[str, Any]] | None = None,
    cache_dir: Path | None = None,
) -> dict[str, Any]:
    """Index each conversation in its own temporary index, rank every question in every run, score, summarise.

    `cache_dir` keeps each conversation's index between runs (keyed by data, chunking and model; see cache_key).
    `variants` name extra search settings (on top of `overrides`) tried on the same indexes: run "hybrid-weighted"
    under variant "w06" is reported as "hybrid-weighted w06". Only search settings can vary without reindexing.
    """
    settings = bench_settings(overrides)
    searches = search_variants(overrides, variants)
    labels = {f"{run}{suffix}": (run, search) for suffix, search in searches.items() for run in runs}
    needs_vectors = any(RUNS[r][0] != "keyword" for r in runs)
    if embedder is None and needs_vectors:
        embedder = load_shared_embedder(settings)
    rows: dict[str, list[dict[str, Any]]] = {label: [] for label in labels}
    evidence = EvidenceCounts()
    conversations: list[dict[str, Any]] = []
    query_seconds: dict[str, float] = {label: 0.0 for label in labels}
    for path in paths:
        conversation = load_conversation(path, max_sessions, max_questions)
        evidence.add(conversation.evidence)
        with contextlib.ExitStack() as stack:
            if cache_dir is not None:
                tmp = str(cache_dir / cache_key(path, settings, needs_vectors, max_sessions, max_questions))
            else:
                tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix=f"locomo-{conversation.name}-"))
            index = build_index(conversation, Path(tmp), settings, embedder if needs_vectors else None)
            index.engine.retriever.now = last_message_time(index) + 86400.0  # questions are asked after the talk
            try:
                for label, (run, search) in labels.items():
                    mode, fusion = RUNS[run]
                    index.engine.settings.search = search
                    started = time.perf_counter()
                    for question in conversation.questions:
                        ranking = index.engine.rank(question.text, mode=mode, fusion=fusion or None, limit=max(TURN_KS))
                        unit_ids = [h.unit_id for h in ranking.hits]
                        scores = score_question(question, unit_ids, index)
                        # what a user sees: only hits at or above minScore (nothing at all = the question abstained)
                        hits = ranking.hits
                        choice = choose(
                            hits,
                            [h.unit_id for h in hits],
                            max(TURN_KS),
                            search.min_score,
                            calibrated=ranking.calibrated,
                        )
                        shown = [h.unit_id for h in choice.shown]
                        scores["R@10 shown"] = score_question(question, shown, index)["R@10"]
                        scores["shown"] = float(len(shown))
                        # the cut this replaced (hits under 60 % of the best score dropped), for comparison
                        floor = 0.6 * max((h.score for h in hits[:10]), default=0.0)
                        cut = [h.unit_id for h in hits if choice.answered and h.score >= floor][: max(TURN_KS)]
                        scores["R@10 shown 60% cut"] = score_question(question, cut, index)["R@10"]
                        scores["shown 60% cut"] = float(len(cut))
                        scores["answered"] = float(bool(shown))
                        rows[label].append(
                            {"conversation": conversation.name, "category": question.category, "scores": scores}
                        )
                    query_seconds[label] += time.perf_counter() - started
            finally:
                index.engine.close()
        conversations.append(
            {
                "name": conversation.name,
                "sessions": len(conversation.sessions),
                "turns": sum(len(s.turns) for s in conversation.sessions),
                "units": index.units,
                "chunks": index.chunks,
                "questions": len(conversation.questions),
                "indexSeconds": round(index.seconds, 2),
            }
        )
        if progress:
            print(f"  {conversation.name}: {conversations[-1]}", file=sys.stderr)
    names = [c["name"] for c in conversations]
    groups = {g: [n for n in members if n in names] for g, members in (groups or {}).items()}
    results: dict[str, Any] = {}
    for label, run_rows in rows.items():
        run, search = labels[label]
        results[label] = {
            "mode": RUNS[run][0],
            "fusion": RUNS[run][1],
            "search": vars(search),
            "all": summarise(run_rows),
            "byCategory": {
                f"{c} {CATEGORIES[c]}": summarise([r for r in run_rows if r["category"] == c]) for c in CATEGORIES
            },
            "byConversation": {n: summarise([r for r in run_rows if r["conversation"] == n]) for n in names},
            "groups": {g: summarise([r for r in run_rows if r["conversation"] in m]) for g, m in groups.items() if m},
            "msPerQuery": round(1000 * query_seconds[label] / max(1, len(run_rows)), 2),
        }
    return {
        "benchmark": "locomo",
        "reference": {"name": "LoCoMo paper Table 3, DRAGON, turn units, all categories", **REFERENCE},
        "dataset": {
            "files": [str(p) for p in paths],
            "conversations": conversations,
            "questions": sum(c["questions"] for c in conversations),
            "evidenceIds": {
                "clean": evidence.clean,
                "repaired": evidence.repaired,
                "skipped": evidence.skipped,
                "unknownTurn": evidence.unknown,
                "examples": evidence.examples[:10],
            },
            "imageCaptions": "appended to the turn text as '[shares a photo of <blip_caption>]'",
        },
        "settings": {
            "overrides": overrides or {},
            "variants": variants or {},
            "search": vars(settings.search),
            "chunking": vars(settings.chunking),
        },
        "runs": results,
        "machine": machine_info(),
    }


def format_table(report: dict[str, Any]) -> str:
    ref = report["reference"]
    turn_keys = [f"R@{k}" for k in TURN_KS]
    chunk_keys = [f"chunk R@{k}" for k in CHUNK_KS]
    header = ["run", *turn_keys, "MRR", "session R@10", "R@10 shown", "answered", *chunk_keys, "ms/q"]
    lines = [
        f"LoCoMo: {report['dataset']['questions']} questions, "
        f"{len(report['dataset']['conversations'])} conversations; turn-level recall (%) of evidence turns",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for run, result in report["runs"].items():
        a = result["all"]
        cells = [run, *(f"{a[k]:.1f}" for k in turn_keys), f"{a['MRR']:.3f}", f"{a['session R@10']:.1f}"]
        cells += [f"{a['R@10 shown']:.1f}", f"{a['answered']:.1f}"]
        cells += [f"{a[k]:.1f}" for k in chunk_keys]
        lines.append("| " + " | ".join([*cells, f"{result['msPerQuery']:.1f}"]) + " |")
    ref_cells = ["DRAGON (paper)", *(f"{ref[k]:.1f}" for k in turn_keys), "", "", "", "", *("" for _ in chunk_keys), ""]
    lines.append("| " + " | ".join(ref_cells) + " |")
    for section, key in (("by category", "byCategory"), ("by conversation", "byConversation"), ("groups", "groups")):
        names = next(iter(report["runs"].values()))[key].keys() if report["runs"] else []
        if not names:
            continue
        lines += ["", f"{section}: R@5 / R@10 / MRR  (questions)", "| run | " + " | ".join(names) + " |"]
        lines.append("|" + "---|" * (len(names) + 1))
        for run, result in report["runs"].items():
            cells = []
            for name in names:
                s = result[key][name]
                cells.append(
                    f"{s['R@5']:.1f} / {s['R@10']:.1f} / {s['MRR']:.2f} ({s['questions']})" if s["questions"] else "-"
                )
            lines.append(f"| {run} | " + " | ".join(cells) + " |")
    ev = report["dataset"]["evidenceIds"]
    lines += [
        "",
        f"evidence ids: {ev['clean']} clean, {ev['repaired']} repaired, {ev['skipped']} skipped, "
        f"{ev['unknownTurn']} naming no turn {ev['examples']}",
    ]
    return "\n".join(lines)


def parse_groups(text: str) -> dict[str, list[str]]:
    """Named groups: `tune=26,30,41;held-out=42,43` → {"tune": [...], "held-out": [...]}."""
    groups: dict[str, list[str]] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        name, _, members = part.partition("=")
        groups[name.strip()] = [m.strip() for m in members.split(",") if m.strip()]
    return groups


def parse_overrides(pairs: Sequence[str]) -> dict[str, Any]:
    """["search.vectorWeight=0.5", ...] → {"search.vectorWeight": 0.5}; values are JSON when they parse as JSON."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        try:
            out[key.strip()] = json.loads(value)
        except ValueError:
            out[key.strip()] = value
    return out


def parse_variants(specs: Sequence[str]) -> dict[str, dict[str, Any]]:
    """["w06:search.vectorWeight=0.6,search.textWeight=0.4"] → {"w06": {"search.vectorWeight": 0.6, ...}}."""
    variants: dict[str, dict[str, Any]] = {}
    for spec in specs:
        name, _, pairs = spec.partition(":")
        variants[name.strip()] = parse_overrides([p for p in pairs.split(",") if p.strip()])
    return variants


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="*", type=Path, help=f"LoCoMo JSON files (default {DEFAULT_DATA}/*.json)")
    parser.add_argument("--runs", default=",".join(RUNS), help=f"comma-separated, of {', '.join(RUNS)}")
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a setting, e.g. search.textWeight=0.4"
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME:KEY=VALUE[,KEY=VALUE]",
        help="also rank with these search settings on the same indexes, e.g. nb0:search.neighborWeight=0",
    )
    parser.add_argument("--groups", default="tune=26,30,41;held-out=42,43", help="named conversation groups to report")
    parser.add_argument("--limit-conversations", type=int, default=None)
    parser.add_argument("--max-sessions", type=int, default=None, help="keep the first N sessions of each conversation")
    parser.add_argument("--max-questions", type=int, default=None, help="per conversation")
    parser.add_argument("--json", action="store_true", help="print the full report as JSON")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=DEFAULT_CACHE,
        help=f"keep the embedded indexes here between runs (default {DEFAULT_CACHE})",
    )
    parser.add_argument("--no-cache", action="store_true", help="index into temporary folders")
    args = parser.parse_args(argv)
    files = list(args.files) or sorted(DEFAULT_DATA.glob("*.json"))
    if not files:
        parser.error(f"no LoCoMo files given and none at {DEFAULT_DATA}")
    if args.limit_conversations is not None:
        files = files[: args.limit_conversations]
    runs = [r.strip() for r in args.runs.split(",") if r.strip()]
    unknown = [r for r in runs if r not in RUNS]
    if unknown:
        parser.error(f"unknown runs {unknown}; choose from {list(RUNS)}")
    report = evaluate(
        files,
        runs,
        parse_overrides(args.set),
        parse_groups(args.groups),
        args.max_sessions,
        args.max_questions,
        progress=not args.json,
        variants=parse_variants(args.variant),
        cache_dir=None if args.no_cache else args.cache_dir,
    )
    print(json.dumps(report, indent=2) if args.json else format_table(report))
    return report


if __name__ == "__main__":
    main()
