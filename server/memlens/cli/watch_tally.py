"""What one `memlens watch` did, summed over its syncs, for the line it ends with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from memlens.counted import counted

if TYPE_CHECKING:
    from memlens.engine.indexing.indexer import SyncReport


@dataclass
class WatchTally:
    syncs: int = 0
    files: int = 0
    removed: int = 0
    emptied: int = 0
    messages: int = 0

    def add(self, report: SyncReport) -> None:
        self.syncs += 1
        self.files += report.files_parsed + report.files_appended
        self.removed += report.files_deleted
        self.emptied += report.files_emptied
        self.messages += report.messages_added

    def summary(self) -> str:
        if not self.syncs:
            return "no syncs in this session"
        removed = f", {self.removed:,} removed" if self.removed else ""
        removed += f", {self.emptied:,} emptied (messages removed)" if self.emptied else ""
        files, messages = counted(self.files, "file", grouped=True), counted(self.messages, "message", grouped=True)
        return f"{files} indexed{removed}, +{messages} in {counted(self.syncs, 'sync', grouped=True)}"
