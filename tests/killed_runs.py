"""Run a command and kill it at a random moment, again and again, as a crash would: what the fault tests share."""

from __future__ import annotations

import random
import signal
import subprocess
from collections.abc import Sequence


def killed_at_random(command: Sequence[str], *, seed: int, tries: int, within: tuple[float, float]) -> int:
    """Start `command` up to `tries` times, each one killed (SIGKILL) after a random wait of `within` seconds unless
    it finished first, which ends the runs (it must have exited 0). How many runs were killed."""
    rng = random.Random(seed)
    kills = 0
    for _ in range(tries):
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            process.wait(timeout=rng.uniform(*within))
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.wait()
            kills += 1
            continue
        assert process.returncode == 0
        break
    return kills
