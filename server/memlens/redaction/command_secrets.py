"""Secrets a shell command carries where ``patterns`` reads none: a value set into a tool's config, or given
positionally or in a tool's own syntax (``sqlplus user/PW@db``, ``xfreerdp /p:PW``). A value handed to a command on
its standard input is ``stdin_secrets``'.

A coding agent runs these commands and its transcript keeps them verbatim. Each detector is anchored on the tool's
name and the form that takes the secret, so the same words elsewhere (``echo hello``, ``git config user.name``) stay.
"""

from __future__ import annotations

from memlens.redaction.detector import Detector
from memlens.redaction.patterns import VALUE, VALUE_GROUPS, kind_of_key
from memlens.redaction.values import Evidence

# A word of a command that names a secret: what a config key holding one contains ("pypi-token.pypi", "_authToken").
_SECRET_WORD = r"(?i:secret|token|passw|api[_-]?key|access[_-]?key)"
# net use's password: quoted, or a word that is not its next option (`/persistent:no`), `*` (which asks for it) nor the
# "net" of a next `net use` (messages joined into one line, as a chunk's text is: a match that took that word as the
# password ended past it, and the next command's password was never read)
_NET_USE_VALUE = (
    r"(?:\"(?P<dq>[^\"\n]*)\"|(?P<bare>[Nn][Ee][Tt]\S+|[Nn][Ee][^\sTt]\S*|[Nn][^\sEe]\S*|[Nn][Ee]?"
    r"|[^\s\"'/*Nn]\S*)(?:\s|$))"
)
# The start of a command: a line's start or a shell separator before the tool's name.
_COMMAND = r"(?:^|[\s;&|(`'\"])"


def _strong(kind: str, pattern: str, groups: tuple[str, ...] = VALUE_GROUPS) -> Detector:
    return Detector(kind=kind, pattern=pattern, secret_groups=groups, evidence=Evidence.STRONG)


COMMAND_DETECTORS = [
    # aws configure set aws_secret_access_key X, npm config set //host/:_authToken X, poetry config pypi-token.pypi X,
    # ngrok config add-authtoken X
    Detector(
        kind="secret",
        pattern=rf"\b(?:config|configure)[ \t]+(?:set[ \t]+)?(?:--?[A-Za-z][A-Za-z\-]*[ \t]+)*"
        rf"(?P<key>[A-Za-z0-9_./:@\-]*{_SECRET_WORD}[A-Za-z0-9_./:@\-]*)[ \t]+{VALUE}",
        secret_groups=VALUE_GROUPS,
        evidence=Evidence.KEY,
        kind_of_key=kind_of_key,
    ),
    Detector(
        kind="token",
        pattern=rf"\bngrok[ \t]+authtoken[ \t]+{VALUE}",
        secret_groups=VALUE_GROUPS,
        evidence=Evidence.KEY,
    ),
    # 7z a -pPW, rar a -pPW, unrar x -pPW (attached only: a "-p" alone prompts for the password)
    _strong("password", rf"\b(?:7z[ar]?|rar|unrar)\b[^\n|;&]*?[ \t]-p{VALUE}"),
    # rclone config create|update NAME TYPE pass PW secret_access_key KEY …, and what `rclone obscure PW` obscures
    _strong(
        "password",
        rf"\brclone[ \t]+config[ \t]+(?:create|update)\b[^\n|;&]*?[ \t](?P<key>pass|password2?|secret_access_key"
        rf"|client_secret|token|account_key|key|bearer_token|sas_url|session_token)(?:=|[ \t]+){VALUE}",
    ),
    _strong("password", rf"\brclone[ \t]+obscure[ \t]+{VALUE}"),
    # net use Z: \\HOST\SHARE PW /user:DOMAIN\USER, or the password after /user:… ("*" prompts for it)
    *(
        Detector(
            kind="password",
            pattern=rf"\b(?i:net)[ \t]+(?i:use)\b[^\n|;&]*?[ \t]{before}[ \t]+{_NET_USE_VALUE}",
            secret_groups=("dq", "bare"),
            evidence=Evidence.STRONG,
        )
        for before in (r"\\\\\S+", r"/(?i:user|u):\S+")
    ),
    # poetry config http-basic.REPO USER PASSWORD
    _strong("password", rf"\bpoetry[ \t]+config[ \t]+http-basic\.\S+[ \t]+\S+[ \t]+{VALUE}"),
    # sqlplus scott/PW@db, sqlplus -s scott/PW@//host:1521/ORCL, and Oracle's other tools: rman target sys/PW@db,
    # expdp system/PW@orcl, sqlldr userid=scott/PW@db, dgmgrl, sql (SQLcl); SQL*Plus's CONNECT scott/PW@db
    _strong(
        "password",
        r"\b(?:sqlplus|sqlldr|rman|expdp|impdp|exp|imp|dgmgrl|sql|(?i:conn|connect))[ \t]+(?:-[A-Za-z]+[ \t]+)*"
        r"(?:(?:target|catalog|auxiliary|userid)[ \t]*=?[ \t]*)?[\"']?[A-Za-z0-9_$#]+/(?P<value>[^\s@/\"']+)@",
        ("value",),
    ),
    # xfreerdp /u:admin /p:PW
    _strong(
        "password",
        r"\b(?:xfreerdp|wlfreerdp|sdl-freerdp|freerdp)\b[^\n|;&]*?[ \t][/-]p:(?:\"(?P<dq>[^\"\n]*)\"|(?P<bare>\S+))",
        ("dq", "bare"),
    ),
    # nmcli dev wifi connect SSID password PW, nmcli con modify X wifi-sec.psk PW
    _strong(
        "password",
        rf"\bnmcli\b[^\n|;&]*?[ \t](?:password|wifi-sec\.psk|802-11-wireless-security\.psk)[ \t]+{VALUE}",
    ),
    # wpa_passphrase SSID PW
    _strong("password", rf"\bwpa_passphrase[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\S+)[ \t]+{VALUE}"),
    # rabbitmqctl add_user USER PW, rabbitmqctl change_password USER PW
    _strong("password", rf"\brabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+\S+[ \t]+{VALUE}"),
    # lftp -u USER,PW
    _strong("password", r"\blftp\b[^\n|;&]*?[ \t]-u[ \t]+[\"']?[^\s,'\"]+,(?P<value>[^\s'\"]+)", ("value",)),
    # HTTPie and xh: http -a USER:PW …, and any --auth USER:PW
    _strong(
        "password",
        rf"{_COMMAND}(?:https?|xhs?)(?:[ \t]+[^\s|;&][^\n|;&]*?)?[ \t]+-a[ \t]*[\"']?[^\s:'\"]+:(?P<value>[^\s'\"]+)",
        ("value",),
    ),
    _strong("password", r"(?:^|[\s\"'])--auth(?:=|[ \t]+)[\"']?[^\s:'\"/]+:(?P<value>[^\s'\"]+)", ("value",)),
    # ODBC and ADO.NET connection strings: …;Uid=sa;Pwd=PW; (a braced value may hold ";")
    _strong(
        "password",
        r";[ \t]*(?i:pwd)[ \t]*=[ \t]*(?:\{(?P<braced>[^}\n]*)\}|(?P<value>[^;\s\"'{][^;\r\n\"']*))",
        ("braced", "value"),
    ),
]
