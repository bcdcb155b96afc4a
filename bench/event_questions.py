"""Questions that name an event inside a longer question ("what did we change in the consumer since the refund
incident", "how did we stop the observer from piling up listeners after the goreleaser release"): found, and how
many of their answers are shown or withheld.

A question about days around an event says more than the days here: its other words ask about something done then,
so it is labelled with the messages that answer it (as bench/transcripts.py labels its questions: "<path under the
corpus>#<messageId>") and with the days the event names. bench/data/event_questions.json holds tune questions over
the tune targets of ../shared/fixtures/transcripts (bench/data/transcript_questions_tune.json, each with an event
clause whose days hold the target; the events are the ones bench/data/day_questions.json dates); `--synthetic` asks
bench/data/event_questions_synthetic.json over the committed example workspace (examples/workspace: its events'
days are stated, "The 10 Feb refund incident"), what a clone without ../shared can run. No held-out part: never tune
on bench/data/transcript_questions.json's targets.

Per question, in each mode: P@1, R@5, R@10 of what `memlens search` shows (the period answer included), the
ranking's own R@5 / R@10 (`Engine.rank`: no period answer), how many hits were shown and withheld, whether the answer
was a period, and the share of shown hits written within the event's days.

    python -m bench.event_questions [--json] [--synthetic] [--modes hybrid,keyword]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import transcripts
from bench.common import SHARED, load_shared_embedder, machine_info
from bench.transcripts import score
from memlens.engine.engine import Engine
from memlens.settings import Settings, load_workspace_file, merge

REPO = Path(__file__).resolve().parents[1]
TRANSCRIPTS = SHARED / "fixtures" / "transcripts"
QUESTIONS = REPO / "bench" / "data" / "event_questions.json"
EXAMPLE = REPO / "examples" / "workspace"
SYNTHETIC_QUESTIONS = REPO / "bench" / "data" / "event_questions_synthetic.json"
MODES = ("hybrid", "keyword")
DEPTH = 50  # messages ranked per question


def _instant(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _bounds(period: Sequence[str]) -> tuple[float, float]:
    first, last = (date.fromisoformat(d) for d in period)
    start = datetime(first.year, first.month, first.day, tzinfo=UTC).timestamp()
    return start, datetime(last.year, last.month, last.day, tzinfo=UTC).timestamp() + 86400


def _key(root: Path, path: str, message_id: str) -> str:
    return f"{Path(path).resolve().relative_to(root.resolve()).as_posix()}#{message_id}"


def _engine(root: Path, index: Path, *, synthetic: bool, embedder: object) -> Engine:
    settings = Settings()
    if synthetic:  # the example's own settings (its .memlens.json names its transcript folders)
        warnings: list[str] = []
        settings = merge(settings, load_workspace_file(root, warnings), warnings)
    settings.transcripts.agent_defaults = False
    settings.scope = "all"
    settings.display.time_zone = "UTC"
    if synthetic:
        return Engine([root], settings, index_dir=index, embedder=embedder)  # type: ignore[arg-type]
    workspace = index.parent / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    return Engine([workspace], settings, [root], index, embedder=embedder)  # type: ignore[arg-type]


def _units_of(engine: Engine, root: Path) -> dict[int, str]:
    """Each unit's message key (a message split into parts: one key for all)."""
    keys: dict[int, str] = {}
    for session in engine.catalog.all_sessions():
        for unit in engine.catalog.session_units(session["key"], after=-1, count=1 << 30, copies=True):
            keys[int(unit["id"])] = _key(root, session["path"], str(unit["message_id"]))
    return keys


