"""The reads a search's references are made from, for all its hits at once (`Catalog.sessions_of_ids`,
`Catalog.prefixes_shared`), give what the reads for one hit give: the same sessions and neighbours, the same verdict
on a message id's first eight characters, so the same references."""

from __future__ import annotations

import json
from pathlib import Path

from memlens.engine.answers.references import MESSAGE_CHARS, _join, _message_part, session_reference
from memlens.engine.answers.visibility import Visibility
from memlens.engine.engine import Engine
from memlens.settings import Settings

MAIN = "5e551011-aaaa-4bbb-8ccc-000000000001"
TWIN = "5e551011-ffff-4bbb-8ccc-000000000002"  # the same first eight characters as MAIN
OTHER = "9f00aa11-0000-4000-8000-000000000003"
# message ids: two sharing their first eight characters, one that is another's first eight, one differing from
# another only in case (LIKE ignores ASCII case), and LIKE's wildcards, which must match only themselves
MESSAGES = {
    MAIN: ["c0ffee00-0001", "c0ffee00-0002", "c0ffee00", "beefcafe-0003"],
    TWIN: ["BEEFCAFE-0004", "beefcafe-0005", "x_y%z123-0006", "x_yqz123-0007"],
    OTHER: ["d00dfeed-0008"],
}


def _engine(tmp_path: Path) -> Engine:
    claude = tmp_path / "transcripts" / "claude-code"
    claude.mkdir(parents=True)
    for session, ids in MESSAGES.items():
        lines = [
            {
                "parentUuid": None,
                "type": role,
                "sessionId": session,
                "cwd": "/home/dev/kiln",
                "uuid": uuid,
                "timestamp": f"2026-03-02T09:{minute:02d}:00.000Z",
                "message": {"role": role, "content": f"the kiln thermocouple reading {session[-2:]} number {minute}"},
            }
            for minute, uuid in enumerate(ids)
            for role in ["user" if minute % 2 == 0 else "assistant"]
        ]
        (claude / f"{session}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    (tmp_path / "ws").mkdir()
    settings = Settings()
    settings.transcripts.agent_defaults = False
    engine = Engine(
        [tmp_path / "ws"],
        settings,
        extra_transcripts=[tmp_path / "transcripts"],
        index_dir=tmp_path / "i",
        embedder=False,
    )
    engine.sync()
    return engine


def _one_by_one(engine: Engine, key: str, message_id: str) -> bool:
    """Whether a message id's first eight characters fail to name it alone, read as a single hit's reference is."""
    part = message_id[:MESSAGE_CHARS]
    alone = engine.catalog.message_seq(key, part) is None
    return not (alone and engine.catalog.message_ids_with_prefix(key, part) == [message_id])


def test_the_sessions_and_neighbours_of_several_ids_are_those_of_each(tmp_path: Path) -> None:
    with _engine(tmp_path) as engine:
        catalog = engine.catalog
        known = catalog.sessions_of_ids([MAIN, TWIN, OTHER, "no-such-session"])
        assert set(known) == {MAIN, TWIN, OTHER}  # an id no session has is left out
        for session_id, read in known.items():
            assert read.neighbours == catalog.neighbour_session_ids(session_id)
            assert [dict(r) for r in catalog.sessions_of_id(session_id)] == [
                {k: v for k, v in dict(r).items() if k not in ("id_before", "id_after")} for r in read.rows
            ]
        assert known[MAIN].neighbours == [TWIN]  # MAIN is the first id: it has no neighbour before it
        assert known[TWIN].neighbours == [MAIN, OTHER]


def test_a_message_ids_first_characters_are_judged_as_for_one_hit(tmp_path: Path) -> None:
    with _engine(tmp_path) as engine:
        asked = [(f"claude-code:{s}", m) for s, ids in MESSAGES.items() for m in ids]
        asked += [(f"claude-code:{OTHER}", "c0ffee00-0001")]  # a message of another session: not named alone here
        shared = engine.catalog.prefixes_shared(asked, MESSAGE_CHARS)
        assert shared == [_one_by_one(engine, key, m) for key, m in asked]
        verdict = dict(zip([m for _, m in asked[:-1]], shared[:-1], strict=True))
        assert verdict["c0ffee00-0001"] and verdict["c0ffee00-0002"] and verdict["beefcafe-0003"] is False
        assert verdict["BEEFCAFE-0004"] and verdict["beefcafe-0005"]  # LIKE ignores ASCII case
        assert not verdict["x_y%z123-0006"] and not verdict["x_yqz123-0007"]  # the wildcards match themselves only
        assert shared[-1]


def test_a_searchs_references_are_those_made_one_hit_at_a_time(tmp_path: Path) -> None:
    with _engine(tmp_path) as engine:
        hits = engine.search("kiln thermocouple reading", mode="keyword", min_score=0, limit=20)["results"]
        assert len({h["sessionId"] for h in hits}) == 3
        visibility = Visibility()
        for hit in hits:
            key, session_id, message = str(hit["sessionKey"]), str(hit["sessionId"]), str(hit["messageId"])
            part = _message_part(engine.catalog, key, message)
            made = _join(session_reference(engine.catalog, key, session_id, visibility, message=part), part)
            assert hit["reference"] == made
