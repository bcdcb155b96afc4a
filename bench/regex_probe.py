"""Every Python regex memlens compiles at module level, tried on the inputs that make a backtracking engine slow.

The secret detectors run on RE2 (linear in the text), but values, identifiers, dates, queries and parsers use
Python's `re`, which backtracks: a repeat inside a repeat (`(?:[A-Z][A-Za-z]*)+`) can read a run of 30 characters
in 2^30 ways before it fails. Each pattern is tried with `search`, `match` and `fullmatch` on a prefix, a run of one
unit repeated to about 30 characters, and a tail that makes the match fail; the slowest try of each pattern is
printed, slowest first. A pattern over 10 ms here is one a transcript line can stall.

    python -m bench.regex_probe [--length 30] [--top 10]
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: `memlens` from the tree, and bench/secrets.py not taken for the
    sys.path[0] = str(Path(__file__).resolve().parents[1] / "server")  # stdlib's `secrets` that starlette imports

import memlens

UNITS = [*"aA0 -_./%[\\\"'é日:=,;()#*@$\t\n`{}<>|", "aB", "a ", "a-", "a.", "a/", "%s", "Ab", "a1", "- ", "::"]
PREFIXES = ("", "a", "A", "x=", "%", "-", " ")
TAILS = ("!", "1", "\x00", "_", " ", "", "\n", "%", "é")


def module_patterns() -> dict[str, re.Pattern[str]]:
    """The compiled patterns of every memlens module, by `module.NAME` (`__main__` left out: it runs the CLI)."""
    found: dict[str, re.Pattern[str]] = {}
    for info in pkgutil.walk_packages(memlens.__path__, "memlens."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                found[f"{info.name}.{name}"] = value
    return found


def slowest_try(pattern: re.Pattern[str], length: int) -> tuple[float, str]:
    """The longest a single try took (seconds, CPU) and the input that took it."""
    worst = (0.0, "")
    for unit in UNITS:
        for prefix in PREFIXES:
            for tail in TAILS:
                text = prefix + unit * max(1, length // len(unit)) + tail
                for attempt in (pattern.search, pattern.match, pattern.fullmatch):
                    started = time.process_time()
                    attempt(text)
                    spent = time.process_time() - started
                    if spent > worst[0]:
                        worst = (spent, f"{attempt.__name__}({text!r})")
    return worst


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=30, help="characters of the repeated run")
    parser.add_argument("--top", type=int, default=10, help="patterns printed, slowest first")
    args = parser.parse_args(argv)
    patterns = module_patterns()
    timed = sorted(((*slowest_try(p, args.length), name) for name, p in patterns.items()), reverse=True)
    print(f"{len(patterns)} patterns, runs of {args.length} characters; slowest try of each (CPU ms):")
    for spent, text, name in timed[: args.top]:
        print(f"  {spent * 1000:9.2f}  {name}  {text[:70]}")


if __name__ == "__main__":
    main()
