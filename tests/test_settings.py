"""The settings tree validated as a whole: bounds, cross-checks, trust, random input, and the CLI never crashing."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from memlens.settings import (
    RULES,
    TRUST_SETTINGS,
    Settings,
    load_workspace_file,
    merge,
    problems,
    to_wire,
    wire_name,
    workspace_trusted,
)
from memlens.settings.layers import LEAVES

MANIFEST = Path(__file__).resolve().parents[1] / "package.json"
NOTE = "# Deploys\n\nThe pgbouncer pool holds 20 connections; raise it before the launch of the new lambdas.\n"


def merged(data: Any, base: Settings | None = None, **kwargs: Any) -> tuple[Settings, list[str]]:
    warnings: list[str] = []
    return merge(base or Settings(), data, warnings, **kwargs), warnings


@pytest.mark.parametrize(
    ("data", "setting", "shown"),
    [
        ({"embedding": {"batchSize": 0}}, "memlens.embedding.batchSize", "0"),
        ({"embedding": {"maxTokens": 0}}, "memlens.embedding.maxTokens", "0"),
        ({"embedding": {"threads": -1}}, "memlens.embedding.threads", "-1"),
        ({"chunking": {"markdownMaxChars": 0}}, "memlens.chunking.markdownMaxChars", "0"),
        ({"chunking": {"maxMessages": 0}}, "memlens.chunking.maxMessages", "0"),
        ({"chunking": {"gapSeconds": math.inf}}, "memlens.chunking.gapSeconds", "inf"),
        ({"search": {"candidates": 0}}, "memlens.search.candidates", "0"),
        ({"search": {"excerptChars": 0}}, "memlens.search.excerptChars", "0"),
        ({"search": {"maxResponseChars": -5}}, "memlens.search.maxResponseChars", "-5"),
        ({"search": {"rrfK": 0}}, "memlens.search.rrfK", "0"),
        ({"search": {"rrfK": 10**400}}, "memlens.search.rrfK", "an integer of 1329 bits"),
        ({"search": {"vectorWeight": 1.5}}, "memlens.search.vectorWeight", "1.5"),
        ({"search": {"minScore": math.nan}}, "memlens.search.minScore", "nan"),
        ({"search": {"maxResults": 3.5}}, "memlens.search.maxResults", "3.5"),
        ({"search": {"maxResults": True}}, "memlens.search.maxResults", "true"),
        ({"hover": {"minScore": -0.1}}, "memlens.hover.minScore", "-0.1"),
        ({"memory": {"include": ["/etc/*"]}}, "memlens.memory.include", "'/etc/*'"),
        ({"memory": {"extraInclude": ["../other/*.md"]}}, "memlens.memory.extraInclude", "'../other/*.md'"),
        ({"indexDir": "/tmp/a\x00b"}, "memlens.indexDir", "NUL"),
        ({"search": {"mode": ["keyword"]}}, "memlens.search.mode", '["keyword"]'),
    ],
)
def test_a_bad_value_warns_and_keeps_the_default(data: dict[str, Any], setting: str, shown: str) -> None:
    result, warnings = merged(data)
    assert to_wire(result) == to_wire(Settings())
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(setting) and shown in warnings[0] and "keeping" in warnings[0], warnings[0]


def test_the_kept_value_is_named() -> None:
    _, warnings = merged({"embedding": {"batchSize": 0}})
    assert warnings == ["memlens.embedding.batchSize: 0 is outside 1..4096; keeping 32"]


def test_a_kept_empty_value_says_what_empty_stands_for() -> None:
    """The warning "keeping memlens.display.timeZone = ''" left the reader to guess what an empty zone is."""
    _, warnings = merged({"display": {"timeZone": "Mars/Olympus"}})
    assert warnings[0].endswith("keeping memlens.display.timeZone = '' (the machine's zone)"), warnings
    _, warnings = merged({"display": {"timeZone": 5}, "embedding": {"model": ["x"]}, "indexDir": 7})
    assert [w.rpartition("keeping ")[2] for w in warnings] == [
        "'' (the machine's zone)",
        "'' (the bundled all-MiniLM-L6-v2)",
        "'' (a folder per workspace in the user cache dir)",
    ], warnings
    _, warnings = merged({"display": {"timeZone": "Europe/Berlin"}}, Settings())
    assert not warnings


def test_a_misspelt_setting_names_the_one_meant_at_every_level() -> None:
    data = {
        "serch": {},
        "search": {"maxResult": 5, "min_scor": 0.1, "vectorWeight": 0.5},
        "display": {"timezone": "UTC"},
    }
    result, warnings = merged({**data, "frobnicate": 1})
    assert result.search.vector_weight == 0.5  # the known ones still apply
    assert warnings == [
        "memlens.serch: unknown setting, ignored; did you mean 'search'?",
        "memlens.search.maxResult: unknown setting, ignored; did you mean 'maxResults'?",
        "memlens.search.min_scor: unknown setting, ignored; did you mean 'minScore'?",
        "memlens.display.timezone: unknown setting, ignored; did you mean 'timeZone'?",
        "memlens.frobnicate: unknown setting, ignored",  # nothing near: no guess
    ]


def test_good_values_apply_and_whole_floats_count_as_ints() -> None:
    result, warnings = merged({"embedding": {"batchSize": 64.0, "threads": 2}, "search": {"vectorWeight": 1}})
    assert not warnings
    assert result.embedding.batch_size == 64 and isinstance(result.embedding.batch_size, int)
    assert result.search.vector_weight == 1.0 and isinstance(result.search.vector_weight, float)


def test_markdown_min_above_max_warns_instead_of_skipping_every_note() -> None:
    result, warnings = merged({"chunking": {"markdownMinChars": 900}})
    assert result.chunking.markdown_min_chars == 100 and result.chunking.markdown_max_chars == 800
    assert len(warnings) == 1
    assert (
        "memlens.chunking.markdownMinChars (900) must be less than memlens.chunking.markdownMaxChars (800)"
        in (warnings[0])
    )
    assert "keeping memlens.chunking.markdownMinChars = 100" in warnings[0]
    both, warnings = merged({"chunking": {"markdownMinChars": 900, "markdownMaxChars": 500}})
    assert (both.chunking.markdown_min_chars, both.chunking.markdown_max_chars) == (100, 800) and len(warnings) == 1
    fine, warnings = merged({"chunking": {"markdownMinChars": 900, "markdownMaxChars": 2000}})
    assert (fine.chunking.markdown_min_chars, fine.chunking.markdown_max_chars) == (900, 2000) and not warnings


def test_a_rule_broken_by_one_layer_keeps_the_layer_below() -> None:
    workspace, _ = merged({"chunking": {"markdownMaxChars": 2000}})
    editor, warnings = merged({"chunking": {"markdownMinChars": 2500}}, workspace)
    assert (editor.chunking.markdown_min_chars, editor.chunking.markdown_max_chars) == (100, 2000)
    assert len(warnings) == 1
    editor, warnings = merged({"chunking": {"markdownMinChars": 1500}}, workspace)
    assert editor.chunking.markdown_min_chars == 1500 and not warnings


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"search": {"excerptChars": 5000, "maxResponseChars": 1000}}, "memlens.search.excerptChars"),
        ({"search": {"vectorWeight": 0, "textWeight": 0}}, "memlens.search.vectorWeight"),
    ],
)
def test_cross_checks(data: dict[str, Any], field: str) -> None:
    result, warnings = merged(data)
    assert to_wire(result) == to_wire(Settings()) and len(warnings) == 1 and field in warnings[0]


def test_every_number_declares_its_bounds_and_the_defaults_are_valid() -> None:
    for path, hint, f in LEAVES:
        if hint in (int, float):
            assert {"min", "max"} <= set(f.metadata), f"{path} declares no bounds"
    assert problems(Settings()) == []
    for rule in RULES:
        assert all(any(path == p for p, _, _ in LEAVES) for path in rule.fields)


def test_the_manifest_mirrors_bounds_and_restricted_settings() -> None:
    manifest = json.loads(MANIFEST.read_text())
    declared = {k: v for s in manifest["contributes"]["configuration"] for k, v in s["properties"].items()}
    for path, _, f in LEAVES:
        if "min" in f.metadata:
            entry = declared[wire_name(path)]
            assert (entry.get("minimum"), entry.get("maximum")) == (f.metadata["min"], f.metadata["max"]), path
    restricted = manifest["capabilities"]["untrustedWorkspaces"]["restrictedConfigurations"]
    assert set(restricted) == {"memlens.server.pythonPath", *(f"memlens.{k}" for k in TRUST_SETTINGS)}
    assert all(f"memlens.{k}" in declared for k in TRUST_SETTINGS)


def test_an_untrusted_workspace_file_cannot_choose_locations() -> None:
    data = {
        "indexDir": "/tmp/elsewhere",
        "transcripts": {"paths": ["/home/someone/.ssh"], "exclude": ["*.tmp"]},
        "embedding.model": "some/model",
        "memlens.embedding.modelPath": "/tmp/model",
        "reranker": {"model": "some/reranker", "modelPath": "/tmp/reranker", "topN": 12},
        "scope": "all",
        "follow_external_symlinks": True,
        "privacy": {"redactIndex": False},
        "team": {"url": "postgresql://collector.example/db"},
        "search": {"mode": "keyword"},
    }
    result, warnings = merged(data, trusted=False, source="/ws/.memlens.json")
    assert result.index_dir == "" and result.transcripts.paths == [] and result.scope == "workspace"
    assert result.embedding.model == "" and result.embedding.model_path == ""
    assert result.reranker.model == "" and result.reranker.model_path == "" and result.reranker.top_n == 12
    assert result.follow_external_symlinks is False and result.privacy.redact_index is True
    assert result.team.url == ""  # an untrusted folder must not send every query to a server of its choosing
    assert result.search.mode == "keyword" and result.transcripts.exclude == ["*.tmp"]  # the rest applies
    assert len(warnings) == len(TRUST_SETTINGS)
    assert all("not applied from /ws/.memlens.json: the workspace is not trusted" in w for w in warnings)
    trusted, warnings = merged(data)
    assert trusted.index_dir == "/tmp/elsewhere" and trusted.scope == "all" and not warnings


def test_workspace_trust_flag() -> None:
    assert workspace_trusted(None) and workspace_trusted({}) and workspace_trusted({"workspaceTrusted": True})
    assert not workspace_trusted({"workspaceTrusted": False})
    assert not workspace_trusted({"workspaceTrusted": "yes"})  # not a boolean: fail closed
    assert merged({"workspaceTrusted": False, "search": {"mode": "vector"}})[1] == []  # not a setting: no warning


def test_unreadable_workspace_files_warn(tmp_path: Path) -> None:
    (tmp_path / ".memlens.json").write_text("[" * 100_000 + "]" * 100_000)
    warnings: list[str] = []
    assert load_workspace_file(tmp_path, warnings) == {} and "cannot read settings" in warnings[0]
    (tmp_path / ".memlens.json").write_text('{"search": {"minScore": NaN, "rrfK": ' + "9" * 500 + "}}")
    warnings = []
    result = merge(Settings(), load_workspace_file(tmp_path, warnings), warnings)
    assert problems(result) == [] and len(warnings) == 2


# -- property: random nested JSON never raises and always yields valid settings ---------------------------------

SETTING_KEYS = sorted(
    {wire_name(p).removeprefix("memlens.") for p, _, _ in LEAVES}
    | {wire_name(p).removeprefix("memlens.").split(".")[-1] for p, _, _ in LEAVES}
    | {"memory", "transcripts", "chunking", "embedding", "search", "hover", "memlens", "server", "workspaceTrusted"}
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**600), max_value=10**600)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["hybrid", "rrf", "all", "memory/*.md", "../x", "/abs", "", "\x00"])
)
keys = st.sampled_from(SETTING_KEYS) | st.text(max_size=6)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=5), max_leaves=25
)
documents = st.dictionaries(keys, json_values, max_size=8)


@pytest.mark.slow  # hypothesis
@hsettings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=documents, second=json_values, trusted=st.booleans())
def test_random_settings_never_raise_and_always_validate(first: Any, second: Any, trusted: bool) -> None:
    warnings: list[str] = []
    layer = merge(Settings(), first, warnings, trusted=trusted, source="test")
    assert problems(layer) == []
    result = merge(layer, second, warnings)
    assert problems(result) == []
    assert all(isinstance(w, str) and len(w) < 1000 for w in warnings)
    json.dumps(to_wire(result))  # still serialisable (no NaN sneaked in would still dump; types are checked above)


# -- the real CLI: a bad .memlens.json is a warning, never a traceback ----------------------------------------------

BAD_FILES = [
    '{"embedding": {"batchSize": 0}}',
    '{"chunking": {"markdownMinChars": 900}}',
    '{"search": {"minScore": NaN, "candidates": Infinity, "rrfK": ' + "7" * 400 + "}}",
    '{"memory": {"include": ["/etc/*", 3]}, "indexDir": 5, "memlens": []}',
    '{"search": {"maxResults": -1e400}, "embedding": {"model": "\\ud800"}}',
    "[" * 50_000 + "]" * 50_000,
    '{"chunking": ',
]


@pytest.mark.parametrize("text", BAD_FILES, ids=range(len(BAD_FILES)))
def test_cli_search_with_a_bad_workspace_file_never_tracebacks(tmp_path: Path, text: str) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text(NOTE)
    (workspace / ".memlens.json").write_text(text)
    command = [sys.executable, "-m", "memlens", "search", "pgbouncer", "--no-sync", "--no-embeddings"]
    command += ["--workspace", str(workspace), "--index-dir", str(tmp_path / "index")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr and "warning" in result.stderr.lower(), result.stderr


def test_cli_search_syncs_with_batch_size_zero(tmp_path: Path) -> None:
    """The issue's case: `{"embedding": {"batchSize": 0}}` made `memlens search` exit with a traceback."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text(NOTE)
    settings_json = {"embedding": {"batchSize": 0}, "chunking": {"markdownMinChars": 900}}
    (workspace / ".memlens.json").write_text(json.dumps({**settings_json, "transcripts": {"agentDefaults": False}}))
    command = [sys.executable, "-m", "memlens", "search", "pgbouncer pool", "--json"]
    command += ["--workspace", str(workspace), "--index-dir", str(tmp_path / "index")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert "memlens.embedding.batchSize: 0" in result.stderr and "markdownMinChars (900)" in result.stderr
    assert json.loads(result.stdout)["results"][0]["relPath"] == "MEMORY.md"  # the note was not skipped


def test_the_cli_applies_location_settings_from_the_workspace_file(tmp_path: Path) -> None:
    """The user runs the CLI: .memlens.json's indexDir and transcripts.paths apply (no trust question)."""
    workspace = tmp_path / "ws"
    (workspace / "logs").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text(NOTE)
    line = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": "0b7c6a52-3f0e-4c55-9d6e-2f1a7e8b9c01",
        "timestamp": "2026-02-10T10:00:00Z",
        "message": {"role": "user", "content": "where does the pgbouncer config live?"},
    }
    (workspace / "logs" / "session.jsonl").write_text(json.dumps(line) + "\n")
    index = tmp_path / "chosen-index"
    config = {"indexDir": str(index), "transcripts": {"paths": ["logs"], "agentDefaults": False}}
    (workspace / ".memlens.json").write_text(json.dumps(config))
    base = [sys.executable, "-m", "memlens"]
    subprocess.run([*base, "index", "--workspace", str(workspace), "--no-embeddings"], check=True, timeout=300)
    stats = subprocess.run(
        [*base, "stats", "--json", "--workspace", str(workspace), "--no-embeddings"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    report = json.loads(stats.stdout)
    assert Path(report["indexDir"]) == index and index.is_dir()
    assert report["sessions"] == 1 and sum(report["messages"].values()) >= 1
