"""Error questions on real transcripts: does `memlens fixes` (Engine.fixes) find where an error happened and what
fixed it?

Each question in bench/data/error_questions.json is a pasted error line that lives only in a tool's output, or a
"how did we fix …" question, labelled with the tool result(s) holding the error and the messages after it that fixed
it ("<path under fixtures/transcripts>#<messageId>", as bench/transcripts.py names messages). Scored on the answer's
first entry: the right session (one of the labelled errors' sessions), the error itself (its tool result), and the
fix within the first three messages after it. Also reported: whether a plain `memlens search` of the question shows
the error's tool result first. The `note` questions are errors only a memory note of bench/data/error_notes (the
index's workspace) quotes with its fix: the first fix must be that note. Split by session into "tune" (tune on it)
and "heldout" (only report it). And the `absent` errors, which no transcript holds: the share `memlens fixes`
answers with nothing. And prose that is no error at all, pasted into `fixes`: the absent-topic questions of
bench/data/absent_questions.json (no shared transcript holds their topics), the share answered with nothing in each
of their halves (tune / heldout: only reported).

    python -m bench.errors [--json] [--modes keyword,hybrid] [--as-pasted] [--as FORM] [--one-line]

`--as-pasted` asks each pasted error (and each absent one) as a terminal shows a logged line: in colour, after a
logger's time stamp of a day no session was written on. `--as` asks them in another form a developer pastes: `logged`
(a log line's stamp, level, logger and request id before it), `npm` (inside npm's report of a failed script),
`trace` (as the message of a 20-frame stack trace from someone else's machine, each error in the next of eight
languages' trace formats: the frames are made up, as a user's own code is in no transcript), `docker` (in BuildKit's
report of a failed `RUN` step), `terraform` (in Terraform's diagnostic box, after `Error: `), `ci` (in a GitHub Actions
job's log, each line after its runner's stamp, `##[error]` after it), `java-cause` (as the `Caused by:` of a Java
exception chain). `--one-line` joins each
question's lines with spaces, as VS Code's Search Memory box does with a paste.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import re
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import load_shared_embedder, machine_info
from bench.locomo import bench_settings
from bench.transcripts import TRANSCRIPTS, Corpus, message_key, open_corpus

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "bench" / "data" / "error_questions.json"
NOTES = REPO / "bench" / "data" / "error_notes"  # the workspace's memory notes: the `note` questions' answers
ABSENT_PROSE = REPO / "bench" / "data" / "absent_questions.json"  # bench.absent's second set, in the same halves
SPLITS = ("tune", "heldout")
FIX_WINDOW = 3  # the fix must be among this many messages after the error
TARGETS = {"session first": 0.90, "fix in first 3": 0.70}
LOG_STAMP = "2026-03-04T10:00:01.123Z"  # a day no shared transcript was written on
RED, RESET = "\x1b[31m", "\x1b[0m"


def as_pasted(question: str) -> str:
    """`question` as a terminal shows a logged line: a time stamp before it, the whole in colour."""
    return f"{RED}{LOG_STAMP} {question}{RESET}"


def as_logged(question: str, index: int) -> str:
    """`question` as a logger writes it: a stamp, a level, the logger's name and a request's id before it."""
    return f"2026-03-04 10:00:01,123 ERROR [app.worker] request_id=7f3c2a1e-9b4d-4c1a-8e2f-{index:012x} {question}"


def in_npm_report(question: str, index: int) -> str:
    """`question` inside npm's report of the failed script that printed it."""
    lines = ["code 1", "path /Users/bob/app", "command failed", f"command sh -c node scripts/task{index}.js"]
    lines += [*question.splitlines(), "A complete log of this run can be found in:"]
    lines.append(f"    /Users/bob/.npm/_logs/2026-03-04T10_00_01_123Z-debug-{index}.log")
    return "\n".join(f"npm ERR! {line}" for line in lines)


FRAMES = 20


