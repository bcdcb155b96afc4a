"""Does a query look like an error or a log line, or ask for one? Read once into ParsedQuery.error_like: tool output
(kind "tool") then competes in full with prose; otherwise it ranks below it (ranking/rescoring.py
`demote_tool_results`), since most questions are about what was said and decided, not what a command printed. A
line pasted from a command's output that reports no error ("applied: 3118 skipped (dup key): 9") is read apart
(ParsedQuery.output_like): it asks for that output as an error does."""

from __future__ import annotations

import re

# Pasted from an output: an exception name with its message, a traceback's lines, a panic, a diagnostic's place
# (file:line), an exit status, a failed test, a JS frame, an errno name or its message (strerror), a shell's complaint.
_PASTED = re.compile(
    r"""
      \b\w*(?:Error|Exception|Interrupt)\b\s*:                   # ValueError: …, TypeError: …
    | \(\w*(?:Error|Exception)\)                                  # Elixir's ** (RuntimeError) …
    | \bcommand\ not\ found\b | :\ not\ found$                    # bash/zsh, sh: 1: foo: not found
    | \bis\ not\ recognized\ as\ (?:an\ internal\ or\ external\ command|the\ name\ of\ a\ cmdlet) # cmd, PowerShell
    | \b(?i:no\ such\ file\ or\ directory|permission\ denied|operation\ not\ permitted|connection\ refused
        |address\ already\ in\ use|no\ space\ left\ on\ device|too\ many\ open\ files|segmentation\ fault
        |core\ dumped|could\ not\ resolve\ host|broken\ pipe)\b      # strerror's words (Go's are lower-case)
    | \b(?:error|warning|fatal|panic|FAILED|ERR!)(?:\[\w+\])?\s*: # error: …, error[E0308]: …, npm ERR!
    | Traceback\ \(most\ recent\ call\ last\)
    | \bFile\ "[^"]+",\ line\ \d+
    | \bpanicked\ at\b
    | [\w./-]+\.\w{1,5}:\d+(?::\d+)?\b                            # src/app.py:12 or :12:5
    | [\w./-]+\.\w{1,5}\(\d+,\d+\)                                 # tsc's file.ts(14,7)
    | \bexit(?:ed)?\ (?:code|status|with)\ *:?\ *-?\d+
    | \bE[A-Z]{3,}\b(?=:|\s)                                        # ENOENT, EACCES
    | \bTS\d{4}\b | \b[A-Z]{1,3}\d{3,4}\b(?=\s)                     # tsc and ruff codes
    | \bat\ [\w.$<>]+\ \([^)]*:\d+:\d+\)                           # a JS stack frame
    | ^\s*(?:FAILED|ERROR)\b
    """,
    re.VERBOSE | re.MULTILINE,
)
# Asking for that kind in words: "the traceback when …", "which test failed", "the stack trace".
_ASKS = re.compile(
    r"\b(?:errors?|exceptions?|tracebacks?|stack\s*traces?|stacktraces?|panics?|crash(?:ed|es)?|fail(?:ed|s|ing|ure)?"
    r"|exit\s+codes?|linter|lint|warnings?|diagnostics?|log\s+lines?|tool\s+output)\b",
    re.IGNORECASE,
)

# Asking what a command printed: "the output of bd ready", "its stderr", "what did git status print" (print ending the
# question: "what did we print on the invitations" asks about prose), "what was in mix.exs when it was read", "the
# contents of config.toml" (a file's name: "what was in the box" is prose). A tool output's header names its call
# (sources/tool_output.py), so the command's words find it once it competes in full.
_ASKS_OUTPUT = re.compile(
    r"\b(?:output|stdout|stderr)\s+(?:of|from)\b|\bstd(?:out|err)\b"
    r"|\bwhat\s+did\s+\S.{0,80}?\s(?:print|output)\s*\??\s*$"
    r"|\b(?:what\s+was\s+in|contents?\s+of)\s+(?:the\s+)?[\w./~-]*\w\.[a-z]\w{0,4}\b",
    re.IGNORECASE | re.MULTILINE,
)


def looks_like_error(text: str) -> bool:
    """True for a pasted error or log line, or a query that asks about errors, failures or tool output."""
    return _PASTED.search(text) is not None or _ASKS.search(text) is not None or asks_for_output(text)


def asks_for_output(text: str) -> bool:
    """True for a question about what a command printed ("the output of bd ready", "what did git status print")."""
    return _ASKS_OUTPUT.search(text) is not None


# What a command prints and people rarely type: a value after its label, a duration, share or size as tools print
# them, a progress bar's share, a build step's marker, a word followed by a note in parentheses.
_OUTPUT = re.compile(
    r"""
      \b[a-z][\w ]{0,30}:\ *-?\d                                       # applied: 3118, failed: 0
    | \b\d+(?:\.\d+)?\ ?(?:ms|s|%|[KMGT]i?B)(?=\s|$|[),;])            # 0.58s, 41 ms, 4.1 MiB
    | \[\ *\d{1,3}%\]                                                  # [100%]
    | ^\s*(?:==>|-->|\+\+\+|\*\*\*|\#\d+\ )                            # ==> packaging, #5 [build 2/4]
    | \b[a-z]+\ \([a-z][^()?]{0,40}\)                                   # skipped (dup key)
    """,
    re.VERBOSE | re.IGNORECASE | re.MULTILINE,
)
# A question is asked, not pasted: "what did we do on 2026-02-10: the deploy (prod)?"
_QUESTION = re.compile(
    r"\?\s*$|^\s*(?:what|which|who|whom|whose|when|where|why|how|did|does|do|is|are|was|were|can|could|should)\b", re.I
)


def looks_like_output(text: str) -> bool:
    """True for a line pasted from a command's output (a count after its label, a duration, `[100%]`, a step's
    `==>`), not asked as a question."""
    return _OUTPUT.search(text) is not None and not reads_as_question(text)


def reads_as_question(text: str) -> bool:
    """True for a text asked, not pasted: it ends with a question mark or starts with a question word."""
    return _QUESTION.search(text) is not None
