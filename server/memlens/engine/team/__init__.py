"""A team's shared index in PostgreSQL + pgvector (issue 37): publishing this machine's units, searching everyone's.

`team_catalog` holds every SQL statement sent to PostgreSQL; `publish` decides what leaves the machine (redacted,
visible units only); `team_search` ranks the team's hits as the local engine does and merges them with the local
answer; `team_answers` is what `Engine` calls. psycopg is imported only when a team index is used (the `team` extra).
"""

from memlens.engine.team.team_catalog import TeamRefused, TeamSchemaTooNew, TeamUnavailable
from memlens.engine.team.team_search import TeamQuery

__all__ = ["TeamQuery", "TeamRefused", "TeamSchemaTooNew", "TeamUnavailable"]
