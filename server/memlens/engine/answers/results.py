"""Turns a unit ranking into bounded chunk-level results: best message named, excerpt, citation fields."""

from __future__ import annotations

import functools
import os
from datetime import UTC, datetime
from pathlib import Path, PurePath
from typing import NamedTuple, cast

from memlens.engine.answers.confidence import in_rank_order
from memlens.engine.answers.excerpt import make_excerpt, note_body
from memlens.engine.answers.visibility import Visibility
from memlens.engine.catalog import Catalog, ResultRow
from memlens.engine.file_names import stored_path
from memlens.engine.ranking.hits import Ranking, UnitHit
from memlens.engine.ranking.rescoring import ANSWER_TOP, choose, hit_floor, passes
from memlens.requests import MAX_RESULTS as MAX_LIMIT
from memlens.wire import HitKind, SearchResult

SETTLE_EXTRA = 4  # rows a slice reads beyond the limit (at least ANSWER_TOP): room for hidden hits, a chunk's units


def iso(ts: float | None) -> str | None:
    """ISO-8601 UTC time; None for no time, and for a stored time no calendar can show (an index from before the
    parsers bounded times), so one odd row never fails a whole answer."""
    if ts is None:
        return None
    try:
        return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None


def display_path(path: str, workspaces: list[Path]) -> str:
    """Workspace-relative when inside a workspace folder, `~/…` under the home folder, else absolute. `path` as the
    catalog holds it (file_names.stored_path, escaped), so the folders are compared in that form too."""
    return _display_path(path, tuple(stored_path(w) for w in workspaces))


@functools.lru_cache(maxsize=8192)  # result pages repeat the same files
def _display_path(path: str, workspaces: tuple[str, ...]) -> str:
    for workspace in workspaces:
        relative = _relative(path, workspace)
        if relative is not None:
            return relative if len(workspaces) == 1 else f"{PurePath(workspace).name}/{relative}"
    home = _relative(path, _home(os.environ.get("HOME")))
    return path if home is None else f"~/{home}"


@functools.lru_cache(maxsize=4)
def _home(variable: str | None) -> str:
    """The home folder as the catalog holds paths, worked out once for each value of $HOME (`Path.home()` reads it,
    or the password database where it is unset): it cost about a tenth of a search's results."""
    return stored_path(Path.home())


def _relative(path: str, folder: str) -> str | None:
    """`path` relative to `folder` in POSIX form, None when it is not inside it. By string prefix where paths are
    POSIX (the catalog's and the workspaces' paths come from `Path`, so they are normalised): a search shows a dozen
    paths it has not shown before, and pathlib's `relative_to` costs about 12 µs a miss (it raises for every folder a
    transcript is not in), the prefix test under 1 µs."""
    if os.sep != "/":
        try:
            return PurePath(path).relative_to(folder).as_posix()
        except ValueError:
            return None
    if path == folder:
        return "."
    prefix = folder if folder.endswith("/") else folder + "/"
    return path[len(prefix) :] if path.startswith(prefix) else None


class Answer(NamedTuple):
    results: list[SearchResult]
    withheld: int  # chunks among the first `limit` not shown: their chance of relevance is under minScore


