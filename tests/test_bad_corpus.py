"""End to end: the generated bad-input corpus (tests/badcorpus) indexed through the real CLI into ONE index.

0 crashes, 0 good messages lost (issue 9, item 10). The corpus holds one file per (format, bad-input case) for
Claude Code, Codex CLI, OpenClaw, SpecStory and memory notes, each with good messages before and after the bad
input; every good message carries a unique marker word that a keyword search must find.

Rules chosen where the expectation is debatable (each case also states its rule in `Case.rule`):

- A message whose only fault is its timestamp (1e400, NaN, ±Infinity, 400 digits, -1e20, 1e17, year 9999 at
  -12:00, year 0001 at +14:00, "", a dict) is a good message: its text is indexed, its time unknown or clamped.
- Lone surrogates: the text around a `\\ud800` escape is kept; a line whose *id* holds one may be skipped, as long
  as the messages before it in the chain are not lost. A session whose cwd or id holds one is still indexed.
- A line that is not JSON (truncated, binary garbage, nested deeper than the reader takes) is a bad line: counted
  in `badLines`, and it never hides another line — in Claude Code and OpenClaw chains, the messages before a bad
  line or a dangling parent link stay indexed.
- The content of the bad line itself (`om…` markers: content as a nested list, `type` as a dict, `message` as a
  list, a number as `role`, a truncated line) may be indexed or not.
- Codex `event_msg` user/agent messages count when no `response_item` message carries them, and a message that
  appears as both is indexed once. A SpecStory sidechain block is a message of its own.
- BOM-prefixed and UTF-16 (with BOM) files are decoded; a leading BOM is not part of the first JSONL line.
- Invalid bytes inside a JSON string (NUL, 0xFF, overlong UTF-8, encoded or escaped lone surrogates, a stray CR)
  never cost the message: they become U+FFFD, counted in `stats --json` `replaced` with the file in `fileErrors`.
- A complete last line without a newline is indexed once its file has been quiet briefly (the corpus dates those
  files an hour back); a last line cut mid-write is then a bad line, and the lines before it are indexed.
- Symlinks never lead out of the workspace or the transcript folder (`fm…`/`fx…` markers must not be found).
- An unreadable file or folder (mode 000) is skipped and reported in `stats --json` `fileErrors`; running as root,
  chmod does not block reads, so that expectation is skipped.
- Exit codes follow ripgrep (issue 9, item 9): `search` exits 0 with results, 1 without; everything else 0 here.
  Whatever the code, stderr never holds a Python traceback.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# the repository root, so the corpus helpers have one module name here, in bench/badcorpus.py and for mypy
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.badcorpus.check import (  # noqa: E402
    Outcome,
    Run,
    check_in_process,
    cli,
    index_and_check,
    location_flags,
    memlens_bin,
    remove_case_files,
)
from tests.badcorpus.generator import Corpus, bad_settings_cases, write_corpus  # noqa: E402

ALLOWED_CODES = {"index": {0}, "reindex": {0}, "stats": {0}, "search": {0, 1}, "history": {0}}
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
EMBEDDING_SLUGS = {
    "surrogate-text",
    "surrogate-cwd",
    "nul-bytes",
    "invalid-utf8",
    "surrogate-bytes",
    "utf16",
    "sidechain",
    "mixed-odd-bytes",
}  # odd texts only: the whole corpus takes over a minute to embed on 2 shared cores

pytestmark = [
    pytest.mark.skipif(not memlens_bin().exists(), reason="the memlens console script is not installed"),
    pytest.mark.slow,  # the CLI run over every bad case
]


def _crash_report(runs: list[Run]) -> list[str]:
    return [f"`{r.name}` exit {r.code}: {r.traceback_tail() or r.stderr.strip()[-300:]}" for r in runs]


def _restore_modes(corpus: Corpus) -> None:
    """Let pytest clean the tmp folder up when not running as root."""
    for path in (corpus.workspace / "memory" / "private",):
        if path.exists():
            path.chmod(0o755)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    built = write_corpus(tmp_path_factory.mktemp("badcorpus"))
    yield built
    _restore_modes(built)


@pytest.fixture(scope="module")
def outcome(corpus: Corpus) -> Outcome:
    return index_and_check(corpus, corpus.root / "index")


def test_corpus_covers_every_format_and_case(corpus: Corpus) -> None:
    by_format = corpus.by_format()
    assert all(by_format[f] for f in by_format), {f: len(c) for f, c in by_format.items()}
    slugs = {c.slug for c in corpus.cases}
    for slug in ("ts-1e400", "ts-nan", "surrogate-text", "deep-nesting", "huge-line", "dangling-parent", "utf16"):
        assert slug in slugs
    markers = [m for c in corpus.cases for m in (*c.expected, *c.optional, *c.forbidden, *c.unreadable)]
    assert len(markers) == len(set(markers)), "markers must be unique"
    assert all(m.isalnum() and m.islower() for m in markers)
    huge = corpus.case("claude-code/huge-line").files[0]
    assert huge.stat().st_size > 5_000_000


def test_cli_never_crashes(outcome: Outcome) -> None:
    """No traceback on stderr, ever; exit codes as documented."""
    crashed = _crash_report(outcome.crashed_runs())
    failed = _crash_report(outcome.failed_runs(ALLOWED_CODES))
    assert not crashed and not failed, "\n".join(crashed + failed)
    assert not outcome.errors, outcome.errors


def test_no_good_message_lost(corpus: Corpus, outcome: Outcome) -> None:
    lost = outcome.lost(corpus)
    total = sum(len(c.expected) for c in corpus.cases)
    missing = sum(len(m) for m in lost.values())
    report = "\n".join(f"  {case}: {', '.join(markers)}" for case, markers in lost.items())
    assert not lost, f"{missing} of {total} good messages lost, in {len(lost)} cases:\n{report}"


def test_symlinks_never_lead_out(corpus: Corpus, outcome: Outcome) -> None:
    assert not outcome.leaked(corpus, unreadable_too=False)


@pytest.mark.skipif(IS_ROOT, reason="running as root: chmod 000 does not block reads")
def test_unreadable_files_skipped_and_reported(corpus: Corpus, outcome: Outcome) -> None:
    assert not outcome.leaked(corpus, unreadable_too=True)
    assert outcome.stats is not None
    reported = json.dumps(outcome.stats.get("fileErrors"))
    for case_id in ("memory/unreadable-file", "memory/unreadable-folder"):
        path = corpus.case(case_id).files[0]
        shown = path if case_id.endswith("file") else path.parent
        assert str(shown.name) in reported, (case_id, outcome.stats.get("fileErrors"))


def test_messages_indexed_once_and_sidechains_apart(corpus: Corpus, outcome: Outcome) -> None:
    assert not outcome.duplicated(corpus)
    assert not outcome.joined(corpus)


def test_search_and_history_answer_for_everything_indexed(outcome: Outcome) -> None:
    """Every marker's search renders (`--json` is printable) and every session found opens in history."""
    assert not outcome.search_errors, outcome.search_errors
    assert not outcome.history_errors, outcome.history_errors
    history_runs = [r for r in outcome.runs if r.argv[1] == "history"]
    search_runs = [r for r in outcome.runs if r.argv[1] == "search"]
    assert search_runs and all(isinstance(r.json()["results"], list) for r in search_runs)
    assert history_runs and all(r.json()["messages"] for r in history_runs)


