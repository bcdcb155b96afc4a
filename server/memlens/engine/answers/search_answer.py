"""A ranking made into the `--json` / `memlens.search` response: bounded results, labelled, timed, with a note when
the requested mode could not run."""

from __future__ import annotations

import time
from pathlib import Path
from typing import cast

from memlens.engine.answers.results import ResultBuilder
from memlens.engine.answers.sessions import label_results
from memlens.engine.answers.visibility import Visibility
from memlens.engine.catalog import Catalog
from memlens.engine.ranking.hits import Ranking
from memlens.settings import SearchSettings
from memlens.wire import FusionMode, SearchResponse


def search_answer(
    ranking: Ranking,
    *,
    catalog: Catalog,
    workspaces: list[Path],
    visibility: Visibility,
    query: str,
    settings: SearchSettings,
    limit: int,
    mode: str | None,
    min_score: float | None,
    explain: bool,
    indexing: bool,
    started: float,
    provider_note: str,
) -> SearchResponse:
    """`mode`, `min_score`, `explain`: as the request gave them; `started`: when the search began (perf_counter)."""
    builder = ResultBuilder(catalog, workspaces, visibility)
    results = builder.build(
        ranking,
        limit,
        settings.min_score if min_score is None else min_score,
        settings.excerpt_chars,
        settings.max_response_chars,
        explain,
    )
    label_results(catalog, results)
    response: SearchResponse = {
        "query": query,
        "mode": ranking.mode,
        "results": results,
        "totalResults": len(results),
        "searchTimeMs": round((time.perf_counter() - started) * 1000, 2),
        "indexing": indexing,
    }
    if ranking.mode != (mode or settings.mode):
        response["note"] = f"no embedding model ({provider_note or 'no vectors yet'}); keyword search only"
    if explain:
        response["fusion"] = cast(FusionMode, ranking.fusion)  # the retriever checked it against FUSIONS
    return response