def in_trace(question: str, index: int) -> str:
    """`question` as the message of a stack trace of FRAMES made-up frames, in the trace format of one of eight
    languages (by `index`), as it runs on someone else's machine."""
    frames = range(FRAMES)
    home = "/Users/bob/work"
    language = index % 8
    if language == 0:  # Python
        lines = ["Traceback (most recent call last):"]
        for i in frames:
            lines += [f'  File "{home}/app/mod{i}.py", line {i + 1}, in step_{i}', f"    step_{i + 1}(job)"]
        return "\n".join([*lines, question])
    if language == 1:  # JavaScript
        return "\n".join([question, *(f"    at step{i} ({home}/app/src/mod{i}.js:{i + 1}:5)" for i in frames)])
    if language == 2:  # Java
        return "\n".join([question, *(f"\tat com.acme.app.Mod{i}.step{i}(Mod{i}.java:{i + 1})" for i in frames)])
    if language == 3:  # Go
        lines = [f"panic: {question}", "", "goroutine 1 [running]:"]
        for i in frames:
            lines += [f"main.step{i}(0xc0000{i:04x}, 0x3)", f"\t{home}/app/mod{i}.go:{i + 1} +0x1d"]
        return "\n".join([*lines, "exit status 2"])
    if language == 4:  # Rust
        lines = ["thread 'main' panicked at src/main.rs:4:5:", question, "stack backtrace:"]
        for i in frames:
            lines += [f"  {i:>2}: app::mod{i}::step_{i}", f"             at {home}/app/src/mod{i}.rs:{i + 1}:5"]
        return "\n".join(lines)
    if language == 5:  # C#
        return "\n".join(
            [question, *(f"   at Acme.App.Mod{i}.Step{i}(Job job) in C:\\src\\Mod{i}.cs:line {i + 1}" for i in frames)]
        )
    if language == 6:  # Ruby
        return "\n".join(
            [
                f"{home}/app/mod0.rb:1:in `step_0': {question}",
                *(f"\tfrom {home}/app/mod{i}.rb:{i + 1}:in `step_{i}'" for i in frames if i),
            ]
        )
    return "\n".join(
        [question, "stacktrace:", *(f"  (app 0.1.0) lib/app/mod{i}.ex:{i + 1}: App.Mod{i}.step/2" for i in frames)]
    )


def in_docker_build(question: str, index: int) -> str:
    """`question` as BuildKit reports a failed `RUN` step of `docker build`: the step, its output's lines after their
    seconds, the Dockerfile's lines around it and the `failed to solve` line."""
    step = f"RUN ./scripts/task{index}.sh"
    lines = [f" => ERROR [build 4/6] {step}{' ' * 30}12.3s", "------", f" > [build 4/6] {step}:"]
    lines += [f"12.{31 + i} {line}" for i, line in enumerate(question.splitlines())]
    lines += ["------", "Dockerfile:14", "--------------------", "  12 |     COPY . ."]
    lines += ["  13 |     RUN ./scripts/deps.sh", f"  14 | >>> {step}", "  15 |     ", "--------------------"]
    process = f'process "/bin/sh -c ./scripts/task{index}.sh"'
    lines.append(f"ERROR: failed to solve: {process} did not complete successfully: exit code: 1")
    return "\n".join(lines)


def in_terraform_box(question: str, index: int) -> str:
    """`question` as Terraform prints a diagnostic: in its box (`╷ │ ╵`), after `Error: `, with the resource and the
    configuration's line it came from."""
    lines = ["╷", *(f"│ Error: {line}" if not i else f"│ {line}" for i, line in enumerate(question.splitlines()))]
    resource = f'resource "aws_lambda_function" "task{index}"'
    lines += ["│ ", f"│   with module.app.aws_lambda_function.task{index},"]
    lines += [
        f"│   on modules/app/main.tf line {index + 12}, in {resource}:",
        f"│   {index + 12}: {resource} {{",
        "│ ",
        "╵",
    ]
    return "\n".join(lines)


