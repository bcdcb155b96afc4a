"""The peak resident memory of a server process under test (Linux's VmHWM), to hold a bound on what it may hold."""

from __future__ import annotations

from pathlib import Path


def peak_rss_kb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))
