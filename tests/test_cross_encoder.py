"""The cross-encoder reranker and fastembed models by name, on a tiny cross-encoder this file builds itself.

No cross-encoder's weights can be had here, so the test writes one: an ONNX graph (onnx's helper API) whose logit
for a (query, text) pair is the number of (query word, text word) pairs that are the same word, with a WordLevel
tokenizer (the `tokenizers` library) over the test's own words, in the folder layout fastembed's TextCrossEncoder
loads from a local path (model.onnx, tokenizer.json, tokenizer_config.json, special_tokens_map.json, config.json).
The engine, tantivy and fastembed's loading code are the real ones.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

from memlens.engine.engine import Engine
from memlens.engine.ranking.cross_encoder import LOCAL_NAME, CrossEncoder, load_model
from memlens.engine.vectors.fastembed_models import ModelUnavailable
from memlens.settings import RerankerSettings, Settings, merge

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]  # ids 0-3; the model ignores them (and unknown words)
WORD = re.compile(r"\w+")  # what the Whitespace pre-tokenizer keeps as words
QUERY = "blue green rollout"
NOTES = {
    # short, one mention each: BM25's favourite
    "memory/short.md": "# Deploys\n\nWe use a blue green rollout for the api.",
    # long, every query word several times: the tiny cross-encoder's favourite
    "memory/dense.md": (
        "# Release notes\n\n"
        + " ".join(
            ["The blue fleet serves while the green fleet warms up; after checks the rollout flips traffic."] * 3
            + ["Operators watched dashboards, paged the on call engineer and wrote the retrospective later."] * 6
        )
    ),
    "memory/canary.md": "# Canary\n\nThe canary rollout sends a slice of traffic to the new build first.",
    "memory/colours.md": "# Theme\n\nThe dashboard theme is green on dark grey, with blue links.",
    "memory/unrelated.md": "# Lunch\n\nThe team orders noodles on fridays and pizza on mondays.",
}
LUNCH_QUERY = "noodles pizza"  # one note answers it


def words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


def overlap(query: str, text: str) -> float:
    """What the tiny model computes: Σ over words of (count in the query) × (count in the text)."""
    q, t = Counter(words(query)), Counter(words(text))
    return float(sum(n * t[w] for w, n in q.items()))


def build_cross_encoder(folder: Path, vocabulary: set[str], *, model_file: str = "model.onnx") -> Path:
    """Write the tiny cross-encoder into `folder` (its ONNX file at `model_file`) and return the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab = {token: i for i, token in enumerate(SPECIAL + sorted(vocabulary))}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",  # the text's word pieces get token type 1
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)],
    )
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 512, "pad_token": "[PAD]"}))
    special = {"pad_token": "[PAD]", "unk_token": "[UNK]", "cls_token": "[CLS]", "sep_token": "[SEP]"}
    (folder / "special_tokens_map.json").write_text(json.dumps(special))
    (folder / "config.json").write_text(json.dumps({"pad_token_id": 0}))

    def ids(name: str) -> onnx.ValueInfoProto:
        return helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])

    nodes = [
        helper.make_node("Greater", ["input_ids", "last_special"], ["is_word"]),  # not [PAD]/[UNK]/[CLS]/[SEP]
        helper.make_node("Cast", ["is_word"], ["word"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["token_type_ids"], ["types"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["word", "mask"], ["real"]),
        helper.make_node("Mul", ["real", "types"], ["text"]),  # the text's words
        helper.make_node("Sub", ["real", "text"], ["query"]),  # the query's words
        helper.make_node("Unsqueeze", ["input_ids", "axis2"], ["ids_rows"]),
        helper.make_node("Unsqueeze", ["input_ids", "axis1"], ["ids_columns"]),
        helper.make_node("Equal", ["ids_rows", "ids_columns"], ["same_id"]),
        helper.make_node("Cast", ["same_id"], ["same"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["query", "axis2"], ["query_rows"]),
        helper.make_node("Unsqueeze", ["text", "axis1"], ["text_columns"]),
        helper.make_node("Mul", ["same", "query_rows"], ["same_query"]),
        helper.make_node("Mul", ["same_query", "text_columns"], ["pairs"]),
        helper.make_node("ReduceSum", ["pairs", "axes12"], ["count"], keepdims=0),
        helper.make_node("Unsqueeze", ["count", "axis1"], ["logits"]),
    ]
    constants = [
        helper.make_tensor("last_special", TensorProto.INT64, [], [len(SPECIAL) - 1]),
        helper.make_tensor("axis1", TensorProto.INT64, [1], [1]),
        helper.make_tensor("axis2", TensorProto.INT64, [1], [2]),
        helper.make_tensor("axes12", TensorProto.INT64, [2], [1, 2]),
    ]
    graph = helper.make_graph(
        nodes,
        "word_overlap_cross_encoder",
        [ids("input_ids"), ids("attention_mask"), ids("token_type_ids")],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        constants,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    (folder / model_file).parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(folder / model_file))
    return folder


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vocabulary = {w for text in [QUERY, LUNCH_QUERY, *NOTES.values()] for w in words(text)}
    return build_cross_encoder(tmp_path_factory.mktemp("cross-encoder"), vocabulary)


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    workspace = tmp_path / "workspace"
    for relative, text in NOTES.items():
        (workspace / relative).parent.mkdir(parents=True, exist_ok=True)
        (workspace / relative).write_text(text + "\n", encoding="utf-8")
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.search.mode = "keyword"  # BM25 alone: the order before reranking does not depend on a model
    built = Engine([workspace], settings, index_dir=tmp_path / "cache" / "indexes" / "idx", embedder=False)
    built.sync()
    return built


def order(engine: Engine, query: str) -> list[str]:
    return [r["relPath"] for r in engine.search(query, limit=10)["results"]]


def test_the_tiny_model_scores_word_overlap_through_fastembed(tiny_model: Path, tmp_path: Path) -> None:
    reranker = CrossEncoder(tmp_path / "models")
    settings = RerankerSettings(model_path=str(tiny_model))
    texts = [*NOTES.values(), "", "blue"]
    scores = reranker.scores(settings, QUERY, texts)
    assert scores == [overlap(QUERY, t) for t in texts]  # in the caller's order, though batched by length
    assert len(set(scores)) >= 4  # a meaningful function: it tells the notes apart
    loaded = reranker.model(settings)
    assert type(loaded).__name__ == "TextCrossEncoder" and loaded.model_name == f"{LOCAL_NAME}/model.onnx"


def test_the_reranker_reorders_the_top_hits(engine: Engine, tiny_model: Path) -> None:
    before = order(engine, QUERY)
    assert before[0] != "memory/dense.md" and "memory/dense.md" in before  # BM25 prefers the short note
    fused = engine.rank(QUERY, limit=10).hits
    engine.settings.reranker = RerankerSettings(model_path=str(tiny_model))
    reranked = engine.rank(QUERY, limit=10).hits
    rows = engine.catalog.units_by_id([h.unit_id for h in fused])
    expected = sorted(range(len(fused)), key=lambda i: (-overlap(QUERY, str(rows[fused[i].unit_id]["text"])), i))
    assert [h.unit_id for h in reranked] == [fused[i].unit_id for i in expected]
    after = order(engine, QUERY)
    assert after[0] == "memory/dense.md" and after != before
    # scores and calibrated probabilities stay with the ranks
    assert [(h.score, h.probability) for h in reranked] == [(h.score, h.probability) for h in fused]


def test_only_the_top_n_are_reordered(engine: Engine, tiny_model: Path) -> None:
    fused = [h.unit_id for h in engine.rank(QUERY, limit=10).hits]
    assert len(fused) >= 4
    engine.settings.reranker = RerankerSettings(model_path=str(tiny_model), top_n=2)
    reranked = [h.unit_id for h in engine.rank(QUERY, limit=10).hits]
    assert set(reranked[:2]) == set(fused[:2]) and reranked[2:] == fused[2:]


def test_abstention_decides_as_without_the_reranker(engine: Engine, tiny_model: Path) -> None:
    queries = [QUERY, LUNCH_QUERY, "rollout", "fleet dashboards", "kubernetes helm"]
    plain = {q: engine.search(q, limit=10)["results"] for q in queries}
    engine.settings.reranker = RerankerSettings(model_path=str(tiny_model))
    for query in queries:
        reranked = engine.search(query, limit=10)["results"]
        assert len(reranked) == len(plain[query]), query  # answer or not, and how many: unchanged
        assert [r["score"] for r in reranked] == [r["score"] for r in plain[query]], query
    assert not plain["kubernetes helm"]  # nothing found stays nothing
    best = engine.rank(QUERY, limit=10).hits[0].probability
    assert engine.search(QUERY, limit=10, min_score=best + 0.01)["results"] == []  # not confident: still silent
    assert engine.search(QUERY, limit=10, min_score=best)["results"][0]["relPath"] == "memory/dense.md"


def test_off_by_default_and_a_missing_model_is_one_warning(
    engine: Engine, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    before = order(engine, QUERY)
    assert Settings().reranker.model == Settings().reranker.model_path == ""
    assert not engine.cross_encoder.loaded  # the default settings load nothing
    engine.settings.reranker = RerankerSettings(model_path=str(tmp_path / "absent"))
    with caplog.at_level("WARNING", logger="memlens.engine.ranking.cross_encoder"):
        assert order(engine, QUERY) == before
        assert order(engine, QUERY) == before
    warnings = [r.getMessage() for r in caplog.records if "no cross-encoder" in r.getMessage()]
    assert len(warnings) == 1 and "absent" in warnings[0]
    assert "absent" in (engine.cross_encoder.note(engine.settings.reranker) or "")


def test_a_local_folder_may_keep_the_model_under_onnx(tiny_model: Path, tmp_path: Path) -> None:
    vocabulary = {w for text in [QUERY, *NOTES.values()] for w in words(text)}
    folder = build_cross_encoder(tmp_path / "nested", vocabulary, model_file="onnx/model.onnx")
    model = load_model(RerankerSettings(model="my/own-reranker", model_path=str(folder)), tmp_path)
    assert model.model_name == f"{LOCAL_NAME}/onnx/model.onnx"
    assert list(model.rerank(QUERY, ["blue blue", "lunch"])) == [2.0, 0.0]


def test_a_named_model_that_cannot_be_downloaded_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")  # the discard port: nothing listens
    # the hub is found unreachable before fastembed is asked to download (it would retry, sleeping between tries)
    with pytest.raises(ModelUnavailable, match=r"cannot download the cross-encoder model .*127\.0\.0\.1:9 cannot be"):
        load_model(RerankerSettings(model="Xenova/ms-marco-MiniLM-L-6-v2"), tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelUnavailable, match="HF_HUB_OFFLINE is set"):
        load_model(RerankerSettings(model="Xenova/ms-marco-MiniLM-L-6-v2"), tmp_path)
    with pytest.raises(ModelUnavailable, match="not a cross-encoder model fastembed knows"):
        load_model(RerankerSettings(model="nobody/no-such-reranker"), tmp_path)


def test_cli_with_an_embedding_model_it_cannot_download(tmp_path: Path) -> None:
    """`--model NAME` with no reachable hub: keyword results, the reason in plain words, no traceback, no loguru
    lines, and no 45 s of fastembed's retries."""
    workspace = tmp_path / "workspace"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "notes.md").write_text(NOTES["memory/short.md"] + "\n", encoding="utf-8")
    environment = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and k != "HF_HUB_OFFLINE"}
    environment["HF_ENDPOINT"] = "http://127.0.0.1:9"
    result = subprocess.run(
        [sys.executable, "-m", "memlens", "search", QUERY, "--workspace", str(workspace)]
        + ["--index-dir", str(tmp_path / "cache" / "indexes" / "idx"), "--model", "BAAI/bge-small-en-v1.5", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["results"]  # keyword search still answers
    assert "Traceback" not in result.stderr and "| ERROR" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if "bge-small" in line]
    assert len(lines) == 1, result.stderr  # one line says it, not a log line and a CLI line
    assert lines[0].startswith("memlens: no embedding model: cannot download the text embedding model BAAI/bge-small")
    # found unreachable before fastembed is asked to download (its retries would sleep for 45 s)
    assert "127.0.0.1:9 cannot be reached" in lines[0] and "memlens.embedding.modelPath" in lines[0]


def test_reranker_settings_are_bounded_and_trusted_only() -> None:
    warnings: list[str] = []
    settings = merge(Settings(), {"reranker": {"topN": 1000, "threads": 0, "model": "a/b"}}, warnings)
    assert settings.reranker.top_n == 30 and settings.reranker.threads == 1 and settings.reranker.model == "a/b"
    assert len(warnings) == 2 and all("memlens.reranker." in w for w in warnings)
    untrusted = merge(Settings(), {"reranker": {"model": "a/b", "modelPath": "/tmp/x"}}, [], trusted=False)
    assert untrusted.reranker.model == "" and untrusted.reranker.model_path == ""
