"""Hover-to-recall latency through the real language server (stdio JSON-RPC), at a realistic index size.

Builds the synthetic corpus of bench/speed.py (memory notes and transcripts in the real formats), indexes it with
vectors, starts `memlens serve`, opens a source file made of identifiers from that corpus, and times
`textDocument/hover` round trips as an editor sees them: first hovers on distinct words (a search each) and
repeated hovers (served from the server's hover cache).

    python bench/hover.py --chunks 10000 --hovers 200 [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import load_shared_embedder, machine_info, percentile, process_cpu_s
from bench.corpus import COMPONENTS, PROBLEMS, TECH, THINGS, bench_settings, make_corpus, open_engine


def source_file(seed: int, lines: int) -> list[str]:
    """A Python-looking file whose identifiers name things the corpus talks about."""
    rng = random.Random(seed)
    out = []
    for i in range(lines):
        name = f"{rng.choice(COMPONENTS)}_{rng.choice(THINGS)}".replace("-", "_").replace(" ", "_")
        call = rng.choice(TECH + PROBLEMS).split()[0].replace("-", "_")
        out.append(f"def handle_{name}_{i}(): return {call}({i})")
    return out


def stats(samples: list[float]) -> dict[str, float]:
    return {
        "n": len(samples),
        "p50": round(percentile(samples, 50), 2),
        "p95": round(percentile(samples, 95), 2),
        "max": round(max(samples), 2),
    }


async def measure(workspace: Path, options: dict[str, Any], hovers: int, seed: int) -> dict[str, Any]:
    client = LanguageClient("memlens-bench", "1")
    client.feature("memlens/indexStatus")(lambda params: None)  # the status-bar feed: not measured here
    await client.start_io(sys.executable, "-m", "memlens", "serve")
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="bench")],
            initialization_options=options,
        )
    )
    client.initialized(types.InitializedParams())
    started = time.perf_counter()
    status: dict[str, Any] = {}
    while True:  # the start-up reconcile (nothing changed) must finish before hovers find anything
        status = (
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="memlens.stats", arguments=[{}])
            )
            or {}
        )
        if not status["indexing"] and status["totalChunks"] > 0:
            break
        if time.perf_counter() - started > 600:
            raise SystemExit("the server did not finish its start-up reconcile in 10 minutes")
        await asyncio.sleep(0.1)
    lines = source_file(seed, hovers)
    uri = (workspace / "handlers.py").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text="\n".join(lines))
        )
    )

    async def hover(line: int) -> tuple[float, bool]:
        position = types.Position(line=line, character=len("def handle_") + 2)
        began = time.perf_counter()
        result = await client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position)
        )
        return (time.perf_counter() - began) * 1000, result is not None

    server = client._server.pid if client._server is not None else None  # pygls keeps the process

    async def timed(rounds: range) -> tuple[list[tuple[float, bool]], float | None]:
        """The hovers, and the server's CPU per hover in ms (wall time alone says little on a shared machine)."""
        before = process_cpu_s(server) if server else None
        done = [await hover(i) for i in rounds]
        after = process_cpu_s(server) if server else None
        cpu = None if before is None or after is None else round(1000 * (after - before) / len(done), 2)
        return done, cpu

    first, first_cpu = await timed(range(hovers))
    again, again_cpu = await timed(range(hovers))
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()  # type: ignore[no-untyped-call]
    return {
        "firstHoverMs": stats([ms for ms, _ in first]),
        "repeatedHoverMs": stats([ms for ms, _ in again]),
        "serverCpuMsPerHover": {"first": first_cpu, "repeated": again_cpu},
        "hoversWithContent": sum(1 for _, shown in first if shown),
        "totalChunks": status["totalChunks"],
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10000)
    parser.add_argument("--hovers", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--work-dir", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memlens-hover-") as scratch:
        root = args.work_dir or Path(scratch)
        corpus = make_corpus(root / "corpus", args.chunks)
        index_dir = root / "index"
        with open_engine(corpus, index_dir, load_shared_embedder(bench_settings())) as engine:
            engine.sync()
        options = {
            "indexDir": str(index_dir),
            "transcripts": {"paths": [str(corpus.transcripts)], "agentDefaults": False},
        }
        report = asyncio.run(measure(corpus.workspace, options, args.hovers, args.seed))
    report["machine"] = machine_info()
    if args.json:
        print(json.dumps(report))
    else:
        print(f"hover latency at {report['totalChunks']} chunks (round trip through `memlens serve`):")
        for label, key in (("first hover (a search)", "firstHoverMs"), ("repeated (cached)", "repeatedHoverMs")):
            s = report[key]
            print(f"  {label:<24} p50 {s['p50']:>7.2f} ms   p95 {s['p95']:>7.2f} ms   max {s['max']:>7.2f} ms")
        cpu = report["serverCpuMsPerHover"]
        print(f"  server CPU per hover (mean): first {cpu['first']} ms, repeated {cpu['repeated']} ms")
        print(f"  hovers that showed memories: {report['hoversWithContent']}/{args.hovers}")
    return report


if __name__ == "__main__":
    main()
