"""What a sync's reading reports through its `Progress`: the bar measured in the bytes to read, not in files, so one
huge transcript read a slice at a time (file_reader.SLICE_BYTES) moves the bar and states how far into the file it
is; a sync of many small files moves as it did, a file at a time. The message still counts the files (and their
rate): `reading files 3/5 · 40% of a 312 MB file` while a slice of a huge one commits."""

from __future__ import annotations

from memlens.counted import megabytes
from memlens.engine.progress import Progress, RateMeter

REPORT_EVERY_FILES = 50  # a file read is said at every this many (a slice, which takes a while, always)


class ReadingProgress:
    """The reading part of one sync: `files` changed files to read, `total_bytes` the bytes reading them takes (a
    grown file's new tail, else the whole file); `already` files need no reading (unchanged)."""

    def __init__(self, progress: Progress | None, *, files: int, already: int, total_bytes: int) -> None:
        self.progress = progress
        self.total_files = files + already
        self.files_done = already
        self.total_bytes = total_bytes
        self.bytes_done = 0  # of the files read whole
        self.meter = RateMeter(already=already)  # the rate and time left of the files read, not of those skipped

    def file_read(self, to_read: int) -> None:
        """A file is read (its `to_read` bytes): said at every REPORT_EVERY_FILES files."""
        self.files_done += 1
        self.bytes_done += to_read
        if self.files_done % REPORT_EVERY_FILES == 0 and self.files_done < self.total_files:
            self._say(self.bytes_done, "")

    def within_file(self, read: int, to_read: int, size: int) -> None:
        """A slice of a huge file is in: `read` of the file's `to_read` bytes (a file of `size` bytes)."""
        read = max(0, min(read, to_read))
        share = f" · {100 * read // max(1, to_read)}% of a {megabytes(size)} file"
        self._say(self.bytes_done + read, share)

    def finish(self) -> None:
        """Every file read (said after the last batch, not before: a rate taken then counts the reading)."""
        self.files_done = self.total_files
        self._say(self.total_bytes, "")

    def _say(self, done_bytes: int, share: str) -> None:
        if self.progress is None:
            return
        files = "reading files " + self.meter.status(self.files_done, self.total_files) + share
        if self.total_bytes > 0:
            self.progress(min(done_bytes, self.total_bytes), self.total_bytes, files)
        else:  # nothing to read but files to look at: the files' count is the bar
            self.progress(self.files_done, self.total_files, files)
