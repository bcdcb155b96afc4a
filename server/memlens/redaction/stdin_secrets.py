"""Secrets handed to a command on its standard input: `echo PW | sudo -S …`, `docker login --password-stdin <<< PW`,
`cat <<EOF | passwd --stdin deploy` and the first line of the here-document.

Each shape is a way to deliver (a pipe from echo, printf, yes, Write-Output, a here-string to cat or a quoted string
PowerShell pipes itself; a here-string; a here-document) times a command that reads a secret from its standard input
(`_READERS`). A command's options are read as the command reads them, not matched as a fixed prefix: sudo's options that
take an argument (`-u root`, `-uroot`, `--user=root`, `--user root`, `-p ''`) are skipped with their argument, so `-S`
is found wherever it stands among them (alone, in a cluster `-kS`), and only among them: `sudo pacman -Syu` has none,
the `S` of `-u Sam` is a user's name, and `-ukS` is the user "kS".
"""

from __future__ import annotations

from memlens.redaction.detector import Detector
from memlens.redaction.patterns import VALUE, VALUE_GROUPS
from memlens.redaction.values import Evidence

# One shell word: quoted, or a bare run up to a space or an operator.
_WORD = r"(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s|;&<>]+)"

# sudo(8): the option letters that take no argument, those that take one (attached or as the next word), and the
# long options that take one (`--user=root`, `--user root`); any other long option is a flag or `--name=value`.
_SUDO_FLAGS = "ABbEeHiKklNnPsVv"
_SUDO_ARGUMENT_LETTERS = "CDcghpRrTtUu"
_SUDO_ARGUMENT_LONG = "user|group|prompt|close-from|chdir|chroot|host|role|type|other-user|command-timeout|login-class"
_SUDO_OPTION = (
    rf"(?:-[{_SUDO_FLAGS}]+"
    rf"|-[{_SUDO_FLAGS}]*[{_SUDO_ARGUMENT_LETTERS}](?:[^\s|;&<>]+|[ \t]+{_WORD})"
    rf"|--(?:{_SUDO_ARGUMENT_LONG})(?:=|[ \t]+){_WORD}"
    r"|--[a-z][a-z-]*(?:=[^\s|;&<>]*)?)"
)
_SUDO = rf"\bsudo(?:[ \t]+{_SUDO_OPTION})*[ \t]+(?:-[{_SUDO_FLAGS}]*S|--stdin\b)"

# htpasswd -i and smbpasswd -s read the password from standard input; their other options as sudo's are read.
_HTPASSWD = r"\bhtpasswd(?:[ \t]+(?:-[cnmBdspDv25]+|-C[ \t]*\d+))*[ \t]+-[cnmBdspDv25]*i"
_SMBPASSWD = rf"\bsmbpasswd(?:[ \t]+(?:-[adeDnmLxi]+|-[UrRc](?:[ \t]+)?{_WORD}))*[ \t]+-[adeDnmLxi]*s"

# The commands that read a secret from standard input, by the kind of secret. docker, podman, helm, oras, skopeo
# and crane's logins take --password-stdin anywhere among their words; passwd --stdin (its options in any order,
# as popt reads them), chpasswd (user:password lines), openssl's -pass/-passin/-passout stdin; gh's --with-token;
# a secret store's set (gh secret set, wrangler secret put, docker secret create, gcloud secrets create) and
# vercel env add read the value.
_READERS = {
    "password": (
        rf"(?:{_SUDO}|--password-stdin\b|\bpasswd\b[^\n|;&<]*?[ \t]--stdin\b|\bchpasswd\b|{_HTPASSWD}|{_SMBPASSWD}"
        r"|[ \t]-pass(?:in|out)?[ \t]+(?:stdin|fd:0)\b)"
    ),
    "token": r"--with-token\b",
    "secret": r"(?:\bsecrets?[ \t]+(?:set|add|put|create)\b|\benv[ \t]+add\b)",
}

