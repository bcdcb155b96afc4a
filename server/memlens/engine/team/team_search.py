"""A search of the team index beside the local one: PostgreSQL full text and pgvector candidates fused by the local
engine's rule (`ranking.search.fused_score`), then merged with the local answer by rank.

The two lists are merged by reciprocal rank (the local score is calibrated, the team's is a fused 0–1 score: their
figures do not compare, their orders do); a team hit that is one of the local hits (same session and message, or
same file and line) is left out, since the local one already says it. Each team hit names its publisher and project.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import PurePath
from typing import TYPE_CHECKING

from memlens.engine.answers.excerpt import make_excerpt, note_body
from memlens.engine.keyword.error_query import asks_for_output, looks_like_error, looks_like_output
from memlens.engine.keyword.parsed_query import ParsedQuery
from memlens.engine.lazy import lazy_module
from memlens.engine.ranking.hits import UnitHit
from memlens.engine.ranking.rescoring import TOOL_RESULT_WEIGHT
from memlens.engine.ranking.search import fused_score
from memlens.engine.sources.tool_output import joined_call
from memlens.engine.team.team_catalog import TeamCatalog, TeamRow, TeamSessionRow
from memlens.settings import SearchSettings
from memlens.settings.values import show
from memlens.wire import SearchResponse, SearchResult
from memlens.wire.team import TeamSession, TeamSessionsResponse

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")  # a team search or publish only: the CLI's keyword path never loads numpy


@dataclass(frozen=True, slots=True)
class TeamQuery:
    """Where and what of a team search: the server, and the publisher and project its hits must have."""

    url: str
    publisher: str | None = None
    project: str | None = None

    def within(self, project: str | None) -> TeamQuery:
        """This query kept to the project a search's filter names: a project is published under its folder's name,
        so a path (`--project ~/src/billing`) asks for its last part."""
        if not project or self.project:
            return self
        return replace(self, project=PurePath(project.rstrip("/\\")).name or project)


def team_results(
    team: TeamCatalog,
    query: str,
    *,
    terms: list[str],
    vector: np.ndarray | None,
    where: TeamQuery,
    settings: SearchSettings,
    mode: str,
    limit: int,
    vector_team: TeamCatalog | None = None,
) -> list[SearchResult]:
    """The team's best hits for `query` in a team index `TeamCatalog.searchable_model` found readable, fused as the
    local engine fuses (keyword, vector or hybrid). With `vector_team` (a second connection), a hybrid search's
    vector side runs on it while the keyword side runs on `team`: the server works on both at once, on two of its
    cores.

    Tool output weighs as the local re-scoring weighs it (rescoring.rescore). A question asking what a command
    printed (ParsedQuery.asks_output) also matches the call a tool output's header names, and every hit but a tool
    output keeps TOOL_RESULT_WEIGHT of its score: the call message, shorter and holding the same command, would rank
    above the output asked for. A pasted error or output line weighs both in full. Any other question keeps that
    share of a tool output's score: a command's output repeats a topic's words without saying what was decided."""
    candidates = max(limit, settings.candidates)
    asks_output = asks_for_output(query)
    output_in_full = asks_output or looks_like_error(query) or looks_like_output(query)

    def keyword_side() -> list[TeamRow]:
        if mode == "vector":
            return []
        return team.keyword_candidates(
            query, publisher=where.publisher, project=where.project, limit=candidates, with_call=asks_output
        )

    def vector_side(on: TeamCatalog) -> list[TeamRow]:
        if vector is None or mode == "keyword":
            return []
        return on.vector_candidates(
            vector.tolist(), publisher=where.publisher, project=where.project, limit=candidates, hybrid=mode == "hybrid"
        )

    if vector_team is not None and mode == "hybrid" and vector is not None:
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="memlens-team-keyword") as thread:
            keyword_future = thread.submit(keyword_side)
            try:
                vector_rows = vector_side(vector_team)
            finally:
                keyword_rows = keyword_future.result()  # its connection is in use until it ends: always waited for
    else:
        keyword_rows = keyword_side()
        vector_rows = vector_side(team)
    hits: dict[tuple[str, str], tuple[UnitHit, TeamRow]] = {}
    best_rank = max((r.score for r in keyword_rows), default=0.0) or 1.0
    for rank, row in enumerate(keyword_rows):
        hit = UnitHit(unit_id=len(hits), bm25=row.score, keyword=row.score / best_rank, keyword_rank=rank)
        hits[(row.publisher, row.hash)] = (hit, row)
    for rank, row in enumerate(vector_rows):
        key = (row.publisher, row.hash)
        if key not in hits:
            hits[key] = (UnitHit(unit_id=len(hits)), row)
        hits[key][0].vector = row.score
        hits[key][0].vector_rank = rank
    fused_mode = mode if vector is not None else "keyword"
    if fused_mode == "hybrid" and not keyword_rows:
        fused_mode = "vector"
    best_cosine = max((h.vector for h, _ in hits.values() if h.vector is not None), default=0.0)
    for hit, row in hits.values():
        hit.score = fused_score(hit, fused_mode, settings.fusion, settings, best_cosine=best_cosine)
        if (asks_output and row.kind != "tool") or (not output_in_full and row.kind == "tool"):
            hit.score *= TOOL_RESULT_WEIGHT
    ordered = sorted(hits.values(), key=lambda pair: -pair[0].score)[:limit]
    return [_result(hit, row, terms, settings.excerpt_chars) for hit, row in ordered]