def in_ci_log(question: str, index: int) -> str:
    """`question` as a GitHub Actions job's log shows it: every line after its runner's time stamp, the step's
    command in a group, the runner's `##[error]` line after it."""
    stamp = "2026-03-04T10:00:{:02d}.{:07d}Z"
    lines = [f"##[group]Run ./scripts/task{index}.sh", f"./scripts/task{index}.sh", "shell: /usr/bin/bash -e {0}"]
    lines += ["##[endgroup]", *question.splitlines(), "##[error]Process completed with exit code 1."]
    return "\n".join(f"{stamp.format(i, 1234567 + i)} {line}" for i, line in enumerate(lines))


def in_java_cause(question: str, index: int) -> str:
    """`question` as the cause in a Java exception chain: a made-up outer exception and frames, then `Caused by: ` and
    the error, its frames and Java's `... n more`."""
    frames = [f"\tat com.acme.app.Mod{i}.step{i}(Mod{i}.java:{i + 1})" for i in range(8)]
    outer = f'Exception in thread "main" java.lang.IllegalStateException: task {index} failed'
    return "\n".join([outer, *frames, f"Caused by: {question}", *frames[:3], "\t... 5 more"])


FORMS = {
    "logged": as_logged,
    "npm": in_npm_report,
    "trace": in_trace,
    "docker": in_docker_build,
    "terraform": in_terraform_box,
    "ci": in_ci_log,
    "java-cause": in_java_cause,
}


def asked_as(question: str, index: int, *, form: str | None, one_line: bool) -> str:
    """`question` in `form` (FORMS; None: as written), its lines joined with spaces when `one_line`."""
    asked = FORMS[form](question, index) if form else question
    return " ".join(asked.splitlines()) if one_line else asked


def load_questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    questions: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["questions"]
    return questions


