"""The team index's answers as the engine gives them: a publish, a search with the team's hits merged in, the
team's sessions. `Engine` calls these; they read the engine through `TeamSource`."""

from __future__ import annotations

import getpass
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from memlens.engine.answers.visibility import Visibility
from memlens.engine.catalog import Catalog
from memlens.engine.team.publish import OutgoingUnit, PublishTarget, outgoing_units, publish
from memlens.engine.team.team_catalog import TeamCatalog, TeamRefused, TeamSchemaTooNew, TeamUnavailable
from memlens.engine.team.team_connections import TeamConnections
from memlens.engine.team.team_search import (
    TeamQuery,
    team_results,
    team_sessions,
    unknown_names_note,
    unreachable,
    with_team,
)
from memlens.engine.vectors.embedder import Embedder, ModelUnavailable
from memlens.engine.vectors.vector_index import VectorIndex
from memlens.errors import InvalidRequest
from memlens.settings import Settings
from memlens.wire import SearchResponse
from memlens.wire.team import PublishResponse, TeamSessionsResponse

log = logging.getLogger(__name__)


class TeamSource(Protocol):
    catalog: Catalog
    settings: Settings
    workspaces: list[Path]
    embedder: Embedder | None
    vectors: VectorIndex
    team_connections: TeamConnections

    def visibility(self) -> Visibility: ...


def default_publisher() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name in the environment or the password database
        raise InvalidRequest("cannot tell your user name: name yourself with --as NAME") from None


def publish_units(engine: TeamSource, url: str, *, publisher: str | None, project: str | None) -> PublishResponse:
    if project is None and not engine.workspaces:
        raise InvalidRequest("name the project with --project P")
    target = PublishTarget(
        url=url,
        publisher=(publisher or default_publisher()).strip(),
        project=(project or engine.workspaces[0].name).strip(),
    )
    if not target.publisher or not target.project:
        raise InvalidRequest("a publisher's and a project's name cannot be blank")
    model = engine.embedder.name if engine.embedder is not None else None
    visibility = engine.visibility()

    def units(vectors_of: str | None) -> Iterator[OutgoingUnit]:
        return outgoing_units(
            engine.catalog,
            visibility,
            model=vectors_of,
            embedder=engine.embedder,
            stored_vectors=engine.vectors.stored_vectors,
        )

    with TeamCatalog.open(url) as team:
        return publish(team, target, units, model=model, local_units=engine.catalog.unit_count())


def search_with_team(
    engine: TeamSource,
    local: SearchResponse,
    *,
    where: TeamQuery,
    mode: str | None,
    limit: int | None,
    strict: bool = True,
) -> SearchResponse:
    """`local` with the team's hits merged in; when the team server cannot be reached, `local` saying so. A bad
    URL, refused credentials or a newer schema raise when `strict` (the team was asked for by name); else (the
    `team.url` setting, under every search an editor or an agent makes) `local` says why too, so one wrong setting
    does not take the local search away."""
    settings = engine.settings.search
    limit = limit or settings.max_results
    mode = mode or settings.mode
    query = local["query"]
    embedder = engine.embedder if mode != "keyword" else None
    # a hybrid search's two sides each on a connection of its own (team_results)
    count = 2 if mode == "hybrid" and embedder is not None else 1
    try:
        with engine.team_connections.catalogs(where.url, count) as teams:
            team = teams[0]
            readable, model = team.searchable_model()
            for other in teams[1:]:
                other.schema = team.schema  # the columns it reads back: one look at the schema serves both
            vector = None
            if readable and embedder is not None and model == embedder.name:
                try:
                    vector = embedder.embed_query(query)
                except ModelUnavailable as exc:
                    log.warning("no embedding model for the team search: %s", exc)
            hits = (
                team_results(
                    team,
                    query,
                    terms=query.split(),
                    vector=vector,
                    where=where,
                    settings=settings,
                    mode=mode,
                    limit=limit,
                    vector_team=teams[1] if len(teams) > 1 else None,
                )
                if readable
                else []
            )
            said = unknown_names_note(team, where) if readable and not hits else None
    except TeamUnavailable as exc:
        return unreachable(local, str(exc))
    except (TeamRefused, TeamSchemaTooNew) as exc:
        if strict:
            raise
        return unreachable(local, str(exc))
    return with_team(local, hits, limit=limit, rrf_k=settings.rrf_k, said=said)


def team_session_page(
    url: str, *, publisher: str | None, project: str | None, limit: int, query: str | None
) -> TeamSessionsResponse:
    with TeamCatalog.open(url) as team:
        return team_sessions(team, where=TeamQuery(url, publisher, project), limit=limit, query=query)
