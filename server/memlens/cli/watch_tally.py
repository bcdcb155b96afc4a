"""What one `memlens watch` did, summed over its syncs, for the line it ends with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memlens.engine.indexing.indexer import SyncReport


@dataclass
class WatchTally:
    syncs: int = 0
    files: int = 0
    removed: int = 0
    messages: int = 0

    def add(self, report: SyncReport) -> None:
        self.syncs += 1
        self.files += report.files_parsed + report.files_appended
        self.removed += report.files_deleted
        self.messages += report.messages_added

    def summary(self) -> str:
        if not self.syncs:
            return "no syncs in this session"
        plural = "s" if self.files != 1 else ""
        removed = f", {self.removed:,} removed" if self.removed else ""
        return (
            f"{self.files:,} file{plural} indexed{removed}, +{self.messages:,} messages in {self.syncs:,} "
            f"sync{'s' if self.syncs != 1 else ''}"
        )
