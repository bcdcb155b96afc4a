"""An index built with redaction off (or by an older detector) is read again once redaction at index time is on: the
secrets it stored unmasked do not linger in the catalog or the keyword index
(`stored_text.reparse_if_redaction_changed`, run when the writer opens the index)."""

from __future__ import annotations

from pathlib import Path

from memlens.engine.engine import Engine
from memlens.settings import Settings

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"  # a GitHub token's shape


def _settings(*, redact: bool) -> Settings:
    settings = Settings()
    settings.privacy.redact_index = redact
    return settings


def _stored(engine: Engine) -> str:
    return "\n".join(str(row[0]) for row in engine.catalog.db.execute("SELECT text FROM plain_units"))


def test_turning_redaction_on_reads_every_file_again_and_masks_what_was_stored(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "deploy.md").write_text(f"# Deploy\n\nThe CI pushes with {TOKEN} to the registry.\n")
    index_dir = tmp_path / "index"
    with Engine([workspace], _settings(redact=False), index_dir=index_dir, embedder=False) as engine:
        assert engine.sync().files_parsed == 1
        assert TOKEN in _stored(engine)  # stored as written: only the door masks it
        assert engine.keyword.search(engine.keyword.parse(TOKEN.lower()), 10)
    with Engine([workspace], _settings(redact=True), index_dir=index_dir, embedder=False) as engine:
        report = engine.sync()
        assert report.files_parsed == 1 and report.files_unchanged == 0  # the unchanged file was read again
        stored = _stored(engine)
        assert TOKEN not in stored and "[REDACTED:github-token]" in stored
        assert not engine.keyword.search(engine.keyword.parse(TOKEN.lower()), 10)
    with Engine([workspace], _settings(redact=True), index_dir=index_dir, embedder=False) as engine:
        report = engine.sync()
        assert report.files_parsed == 0 and report.files_unchanged == 1  # once: the stamp now matches