def _result(hit: UnitHit, row: TeamRow, terms: list[str], excerpt_chars: int) -> SearchResult:
    timestamp = _iso(row.ts)
    result: SearchResult = {
        "id": f"team:{row.publisher}:{row.hash[:16]}",
        "kind": row.kind,  # type: ignore[typeddict-item]  # one of HitKind: published from the catalog's units
        "score": round(min(1.0, max(0.0, hit.score)), 4),
        "path": row.path,
        "relPath": row.path,
        # the call shown as locally, a note without its heading path (shown apart)
        "excerpt": make_excerpt(
            note_body(row.text, row.heading) if row.kind == "memory" else joined_call(row.text, row.call),
            terms,
            excerpt_chars,
        ),
        "publisher": row.publisher,
        "project": row.project,
    }
    if row.kind == "memory":
        result["lineStart"] = row.line_start
        result["heading"] = row.heading
    else:
        result["format"] = row.format
        result["sessionKey"] = row.session_key
        result["sessionId"] = row.session_id
        result["messageId"] = row.message_id
        result["role"] = row.role
        result["timestamp"] = timestamp
        result["lineStart"] = row.line_start
        if row.title:
            result["title"] = row.title
    return result


def merged(local: SearchResponse, team: list[SearchResult], *, limit: int, rrf_k: int) -> SearchResponse:
    """The local answer with the team's hits merged in by reciprocal rank (see the module's docstring)."""
    seen = {_identity(r) for r in local["results"]}
    team = [r for r in team if _identity(r) not in seen]
    ranked = [(1.0 / (rrf_k + 1 + i), 0, i, r) for i, r in enumerate(local["results"])]
    ranked += [(1.0 / (rrf_k + 1 + i), 1, i, r) for i, r in enumerate(team)]
    ranked.sort(key=lambda entry: (-entry[0], entry[1], entry[2]))
    results = [entry[3] for entry in ranked[:limit]]
    return {**local, "results": results, "totalResults": len(results)}


def _identity(result: SearchResult) -> tuple[object, ...]:
    if result.get("messageId"):
        return ("message", result.get("sessionKey"), result.get("messageId"), result["excerpt"])
    return ("file", result["path"], result.get("lineStart"), result["excerpt"])


def query_terms(parsed: ParsedQuery | None, query: str) -> list[str]:
    """The words an excerpt centres on."""
    return list(getattr(parsed, "terms", None) or query.split())


def team_sessions(team: TeamCatalog, *, where: TeamQuery, limit: int, query: str | None = None) -> TeamSessionsResponse:
    if not team.check_readable():
        return {"sessions": []}
    rows = team.sessions(publisher=where.publisher, project=where.project, limit=limit, query=query)
    answer: TeamSessionsResponse = {"sessions": [_session(r) for r in rows]}
    if not rows and (said := unknown_names_note(team, where)):
        answer["note"] = said
    return answer


def unknown_names_note(team: TeamCatalog, where: TeamQuery) -> str | None:
    """What an answer filtered by a publisher or a project the team index holds no row of says (None when it holds
    both): a mistyped name answered an empty list and nothing else, as a local project filter did."""
    said = []
    if where.publisher and not team.has_rows(publisher=where.publisher):
        said.append(f"no one published to the team index as {show(where.publisher)}")
    if where.project and not team.has_rows(project=where.project):
        said.append(f"the team index holds no project named {show(where.project)}")
    return "; ".join(said) or None


def _iso(value: datetime | None) -> str | None:
    """A team row's time as a local answer writes one (results.iso): in UTC, whatever time zone the team server's
    session reads times in (psycopg gives a timestamptz in it)."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _session(row: TeamSessionRow) -> TeamSession:
    return {
        "publisher": row.publisher,
        "project": row.project,
        "sessionKey": row.session_key,
        "format": row.format,
        "title": row.title,
        "firstTimestamp": _iso(row.first),
        "lastTimestamp": _iso(row.last),
        "messageCount": int(row.messages),
    }


def unreachable(local: SearchResponse, reason: str) -> SearchResponse:
    """The local answer, saying the team index could not be asked and why."""
    note = f"the team index was unreachable ({reason}); local results only"
    answer: SearchResponse = {**local, "team": {"reachable": False, "hits": 0, "reason": reason}}
    answer["note"] = f"{local['note']}; {note}" if local.get("note") else note
    return answer


def with_team(
    local: SearchResponse, team: Sequence[SearchResult], *, limit: int, rrf_k: int, said: str | None = None
) -> SearchResponse:
    """`local` with the team's hits merged in; `said`: a note of the team's (`unknown_names_note`). A local answer
    whose date window held no message (`emptyWindow`, and its note) says nothing of it once the team's hits show that
    others wrote in that window."""
    answer = merged(local, list(team), limit=limit, rrf_k=rrf_k)
    answer["team"] = {"reachable": True, "hits": sum(1 for r in answer["results"] if "publisher" in r)}
    before = local.get("note")
    if answer["results"] and answer.pop("emptyWindow", None) is not None:
        answer.pop("note", None)
        before = None
    if said:
        answer["note"] = f"{before}; {said}" if before else said
    return answer
