"""Embedding many texts must not grow the process by hundreds of MB: peak RSS over the loaded model, measured in a
fresh subprocess (VmHWM is per process), with the real bundled model, texts short and long, 256 a call as the
indexer sends them. Before ONNX Runtime's per-shape memory patterns were turned off and batches capped at 512 word
pieces (embedder.py), 1,000 such texts grew it by 204–266 MB; now by 101–103 (two runs each, bench/RESULTS.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

GROWTH_BOUND_MB = 160.0

SCRIPT = r"""
import json, random, sys
from pathlib import Path

from memlens.engine.vectors.embedder import load_embedder
from memlens.settings import EmbeddingSettings


def status(key):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    raise SystemExit(f"no {key}")


embedder, reason = load_embedder(EmbeddingSettings(), Path(sys.argv[1]))
assert embedder is not None, reason
embedder.embed(["warm up the model"])
base = status("VmRSS")
Path("/proc/self/clear_refs").write_text("5")
words = (
    "the deploy failed because billing webhook retry queue timed out after the cache warmed up and the ingest "
    "worker leaked memory while parsing transcripts so we rolled back checked the logs added a test for the "
    "scheduler fixed the race in the lock and asked alice to review the migration before friday"
).split()
rng = random.Random(5)
texts = [
    " ".join(rng.choice(words) for _ in range(rng.randint(300, 400) if i % 25 == 0 else rng.randint(10, 60)))
    for i in range(int(sys.argv[2]))
]
for start in range(0, len(texts), 256):
    embedder.embed(texts[start : start + 256])
print(json.dumps({"baseMB": base, "peakMB": status("VmHWM")}))
"""


@pytest.mark.slow  # embeds a thousand texts
@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux's /proc/self/clear_refs")
def test_embedding_1000_texts_stays_within_a_bound_over_the_model(model_cache: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(model_cache), "1000"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    growth = figures["peakMB"] - figures["baseMB"]
    assert growth <= GROWTH_BOUND_MB, figures


def test_token_batches_bound_word_pieces_per_batch() -> None:
    """Short texts fill a batch up to `BATCH_TOKENS` padded word pieces (not 32 texts); a text longer than that
    still gets a batch of its own; every position is in exactly one batch."""
    from memlens.engine.vectors.embedder import BATCH_TOKENS, token_batches

    lengths = sorted([12] * 200 + [40] * 100 + [256] * 5 + [2 * BATCH_TOKENS])
    batches = token_batches(lengths, 32)
    assert sorted(p for b in batches for p in b) == list(range(len(lengths)))
    for batch in batches:
        longest = max(lengths[p] for p in batch)
        assert len(batch) == 1 or len(batch) * longest <= BATCH_TOKENS
    assert max(len(b) for b in batches) == min(32, BATCH_TOKENS // 12)
    assert [len(b) for b in batches[:6]] == [32] * 6  # 12-piece texts: the 32-text limit first
    assert {len(b) for b in batches if max(lengths[p] for p in b) == 40} == {BATCH_TOKENS // 40}