def test_stats_count_bad_lines_and_file_errors(corpus: Corpus, outcome: Outcome) -> None:
    assert outcome.stats is not None, "stats --json failed"
    assert outcome.stats["badLines"] >= corpus.min_bad_lines()
    assert outcome.stats["replaced"] >= corpus.min_replaced() > 0
    listed = outcome.stats["fileErrors"]
    replaced = {e["path"]: e["replaced"] for e in listed if e["replaced"]}
    for case in corpus.cases:
        path = str(case.files[0]) if case.files else ""
        if case.replaced and (path in replaced or len(listed) == outcome.stats["filesWithErrors"]):  # all listed
            assert replaced.get(path, 0) >= case.replaced, (case.id, listed)
    assert outcome.stats.get("fileErrors"), "stats --json must list the files with problems (fileErrors)"


def test_index_never_bricked(tmp_path: Path) -> None:
    """Delete every bad file: stats, search --no-sync and reindex --full still work, and recover the index."""
    corpus = write_corpus(tmp_path / "c")
    index_dir = tmp_path / "index"
    flags = location_flags(corpus, index_dir)
    baselines = {c.id for c in corpus.cases if c.slug == "baseline"}
    first = cli(corpus, "index", *flags)
    removed = remove_case_files(corpus, baselines)
    keep_marker = corpus.case("claude-code/baseline").expected[0]
    gone_marker = next(c.expected[0] for c in removed if c.slug == "ts-year-9999")
    runs = [
        first,
        cli(corpus, "stats", "--json", *flags),
        cli(corpus, "search", keep_marker, "--json", "--mode", "keyword", "--no-sync", *flags),
        cli(corpus, "search", gone_marker, "--json", "--mode", "keyword", "--no-sync", *flags),
        cli(corpus, "reindex", "--full", *flags),
        cli(corpus, "stats", "--json", *flags),
        cli(corpus, "search", keep_marker, "--json", "--mode", "keyword", "--no-sync", *flags),
        cli(corpus, "search", gone_marker, "--json", "--mode", "keyword", "--no-sync", *flags),
    ]
    broken = _crash_report([r for r in runs if r.traceback_tail() or r.code not in ALLOWED_CODES[r.argv[1]]])
    assert not broken, "\n".join(broken)
    assert runs[6].json()["results"], "the clean file is found after reindex --full"
    assert not runs[7].json()["results"], "a deleted file's message is gone after reindex --full"
    outcome = Outcome()
    check_in_process(corpus, index_dir, outcome)
    assert not outcome.lost(corpus) and not outcome.errors


