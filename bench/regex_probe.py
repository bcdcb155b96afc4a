"""Every Python regex memlens compiles, tried on the inputs that make a backtracking engine slow.

The secret detectors run on RE2 (linear in the text), but values, identifiers, dates, queries and parsers use
Python's `re`, which backtracks: a repeat inside a repeat (`(?:[A-Z][A-Za-z]*)+`) can read a run of 30 characters
in 2^30 ways before it fails. Each pattern is tried with `search`, `match` and `fullmatch` on a prefix, a run of one
unit repeated to about 30 characters, and a tail that makes the match fail; the slowest try of each pattern is
printed, slowest first. A pattern over 10 ms here is one a transcript line can stall.

The patterns are those a module holds once imported (at its top level, in its tables: lists, tuples, dicts, and its
classes' attributes) and those written as a literal in a call inside a function (`re.sub(r"…", …)`, with literal
flags). A pattern built from pieces at run time inside a function is not seen; the count of such calls is printed.

    python -m bench.regex_probe [--length 30] [--top 10]
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import pkgutil
import re
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType

if __package__ in (None, ""):  # run as a script: `memlens` from the tree, and bench/secrets.py not taken for the
    sys.path[0] = str(Path(__file__).resolve().parents[1] / "server")  # stdlib's `secrets` that starlette imports

import memlens

UNITS = [*"aA0 -_./%[\\\"'é日:=,;()#*@$\t\n`{}<>|", "aB", "a ", "a-", "a.", "a/", "%s", "Ab", "a1", "- ", "::"]
PREFIXES = ("", "a", "A", "x=", "%", "-", " ")
TAILS = ("!", "1", "\x00", "_", " ", "", "\n", "%", "é")


RE_CALLS = {"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"}


def module_patterns() -> dict[str, re.Pattern[str]]:
    """The compiled patterns of every memlens module, by `module.NAME` (a table's row: `module.NAME[2][0]`; a class's:
    `module.Class.NAME`), and those written as literals in its functions' calls, by `module:LINE` (`__main__` left
    out: it runs the CLI)."""
    found: dict[str, re.Pattern[str]] = {}
    for info in pkgutil.walk_packages(memlens.__path__, "memlens."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            for where, pattern in _held(value, module.__name__):
                found[f"{info.name}.{name}{where}"] = pattern
        for line, pattern in _literal_calls(module)[0]:
            found.setdefault(f"{info.name}:{line}", pattern)
    return _distinct(found)


def unseen_calls() -> int:
    """Calls of `re` functions in memlens's functions whose pattern is built at run time: not probed."""
    total = 0
    for info in pkgutil.walk_packages(memlens.__path__, "memlens."):
        if not info.name.endswith("__main__"):
            total += _literal_calls(importlib.import_module(info.name))[1]
    return total


def _held(value: object, module: str, depth: int = 0) -> Iterator[tuple[str, re.Pattern[str]]]:
    """The patterns `value` is or holds: in a list, tuple, set or dict (keys and values), or a class of `module`."""
    if isinstance(value, re.Pattern):
        if isinstance(value.pattern, str):
            yield "", value
        return
    if depth >= 4:
        return
    if isinstance(value, (list, tuple)):
        items: Iterable[tuple[str, object]] = ((f"[{i}]", item) for i, item in enumerate(value))
    elif isinstance(value, (set, frozenset)):
        items = (("[]", item) for item in value)
    elif isinstance(value, dict):
        items = ((f"[{key!r}]", item) for key, item in [*((k, k) for k in value), *value.items()])
    elif isinstance(value, type) and value.__module__ == module:
        items = ((f".{name}", item) for name, item in vars(value).items())
    else:
        return
    for where, item in items:
        for inner, pattern in _held(item, module, depth + 1):
            yield where + inner, pattern


def _literal_calls(module: ModuleType) -> tuple[list[tuple[int, re.Pattern[str]]], int]:
    """The patterns written as a literal in `re.compile(…)`, `re.sub(…)` and the like in `module`'s functions, by
    line, and how many such calls there build their pattern at run time."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return [], 0
    literal: list[tuple[int, re.Pattern[str]]] = []
    built = 0
    functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    calls = {id(node): node for function in functions for node in ast.walk(function)}  # a module's own: vars()
    for node in calls.values():
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in RE_CALLS
            and node.args
        ):
            continue
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            flags = _literal_flags(node)
            if flags is not None:
                literal.append((node.lineno, re.compile(first.value, flags)))
                continue
        built += 1
    return literal, built


def _literal_flags(call: ast.Call) -> int | None:
    """The flags a call passes as `re.I`, `re.I | re.M` (positional after the pattern's arguments, or `flags=`), 0
    when none; None when they are not literal."""
    arguments = [k.value for k in call.keywords if k.arg == "flags"]
    positional = {"compile": 1, "search": 2, "match": 2, "fullmatch": 2, "split": 3, "findall": 2, "finditer": 2}
    at = positional.get(call.func.attr) if isinstance(call.func, ast.Attribute) else None
    if at is not None and len(call.args) > at:
        arguments.append(call.args[at])
    flags = 0
    for argument in arguments:
        for name in _or_names(argument):
            if name is None or not isinstance(getattr(re, name, None), re.RegexFlag):
                return None
            flags |= getattr(re, name)
    return flags


def _or_names(node: ast.expr) -> Iterator[str | None]:
    """`re.I | re.M` as "I", "M"; anything else as None."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        yield from _or_names(node.left)
        yield from _or_names(node.right)
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "re":
        yield node.attr
    else:
        yield None


def _distinct(found: dict[str, re.Pattern[str]]) -> dict[str, re.Pattern[str]]:
    """One name for each pattern (the same object or the same source and flags are probed once)."""
    seen: set[tuple[str, int]] = set()
    distinct: dict[str, re.Pattern[str]] = {}
    for name, pattern in found.items():
        key = (pattern.pattern, pattern.flags)
        if key not in seen:
            seen.add(key)
            distinct[name] = pattern
    return distinct


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
    print(
        f"{len(patterns)} patterns, runs of {args.length} characters; slowest try of each (CPU ms); "
        f"{unseen_calls()} calls build their pattern at run time (not probed):"
    )
    for spent, text, name in timed[: args.top]:
        print(f"  {spent * 1000:9.2f}  {name}  {text[:70]}")


if __name__ == "__main__":
    main()