def ask(engine: Engine, item: dict[str, Any], *, mode: str, root: Path, keys: dict[int, str]) -> dict[str, Any]:
    """One question in one mode: what is shown, what the ranking holds, scored against its targets."""
    engine.retriever.now = _instant(item["now"])
    response = engine.search(item["q"], mode=mode)
    shown = [_key(root, r["path"], str(r["messageId"])) for r in response["results"] if r.get("messageId")]
    ranking = engine.rank(item["q"], mode=mode, limit=DEPTH)
    ranked = list(dict.fromkeys(k for h in ranking.hits if (k := keys.get(h.unit_id)) is not None))
    scores = score(list(dict.fromkeys(shown)), item["targets"])
    ranked_scores = score(ranked, item["targets"])
    scores["ranked R@5"], scores["ranked R@10"] = ranked_scores["R@5"], ranked_scores["R@10"]
    since, until = _bounds(item["period"])
    stamps = [_instant(stamp) for r in response["results"] if (stamp := r.get("timestamp"))]
    return {
        "id": item["id"],
        "q": item["q"],
        "scores": scores,
        "shown": len(response["results"]),
        "withheld": response.get("withheld", 0),
        "targetsShown": len(set(shown) & set(item["targets"])),
        "inPeriod": sum(since <= ts < until for ts in stamps),
        "period": "period" in response,
        "top": shown[:3],
    }


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """bench.transcripts' means of the scores, and what was shown and withheld."""
    out = transcripts.summarise(rows)
    if not rows:
        return out
    shown = sum(r["shown"] for r in rows)
    out |= {
        "shown": shown,
        "withheld": sum(r["withheld"] for r in rows),
        "targetsShown": sum(r["targetsShown"] for r in rows),
        "inPeriod": round(100 * sum(r["inPeriod"] for r in rows) / shown, 1) if shown else None,
        "periodAnswers": sum(r["period"] for r in rows),
    }
    return out


def evaluate(*, synthetic: bool, modes: Sequence[str]) -> dict[str, Any]:
    questions = json.loads((SYNTHETIC_QUESTIONS if synthetic else QUESTIONS).read_text(encoding="utf-8"))["tune"]
    embedder = load_shared_embedder(Settings()) if any(m != "keyword" for m in modes) else False
    report: dict[str, Any] = {"benchmark": "event_questions", "synthetic": synthetic, "machine": machine_info()}
    with tempfile.TemporaryDirectory(prefix="memlens-events-") as tmp:
        if synthetic:  # a copy: the index lives beside nothing of the repository
            root = Path(tmp) / "workspace"
            shutil.copytree(EXAMPLE, root)
        else:
            root = TRANSCRIPTS
        wall, cpu = time.perf_counter(), time.process_time()
        engine = _engine(root, Path(tmp) / "index", synthetic=synthetic, embedder=embedder)
        try:
            engine.sync()
            keys = _units_of(engine, root)
            missing = [t for q in questions for t in q["targets"] if t not in set(keys.values())]
            if missing:
                raise SystemExit(f"unknown targets: {missing}")
            for mode in modes:
                rows = [ask(engine, q, mode=mode, root=root, keys=keys) for q in questions]
                report[mode] = {"all": summarise(rows), "questions": rows}
        finally:
            engine.close()
        report["wallSeconds"] = round(time.perf_counter() - wall, 1)
        report["cpuSeconds"] = round(time.process_time() - cpu, 1)
    report["loadavgEnd"] = machine_info()["loadavg"]
    return report


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--synthetic", action="store_true", help="the example workspace: no ../shared needed")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated, of " + ", ".join(MODES))
    args = parser.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if unknown := [m for m in modes if m not in MODES]:
        parser.error(f"unknown modes {unknown}")
    if not args.synthetic and not TRANSCRIPTS.is_dir():
        raise SystemExit(f"the shared transcripts are not at {TRANSCRIPTS} (--synthetic needs none)")
    report = evaluate(synthetic=args.synthetic, modes=modes)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        m = report["machine"]
        print(f"CPU {m['cpu']} ({m['cores']} cores), load {m['loadavg']} -> {report['loadavgEnd']}; "
              f"{report['wallSeconds']} s wall, {report['cpuSeconds']} s CPU")  # fmt: skip
        for mode in modes:
            print(f"{mode}: {report[mode]['all']}")
            for row in report[mode]["questions"]:
                s = row["scores"]
                print(f"  {row['id']} P@1 {s['P@1']:.0f} R@5 {s['R@5']:.0f} R@10 {s['R@10']:.0f} ranked R@10 "
                      f"{s['ranked R@10']:.0f} shown {row['shown']} withheld {row['withheld']} targets shown "
                      f"{row['targetsShown']} in period {row['inPeriod']} period {row['period']}: "
                      f"{row['q']}")  # fmt: skip
    return report


if __name__ == "__main__":
    main()