def load_absent(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    """Pasted errors no shared transcript holds (their `check` words found nowhere): the answer should be nothing."""
    absent: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8")).get("absent", [])
    return absent


def load_absent_prose(path: Path = ABSENT_PROSE) -> list[dict[str, Any]]:
    """Questions in prose about topics no shared transcript holds ("How did we shard the Meilisearch indexes …?"),
    each with its `split`: asked of `fixes`, they are no error, and the answer should be nothing."""
    rows: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["questions"]
    return [{"question": row["q"], "check": row["check"], "split": row["split"]} for row in rows]


def silent_by_split(prose: Sequence[dict[str, Any]], corpus: Corpus) -> dict[str, dict[str, Any]]:
    """For each half of `prose`: its questions, the share `memlens fixes` answers with nothing, and those it
    answered."""
    out: dict[str, dict[str, Any]] = {}
    for split in SPLITS:
        chosen = [item for item in prose if item["split"] == split]
        silent, answered = silent_share(chosen, corpus)
        out[split] = {"questions": len(chosen), "silent": silent, "answered": answered}
    return out


def present_checks(
    absent: Sequence[dict[str, Any]], root: Path = TRANSCRIPTS, *, whole_words: bool = False
) -> list[str]:
    """The `check` words of the absent items that some transcript does hold after all (should be none): anywhere
    in a text, or with `whole_words` as whole words (as bench.absent checks its topics: "consul" is not in
    "consultant")."""
    texts = [f.read_text(encoding="utf-8", errors="replace").lower() for f in root.rglob("*") if f.is_file()]

    def held(word: str, text: str) -> bool:
        if whole_words:
            return re.search(r"\b" + re.escape(word.lower()) + r"\b", text) is not None
        return word.lower() in text

    return [word for item in absent for word in item["check"] if any(held(word, text) for text in texts)]


def silent_share(absent: Sequence[dict[str, Any]], corpus: Corpus) -> tuple[float, list[str]]:
    """The share of the absent errors `memlens fixes` answers with nothing, and those it answered."""
    answered = [item["question"] for item in absent if corpus.engine.fixes(item["question"])["fixes"]]
    return round(100 * (len(absent) - len(answered)) / max(1, len(absent)), 1), answered


def _session_of(key: str, corpus: Corpus) -> str | None:
    """The session key of a labelled message (None when the index does not hold it)."""
    for unit_id, unit_key in corpus.key_of_unit.items():
        if unit_key == key:
            row = corpus.engine.catalog.units_by_id([unit_id]).get(unit_id)
            return None if row is None else str(row["session_key"])
    return None


def score_note_question(item: dict[str, Any], corpus: Corpus, mode: str) -> dict[str, float]:
    """A `note` question: its answer is the note that quotes the error and says the fix (`notes`: relPath:line), so
    the first fix must be that note (the right place, the error and its fix in one); a search's first hit must be
    in that note's file."""
    answer = corpus.engine.fixes(item["question"])
    first = answer["fixes"][0] if answer["fixes"] else None
    found = first is not None and first.get("source") == "note"
    right = found and f"{first.get('relPath')}:{first.get('lineStart')}" in item["notes"]  # type: ignore[union-attr]
    search = corpus.engine.search(item["question"], mode=mode, min_score=0.0)["results"]
    files = {note.rsplit(":", 1)[0] for note in item["notes"]}
    in_file = bool(search) and search[0].get("relPath") in files
    shown = corpus.engine.search(item["question"], mode=mode)["results"]
    return {
        "session first": float(right),
        "error first": float(right),
        "fix in first 3": float(right),
        "search: error first": float(in_file),
        "search: session first": float(in_file),
        "search: error shown": float(any(hit.get("relPath") in files for hit in shown)),
    }


def score_question(item: dict[str, Any], corpus: Corpus, mode: str) -> dict[str, float]:
    if item.get("notes"):
        return score_note_question(item, corpus, mode)
    root = TRANSCRIPTS.resolve()
    sessions = {_session_of(key, corpus) for key in item["errors"]}
    answer = corpus.engine.fixes(item["question"])
    first = answer["fixes"][0] if answer["fixes"] else None
    right_session = first is not None and first["sessionKey"] in sessions
    error_key = message_key(first["path"], first["messageId"], root) if first else None
    after = [message_key(first["path"], m["messageId"], root) for m in first["after"][:FIX_WINDOW]] if first else []
    search = corpus.engine.search(item["question"], mode=mode, min_score=0.0)["results"]
    top = (
        message_key(search[0]["path"], str(search[0]["messageId"]), root)
        if search and search[0].get("messageId")
        else None
    )
    shown = corpus.engine.search(item["question"], mode=mode)["results"]  # at the default floor, as a user sees it
    shown_keys = {message_key(hit["path"], str(hit["messageId"]), root) for hit in shown if hit.get("messageId")}
    return {
        "session first": float(right_session),
        "error first": float(error_key in item["errors"]),
        "fix in first 3": float(right_session and any(key in item["fixes"] for key in after)),
        "search: error first": float(top in item["errors"]),
        "search: session first": float(bool(search) and search[0].get("sessionKey") in sessions),
        "search: error shown": float(bool(shown_keys & set(item["errors"]))),
    }


def evaluate(questions: Sequence[dict[str, Any]], corpus: Corpus, mode: str) -> dict[str, Any]:
    rows = [{"id": q["id"], "split": q["split"], "kind": q["kind"], "scores": score_question(q, corpus, mode)}
            for q in questions]  # fmt: skip
    out: dict[str, Any] = {}
    for split in SPLITS:
        chosen = [r for r in rows if r["split"] == split]
        out[split] = {"questions": len(chosen)} | {
            key: round(100 * sum(r["scores"][key] for r in chosen) / max(1, len(chosen)), 1)
            for key in rows[0]["scores"]
        }
    out["misses"] = [
        {"id": r["id"], "split": r["split"], **{k: v for k, v in r["scores"].items() if not v}}
        for r in rows
        if not (r["scores"]["session first"] and r["scores"]["fix in first 3"] and r["scores"]["search: error shown"])
    ]
    return out


def format_report(report: dict[str, Any]) -> str:
    lines = [
        f"{report['questions']} error questions; targets: session first ≥ 90 %, fix in first 3 ≥ 70 %",
        "",
        "| mode | split | questions | session first | error first | fix in first 3 | search: error first "
        "| search: session first | search: error shown |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    absent = report.get("absent")
    for mode, run in report["runs"].items():
        for split in SPLITS:
            s = run[split]
            cells = [mode, split, s["questions"], s["session first"], s["error first"], s["fix in first 3"]]
            shown = [*cells, s["search: error first"], s["search: session first"], s["search: error shown"]]
            lines.append("| " + " | ".join(str(c) for c in shown) + " |")
    for mode, run in report["runs"].items():
        for miss in run["misses"]:
            lines.append(f"  {mode} miss {miss}")
    if absent:
        lines.append(f"\n{absent['questions']} absent errors (check words present in the data: {absent['present']})")
        for mode, run in report["runs"].items():
            lines.append(
                f"  {mode}: `fixes` answers nothing for {run['absentSilent']} %; answered: {run['absentAnswered']}"
            )
    prose = report.get("absentProse")
    if prose:
        lines.append(f"\nabsent-topic questions in prose (check words present in the data: {prose['present']})")
        for mode, run in report["runs"].items():
            for split in SPLITS:
                half = run["absentProse"][split]
                lines.append(
                    f"  {mode}, {split} ({half['questions']}): `fixes` answers nothing for {half['silent']} %; "
                    f"answered: {half['answered']}"
                )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the full report as JSON")
    parser.add_argument("--modes", default="keyword,hybrid", help="comma-separated: keyword, vector, hybrid")
    parser.add_argument("--as-pasted", action="store_true", help="ask pasted errors with a log stamp, in colour")
    parser.add_argument("--as", dest="form", choices=sorted(FORMS), help="ask pasted errors in this form")
    parser.add_argument("--one-line", action="store_true", help="ask pasted errors with their lines joined")
    args = parser.parse_args(argv)
    if not TRANSCRIPTS.is_dir():
        raise SystemExit(f"the shared transcripts are not at {TRANSCRIPTS}")
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    questions = load_questions()
    absent = load_absent()
    prose = load_absent_prose()
    if args.as_pasted:
        questions = [q | {"question": as_pasted(q["question"])} if q["kind"] == "pasted" else q for q in questions]
        absent = [a | {"question": as_pasted(a["question"])} for a in absent]
    if args.form or args.one_line:
        questions = [
            q | {"question": asked_as(q["question"], index, form=args.form, one_line=args.one_line)}
            if q["kind"] == "pasted"
            else q
            for index, q in enumerate(questions)
        ]
        absent = [
            a | {"question": asked_as(a["question"], index, form=args.form, one_line=args.one_line)}
            for index, a in enumerate(absent)
        ]
    embedder = load_shared_embedder(bench_settings({})) if modes != ["keyword"] else None
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))  # an index of this code's own
        shutil.copytree(NOTES, folder / "workspace")  # open_corpus indexes it as the workspace
        corpus = open_corpus(root=TRANSCRIPTS, index_dir=folder, embedder=embedder)
        stack.callback(corpus.engine.close)
        known = set(corpus.key_of_unit.values())  # tool results too: they are what the questions are about
        unknown = [k for q in questions for k in q["errors"] + q["fixes"] if k not in known]
        if unknown:
            raise SystemExit(f"the question set names messages the index does not hold: {unknown}")
        runs = {}
        own = corpus.engine.settings.search
        for mode in modes:
            corpus.engine.settings.search = dataclasses.replace(own, mode=mode)
            runs[mode] = evaluate(questions, corpus, mode)
            runs[mode]["absentSilent"], runs[mode]["absentAnswered"] = silent_share(absent, corpus)
            runs[mode]["absentProse"] = silent_by_split(prose, corpus)
        corpus.engine.settings.search = own
    report = {
        "benchmark": "errors",
        "machine": machine_info(),
        "questions": len(questions),
        "absent": {"questions": len(absent), "present": present_checks(absent)},
        "absentProse": {"questions": len(prose), "present": present_checks(prose, whole_words=True)},
        "runs": runs,
    }
    print(json.dumps(report, indent=1) if args.json else format_report(report))
    return report


if __name__ == "__main__":
    main()