@pytest.mark.parametrize("name", sorted(bad_settings_cases()))
def test_bad_settings_warn_and_keep_defaults(tmp_path: Path, name: str) -> None:
    """A bad `.memlens.json` warns on stderr and keeps the defaults: no traceback, no silently skipped notes."""
    corpus = write_corpus(tmp_path / "c")
    remove_case_files(corpus, {"memory/baseline", "claude-code/baseline", "specstory/baseline"})
    (corpus.workspace / ".memlens.json").write_text(bad_settings_cases()[name])
    embeddings = name.startswith("batch-size-0")  # batchSize only matters when the model embeds
    flags = location_flags(corpus, tmp_path / "index", embeddings=embeddings)
    marker = corpus.case("memory/baseline").expected[0]
    runs = [
        cli(corpus, "index", *flags),
        cli(corpus, "search", marker, "--json", *flags, *([] if embeddings else ["--mode", "keyword"])),
    ]
    broken = _crash_report([r for r in runs if r.traceback_tail() or r.code != 0])
    assert not broken, "\n".join(broken)
    assert "warning" in runs[0].stderr.lower(), f"no warning for {name}: {runs[0].stderr!r}"
    assert runs[1].json()["results"], "memory notes are still indexed with the default chunking"


def test_embeddings_on_odd_text(tmp_path: Path) -> None:
    """The real model embeds the odd texts (surrogates, NUL, invalid UTF-8, UTF-16, sidechains) without a crash."""
    corpus = write_corpus(tmp_path / "c")
    remove_case_files(corpus, {c.id for c in corpus.cases if c.slug in EMBEDDING_SLUGS})
    index_dir = tmp_path / "index"
    flags = location_flags(corpus, index_dir, embeddings=True)
    run = cli(corpus, "index", *flags, timeout=300)
    stats = cli(corpus, "stats", "--json", *flags)
    broken = _crash_report([r for r in (run, stats) if r.traceback_tail() or r.code != 0])
    assert not broken, "\n".join(broken)
    assert stats.json()["chunksNeedingEmbeddings"] == 0, stats.json()
