"""How well redaction works: recall on the planted fake secrets, false positives and speed on real text.

Prints (1) recall per kind on ``tests/planted_secrets.py``, (2) redactions per MB on the real transcripts in
``../shared/fixtures/transcripts`` (the indexed message texts, and the raw files including tool results) and on
the LoCoMo conversations, each kind with a few samples in context so a human can judge false positives, and
(3) speed in µs per KB, per message, over whole files and on adversarial input (``tests/adversarial_text.py``: long
runs of secret prefixes that a backtracking or quadratic scan would take minutes over). With ``--code DIR`` (e.g.
an installed site-packages and a node_modules), also (4) redactions in real source code, where a secret's key is
followed by a name (``password = userPassword``), and how many of its camelCase identifiers, against random letter
strings, read as names (``values.camel_words``).

    python bench/secrets.py [--shared ../shared] [--samples 3] [--code DIR ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "server"), str(ROOT / "tests"), str(ROOT)]

from adversarial_text import ADVERSARIAL  # noqa: E402
from bench.common import cpu_model  # noqa: E402
from memlens.engine.sources import parse_file  # noqa: E402
from memlens.redaction import find_secrets, redact, redact_sequence, redact_title  # noqa: E402
from memlens.redaction.values import camel_words  # noqa: E402
from planted_secrets import NAMED, PLANTED, SPLIT, leaked, leaked_fragments  # noqa: E402


def recall() -> dict[str, Any]:
    """Each planted text redacted alone: which kinds' secrets survive."""
    missed = [p.kind for p in PLANTED if leaked(redact(p.text), [p])]
    together = leaked(redact("\n\n".join(p.text for p in PLANTED)))
    split_missed = [
        s.kind for s in SPLIT if leaked_fragments(" ".join(redact_sequence([s.first, s.second])), planted=s.halves())
    ]
    # a SpecStory title is the file name after its time stamp, hyphens read as spaces
    titles = {n.kind: n.file_stem.split("Z-", 1)[1].replace("-", " ") for n in NAMED}
    named_missed = [n.kind for n in NAMED if n.secret[-12:] in redact_title(titles[n.kind]) + redact(n.file_stem)]
    return {
        "kinds": len(PLANTED),
        "caught": len(PLANTED) - len(missed),
        "missed": missed,
        "missedWhenTogether": together,
        "splitTokens": f"{len(SPLIT) - len(split_missed)}/{len(SPLIT)}",
        "fileNamesAndTitles": f"{len(NAMED) - len(named_missed)}/{len(NAMED)}",
    }


def transcript_messages(root: Path) -> list[str]:
    """The texts memlens indexes from every transcript under ``root`` (messages, tool calls, summaries)."""
    texts: list[str] = []
    for path in sorted(root.rglob("*")):
        if path.suffix in {".jsonl", ".md"} and path.is_file():
            parsed = parse_file(path)
            if parsed is not None:
                texts.extend(record.text for record in parsed.records)
    return texts


def raw_files(root: Path) -> list[str]:
    """Every transcript file whole, tool results, images and all: a harsher false-positive test."""
    return [p.read_text("utf-8", "replace") for p in sorted(root.rglob("*")) if p.suffix in {".jsonl", ".md"}]


def locomo_turns(root: Path) -> list[str]:
    turns: list[str] = []
    for path in sorted(root.glob("*.json")):
        conversation = json.loads(path.read_text("utf-8"))
        for key, value in conversation.items():
            if key.startswith("session_") and isinstance(value, list):
                turns.extend(str(turn.get("text", "")) for turn in value if isinstance(turn, dict))
    return turns


_CODE_SUFFIXES = {".py", ".js", ".ts", ".md", ".json", ".yaml", ".yml", ".toml", ".txt", ".rst"}
_CAMEL_CASE = re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\b")  # no nested repeat: "aBBBB…B_" backtracked exponentially


def code_files(roots: list[Path], *, every: int = 3, largest: int = 400_000) -> list[str]:
    """Every ``every``-th source or text file under ``roots`` (sorted, so the sample is the same each run)."""
    paths = sorted(p for root in roots for p in root.rglob("*") if p.suffix in _CODE_SUFFIXES and p.is_file())
    texts = []
    for path in paths[::every]:
        try:
            text = path.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if len(text) <= largest:
            texts.append(text)
    return texts