class ResultBuilder:
    def __init__(self, catalog: Catalog, workspaces: list[Path], visibility: Visibility) -> None:
        self.catalog = catalog
        self.workspaces = workspaces
        self.visibility = visibility

    def answer(
        self,
        ranking: Ranking,
        limit: int,
        min_score: float,
        excerpt_chars: int,
        max_chars: int,
        explain: bool = False,
    ) -> Answer:
        """The results shown, best first, and how many of the first `limit` chunks were withheld as too unsure."""
        limit = max(1, min(limit, MAX_LIMIT))
        hits, rows = self._visible(ranking, limit, min_score)
        choice = choose(hits, [rows[h.unit_id].chunk_id for h in hits], limit, min_score, calibrated=ranking.calibrated)
        results: list[SearchResult] = []
        total = 0
        words = in_rank_order([hit.probability for hit in choice.shown])
        for hit, word in zip(choice.shown, words, strict=True):
            result = self.result(rows[hit.unit_id], hit, ranking.query_terms, excerpt_chars, explain=explain)
            if ranking.calibrated:
                result["confidence"] = word
            total += len(result["excerpt"]) + 200
            if results and total > max_chars:
                break
            results.append(result)
        return Answer(results, choice.withheld)

    def _visible(self, ranking: Ranking, limit: int, min_score: float) -> tuple[list[UnitHit], dict[int, ResultRow]]:
        """The ranked hits this request may show (excluded sessions and out-of-scope files dropped BEFORE the
        answer is decided, so hidden hits neither decide it nor take the places of visible ones), with their result
        rows. Reads one query per slice (unit, chunk, file and session together) and stops as soon as the answer is
        settled: the top ten that decide whether to answer are known (`rescoring.ANSWER_TOP`) and `limit` chunks
        are shown, or the first `limit` chunks are all known and no hit after them may still be shown (the last
        pass re-scores only the head, so the chances after it are not in order: each is looked at). A result row
        costs 10-14 µs, so a slice is the limit (at least ANSWER_TOP) plus SETTLE_EXTRA, not the whole list."""
        hits = ranking.hits
        visible: list[UnitHit] = []
        rows: dict[int, ResultRow] = {}
        step = max(limit, ANSWER_TOP) + SETTLE_EXTRA
        for start in range(0, len(hits), step):
            part = hits[start : start + step]
            found = self.catalog.result_rows([h.unit_id for h in part])
            for hit in part:
                row = found.get(hit.unit_id)
                if row is None:
                    continue
                if not self.visibility.hides(row.session_key, row.session_id, row.path, row.cwd, row.parent_key):
                    visible.append(hit)
                    rows[hit.unit_id] = row
            if len(visible) < ANSWER_TOP:
                continue  # the hits that decide whether to answer are not all known yet
            chunks = [rows[h.unit_id].chunk_id for h in visible]
            choice = choose(visible, chunks, limit, min_score, calibrated=ranking.calibrated)
            if not choice.answered or len(choice.shown) >= limit:
                break
            if len(set(chunks)) >= limit and not any(
                passes(h, hit_floor(min_score, calibrated=ranking.calibrated), calibrated=ranking.calibrated)
                for h in hits[start + step :]
            ):
                break
        return visible, rows

    def result(
        self, row: ResultRow, hit: UnitHit, terms: list[str], excerpt_chars: int, *, explain: bool = False
    ) -> SearchResult:
        """One hit as the wire has it. The kind's fields are set key by key, so mypy holds each to wire.SearchResult
        (a dict merged in was checked by nothing), in the order they have always gone out."""
        result: SearchResult = {
            "id": f"chunk:{row.chunk_id}",
            "kind": cast(HitKind, row.kind),  # the catalog's kinds are the wire's
            "score": round(hit.score, 4),
            "path": row.path,
            "relPath": display_path(row.path, self.workspaces),
            "excerpt": make_excerpt(
                note_body(row.text, row.heading) if row.kind == "memory" else row.text, terms, excerpt_chars
            ),
        }
        # NULL in the catalog goes out as null, not left out (wire.SearchResult says which fields may be null)
        if row.kind == "memory":
            result["lineStart"] = row.line_start
            result["lineEnd"] = row.line_end
            result["heading"] = row.heading
        else:
            result["format"] = row.file_format
            result["sessionKey"] = row.session_key
            result["sessionId"] = row.session_id
            result["messageId"] = row.message_id
            result["role"] = row.role
            result["timestamp"] = iso(row.ts)
            result["messageCount"] = row.message_count
            result["lineStart"] = row.position
            if row.parent_key:
                result["parentSessionKey"] = row.parent_key
        if explain:
            result["explain"] = {
                "unitId": hit.unit_id,
                "bm25": round(hit.bm25, 4),
                "keyword": round(hit.keyword, 4),
                "fused": round(hit.fused, 4),
                "context": round(hit.rank_score - hit.fused, 4),
                "rankScore": round(hit.rank_score, 4),
                "probability": round(hit.probability, 4),
                "vector": None if hit.vector is None or hit.cosine_stood_in else round(hit.vector, 4),
                "keywordRank": hit.keyword_rank,
                "vectorRank": hit.vector_rank,
            }
        return result