# printf's format before the value it prints ("%s\n"), after an optional "--"
_PRINTF_FORMAT = r"(?:[ \t]+--)?(?:[ \t]+(?:'%[^'\n]*'|\"%[^\"\n]*\"))?"
# What writes the secret into a pipe: echo (its -n/-e flags), printf, yes, PowerShell's Write-Output, or cat of a
# here-string.
_WRITES = rf"(?:\b(?:echo(?:[ \t]+-[neE]+)*|printf{_PRINTF_FORMAT}|yes|Write-Output)[ \t]+|\bcat[ \t]*<<<[ \t]*){VALUE}"
# PowerShell pipes a string itself: a quoted literal that starts a statement ("PW" | docker login --password-stdin).
_LITERAL = r"(?:^|[\n;({])[ \t]*(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)')"
# A pipe into the reader: the pipeline's next command, or a command that runs it (env assignments, `ssh host`,
# `bash -c '…'`, a path such as /usr/bin/sudo), with or without spaces around the "|".
_PIPED_INTO = r"[ \t]*\|[^\n|;&]*?"
# A here-document's opening (`<<EOF`, `<<-'EOF'`, `<< "END"`) and the first line of its body, the secret.
_HERE_DOCUMENT = r"<<-?[ \t]*[\"']?[A-Za-z_][A-Za-z0-9_]*[\"']?"
_FIRST_LINE = r"[^\n]*\n[ \t]*(?P<line>[^\s](?:[^\n]*[^\s])?)"
# A tool call is stored on one line, its newlines read as spaces (`[Bash] sudo -S apt update <<EOF PW EOF`): the
# body's first word follows the opening at once; after `cat <<EOF | reader ARGS`, where the reader's words end is
# lost, the word before the closing delimiter (one of the usual ones) is the one line a login or passwd reads.
_FIRST_WORD = r"[ \t]+(?P<word>[^\s<>|;&]+)"
_USUAL_WORDS = "EOF|END|EOT|EOL|PASS|PW|PASSWORD|SECRET|TOKEN"
_USUAL_DELIMITER = rf"[\"']?(?:{_USUAL_WORDS})[\"']?"
_LAST_WORD = rf"[^\n]*?[ \t](?P<word>[^\s<>|;&]+)[ \t]+(?:{_USUAL_WORDS})\b"


def _strong(kind: str, pattern: str, groups: tuple[str, ...] = VALUE_GROUPS) -> Detector:
    return Detector(kind=kind, pattern=pattern, secret_groups=groups, evidence=Evidence.STRONG)


def _detectors(kind: str, reader: str) -> list[Detector]:
    return [
        # echo 'PW' | sudo -u root -S apt update, printf '%s\n' PW|passwd --stdin deploy, yes PW | …
        _strong(kind, rf"{_WRITES}{_PIPED_INTO}{reader}"),
        # "PW" | docker login -u ci --password-stdin
        _strong(kind, rf"{_LITERAL}{_PIPED_INTO}{reader}", ("dq", "sq")),
        # sudo -S reboot <<< PW, gh auth login --with-token <<< T
        _strong(kind, rf"{reader}[^\n|;&<]*<<<[ \t]*{VALUE}"),
        # sudo -S apt update <<EOF, then PW on the next line (or, a tool call's one line, after it)
        _strong(kind, rf"{reader}[^\n|;&<]*{_HERE_DOCUMENT}(?:{_FIRST_LINE}|{_FIRST_WORD})", ("line", "word")),
        # cat <<EOF | sudo -S apt update, then PW on the next line
        _strong(kind, rf"\bcat[ \t]+{_HERE_DOCUMENT}{_PIPED_INTO}{reader}{_FIRST_LINE}", ("line",)),
        # the same on one line: cat <<EOF | passwd --stdin deploy PW EOF
        _strong(kind, rf"\bcat[ \t]+<<-?[ \t]*{_USUAL_DELIMITER}{_PIPED_INTO}{reader}{_LAST_WORD}", ("word",)),
    ]


STDIN_DETECTORS = [detector for kind, reader in _READERS.items() for detector in _detectors(kind, reader)]