def camel_case_names(texts: list[str], randoms: int = 50_000) -> dict[str, Any]:
    """Shares of the code's distinct camelCase identifiers (4-40 letters) and of random letter strings of 8-40
    characters of the same shape that ``camel_words`` takes for names: a random one taken is a secret kept."""
    names = {m.group() for text in texts for m in _CAMEL_CASE.finditer(text) if 4 <= len(m.group()) <= 40}
    rng = random.Random(1)
    letters = "abcdefghijklmnopqrstuvwxyz"
    drawn: list[str] = []
    while len(drawn) < randoms:
        value = rng.choice(letters) + "".join(rng.choice(letters + letters.upper()) for _ in range(rng.randint(7, 39)))
        if _CAMEL_CASE.fullmatch(value):
            drawn.append(value)
    short = [v for v in drawn if len(v) <= 16]
    return {
        "identifiers": len(names),
        "identifiersTakenForNames": round(100 * sum(map(camel_words, names)) / max(1, len(names)), 1),
        "randomTakenForNames": round(100 * sum(map(camel_words, drawn)) / len(drawn), 1),
        "randomUpTo16TakenForNames": round(100 * sum(map(camel_words, short)) / len(short), 1),
    }


def fired(texts: Iterable[str], samples: int) -> dict[str, Any]:
    """Redactions per MB and per kind, with ``samples`` examples of each in context."""
    texts = list(texts)
    size = sum(len(t.encode()) for t in texts)
    kinds: Counter[str] = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    for text in texts:
        for span in find_secrets(text):
            kinds[span.kind] += 1
            if len(examples[span.kind]) < samples:
                before = text[max(0, span.start - 40) : span.start]
                after = text[span.end : span.end + 20]
                examples[span.kind].append(f"{before}⟦{text[span.start : span.end][:60]}⟧{after}")
    total = sum(kinds.values())
    return {
        "texts": len(texts),
        "megabytes": round(size / 1e6, 3),
        "redactions": total,
        "perMB": round(total / (size / 1e6), 2) if size else 0.0,
        "byKind": dict(kinds.most_common()),
        "samples": dict(examples),
    }


def speed(texts: list[str], runs: int = 3) -> float:
    """Best of ``runs``: µs of ``redact`` per KB of text, one call per text."""
    size_kb = sum(len(t.encode()) for t in texts) / 1024
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        for text in texts:
            redact(text)
        best = min(best, time.perf_counter() - started)
    return round(best * 1e6 / size_kb, 1)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--code", type=Path, action="append", default=[], help="a folder of real source code")
    args = parser.parse_args(argv)
    transcripts = args.shared / "fixtures" / "transcripts"
    messages = transcript_messages(transcripts)
    files = raw_files(transcripts)
    turns = locomo_turns(args.shared / "datasets" / "locomo")
    report: dict[str, Any] = {
        "cpu": cpu_model(),
        "recall": recall(),
        "falsePositives": {
            "transcriptMessages": fired(messages, args.samples),
            "transcriptFilesRaw": fired(files, args.samples),
            "locomoTurns": fired(turns, args.samples),
        },
        "microsecondsPerKB": {
            "transcriptMessages": speed(messages),
            "transcriptFilesWhole": speed(files),
            "locomoTurns": speed(turns),
            "adversarial": speed(ADVERSARIAL, runs=1),
        },
    }
    if args.code:
        code = code_files(args.code)
        report["falsePositives"]["codeFiles"] = fired(code, args.samples)
        report["camelCase"] = camel_case_names(code)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return report
    caught = report["recall"]
    print(f"CPU: {report['cpu']}")
    print(f"recall on the planted corpus: {caught['caught']}/{caught['kinds']} kinds; missed: {caught['missed']}")
    print(
        f"tokens cut between two messages: {caught['splitTokens']}; keys in file names and titles: "
        f"{caught['fileNamesAndTitles']}"
    )
    for name, result in report["falsePositives"].items():
        print(
            f"\n{name}: {result['texts']} texts, {result['megabytes']} MB, {result['redactions']} redactions "
            f"({result['perMB']}/MB) {result['byKind']}"
        )
        for kind, examples in result["samples"].items():
            for example in examples:
                print(f"  {kind:18} {example!r}")
    print("\nµs per KB:", report["microsecondsPerKB"])
    if "camelCase" in report:
        print("camelCase names (%):", report["camelCase"])
    return report


if __name__ == "__main__":
    main()
