"""One typed settings tree with defaults, read from LSP options, the workspace's .memlens.json and CLI flags.

Keys are camelCase on the wire (as VS Code's `memlens.*` settings) and snake_case in Python. The tree is validated
as a whole: every number is range-checked against the bounds its field declares (`between`), pairs of fields are
cross-checked (`RULES`), and settings that change where memlens reads or writes apply from a workspace's
`.memlens.json` only when the workspace is trusted (`TRUST_SETTINGS`). A bad value produces one warning naming the
setting, the value and what is kept instead: a bad setting never stops the server or the CLI.

The tree is declared in tree.py; values.py checks one value and names it on the wire; layers.py merges and
validates; workspace_file.py reads `.memlens.json`. This face hands their public names on.
"""

from memlens.settings.layers import RULES, Rule, merge, problems
from memlens.settings.tree import (
    CLIENT_ONLY,
    DEFAULT_MEMORY_GLOBS,
    MAX_STRING_CHARS,
    TRUST_OPTION,
    TRUST_SETTINGS,
    WORKSPACE_CONFIG_FILE,
    ChunkingSettings,
    EmbeddingSettings,
    Fusion,
    HoverSettings,
    MemorySettings,
    Mode,
    PrivacySettings,
    RerankerSettings,
    Scope,
    SearchSettings,
    Settings,
    TeamSettings,
    TranscriptSettings,
    between,
    relative_globs,
)
from memlens.settings.values import TRUST_PATHS, camel_case, to_wire, wire_name
from memlens.settings.workspace_file import load_workspace_file, read_settings_json, unreadable_cause, workspace_trusted

__all__ = [
    "CLIENT_ONLY",
    "DEFAULT_MEMORY_GLOBS",
    "MAX_STRING_CHARS",
    "RULES",
    "TRUST_OPTION",
    "TRUST_PATHS",
    "TRUST_SETTINGS",
    "WORKSPACE_CONFIG_FILE",
    "ChunkingSettings",
    "EmbeddingSettings",
    "Fusion",
    "HoverSettings",
    "MemorySettings",
    "Mode",
    "PrivacySettings",
    "TeamSettings",
    "RerankerSettings",
    "Rule",
    "Scope",
    "SearchSettings",
    "Settings",
    "TranscriptSettings",
    "between",
    "camel_case",
    "load_workspace_file",
    "read_settings_json",
    "merge",
    "problems",
    "relative_globs",
    "to_wire",
    "unreadable_cause",
    "wire_name",
    "workspace_trusted",
]
