"""One ``Settings`` object, read from ``MEMVAULT_*`` environment variables (nested with
``__``, e.g. ``MEMVAULT_RECALL__K=30``). Defaults run embedded, offline, with no servers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from memvault.config.dream import (
    ConsolidateSettings,
    DreamSettings,
    GateSettings,
    HygieneSettings,
    MaintenanceSettings,
    ReviewSettings,
    TierSettings,
    UpdateSettings,
)
from memvault.config.graph import GraphSettings, LintSettings
from memvault.config.persona import PersonaSettings
from memvault.config.recall import RecallSettings
from memvault.config.surfaces import (
    PlanSettings,
    PrefetchSettings,
    ProfileSettings,
    SyncSettings,
)

__all__ = [
    "DEFAULT_SECRET",
    "ConsolidateSettings",
    "DreamSettings",
    "FoldSettings",
    "GateSettings",
    "GraphSettings",
    "HygieneSettings",
    "IndexSettings",
    "LintSettings",
    "MaintenanceSettings",
    "PersonaSettings",
    "PlanSettings",
    "PrefetchSettings",
    "ProfileSettings",
    "RecallSettings",
    "ReviewSettings",
    "ServerSettings",
    "Settings",
    "SyncSettings",
    "TierSettings",
    "UpdateSettings",
]

DEFAULT_SECRET = "change-me"


class ServerSettings(BaseModel):
    redis_url: str | None = Field(
        default=None,
        description="Redis for coordination and the Celery broker; None: SQLite coordination "
        "and in-process jobs.",
    )
    admin_key: str | None = Field(
        default=None, description="The API's bootstrap admin key (manages keys, namespaces)."
    )
    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=1, le=65535)
    max_body_bytes: int = Field(default=1_048_576, ge=1024, description="Larger bodies: 413.")
    dream_check_cron: str = Field(
        default="0 3 * * *",
        description="When beat checks every namespace's gate (minute hour day month weekday).",
    )
    dream_check_every_s: float | None = Field(
        default=None, gt=0, description="Instead of the cron: check every this many seconds."
    )
    dream_check_interval_s: float = Field(
        default=3600.0, gt=0, description="memvault serve: how often the in-process check runs."
    )
    auth_max_failures: int = Field(
        default=10, ge=1, description="Failed authentications from one client before a block."
    )
    auth_window_s: float = Field(default=60.0, gt=0, description="...counted over this window.")
    auth_block_s: float = Field(
        default=60.0, gt=0, description="How long a blocked client gets 429 (Retry-After)."
    )
    task_visibility_timeout_s: int = Field(
        default=3600,
        ge=1,
        description="A task a dead worker held is delivered again after this (Redis broker).",
    )
    json_logs: bool = Field(
        default=False, description="One JSON line per request and per job on stderr."
    )


class FoldSettings(BaseModel):
    """One evolving digest per (namespace, memory type) and the session-start primer."""

    budget_tokens: int = Field(
        default=350,
        ge=20,
        le=20_000,
        description="Hard size of one type's digest (tokens: o200k_base, or characters / 4 "
        "without the llm extra), "
        "enforced in code after the model answers.",
    )
    batch_notes: int = Field(
        default=40, ge=1, le=1000, description="New episodes given to the model per call."
    )
    history: int = Field(
        default=3, ge=0, le=50, description="Earlier digests kept with each cell (for undo)."
    )
    primer_tokens: int = Field(
        default=2000, ge=50, le=100_000, description="Default hard budget of the primer."
    )


class IndexSettings(BaseModel):
    """How the embedded (SQLite) store searches large namespaces. The Cypher stores use
    their servers' own indexes and ignore these."""

    ann_min_vectors: int = Field(
        default=20_000,
        ge=1,
        description="From this many vectors of one kind in a namespace, dense search uses an "
        "approximate index (usearch HNSW, saved beside the database); below it, exact.",
    )
    ann_connectivity: int = Field(default=16, ge=4, le=64, description="HNSW links per node.")
    ann_expansion_add: int = Field(
        default=64, ge=8, le=1024, description="HNSW candidate list while building."
    )
    ann_expansion_search: int = Field(
        default=128,
        ge=8,
        le=4096,
        description="HNSW candidate list while searching (at least the hits asked for).",
    )
    common_term_share: float = Field(
        default=0.05,
        gt=0,
        le=1,
        description="A query word found in more than this share of a namespace's records is "
        "left out of the keyword search while a rarer word remains.",
    )
    common_term_min_records: int = Field(
        default=100,
        ge=1,
        description="Namespaces with fewer records keep every query word in keyword search "
        "(too few records to tell a common word).",
    )
    keyword_scored_matches: int = Field(
        default=500,
        ge=1,
        description="When a keyword query's words match more records than this in all, each "
        "word's newest this many matches are ranked by the idf of the words they contain "
        "instead of by bm25 over every match (FTS5 scores every match, a few µs each).",
    )


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="MEMVAULT_", env_nested_delimiter="__", env_ignore_empty=True, extra="ignore"
    )

    mode: Literal["embedded", "server"] = "embedded"
    data_dir: Path = Field(default=Path.home() / ".memvault")
    db_path: Path | None = Field(default=None, description="Default: <data_dir>/memvault.db")
    default_namespace: str = "default"
    store: Literal["sqlite", "falkordb", "neo4j"] = Field(
        default="sqlite",
        description="sqlite: the file at db_path; falkordb / neo4j: the Cypher store at graph_url",
    )
    graph_url: str | None = Field(
        default=None, description="redis://host:port (FalkorDB) or bolt:// / neo4j:// (Neo4j)."
    )
    graph_name: str = Field(default="memvault", description="FalkorDB: the graph's key.")
    neo4j_user: str = "neo4j"
    neo4j_password: str | None = None
    neo4j_database: str | None = None
    embedder: Literal["auto", "minilm", "hashing", "litellm"] = Field(
        default="auto",
        description="auto: all-MiniLM-L6-v2 when torch is installed, else the hashing "
        "fallback; litellm: the embedding API `embedder_model` names, through litellm",
    )
    embedder_mock_vector: list[float] | None = Field(
        default=None,
        description="embedder=litellm: litellm answers every text with this vector and makes "
        "no network call (its mock_response: for trying a configuration offline, and tests).",
    )
    embedder_runtime: Literal["auto", "onnx", "torch"] = Field(
        default="auto",
        description="How all-MiniLM-L6-v2 runs. auto: ONNX Runtime when installed (exported "
        "once from the packaged weights into <data_dir>/models), else PyTorch.",
    )
    embedder_model: str | None = Field(
        default=None,
        description="Another sentence-transformers model, by its directory or the installed "
        "Python package that ships it (never downloaded); unset: all-MiniLM-L6-v2. A "
        "namespace keeps the model and dimension its vectors were made with: another "
        "dimension is refused until `memvault reembed`.",
    )
    embedder_device: Literal["auto", "cpu", "cuda"] = Field(
        default="auto",
        description="Where the embedding model runs. auto: a CUDA GPU when one is usable "
        "(ONNX Runtime's CUDA provider, or torch's), else the CPU; cuda: refuse to start "
        "without one.",
    )
    embedder_precision: Literal["fp32", "int8"] = Field(
        default="fp32",
        description="all-MiniLM-L6-v2 on ONNX Runtime on the CPU. int8: its weights quantised "
        "to 8-bit integers, one text a run (about twice the long texts per second on a CPU "
        "with 8-bit dot products, vectors at cosine ≈ 0.99 to fp32's, recorded as another "
        "model: docs/benchmarks.md).",
    )
    llm_model: str | None = Field(default=None, description="A litellm model; None: offline.")
    llm_reasoning_model: str | None = None
    extract_with_rules: bool = Field(
        default=False,
        description="Extract entities and facts at write with the offline rules even when "
        "a model is configured (no model call on the write path; the dream still uses the "
        "model). Per write: `write --rules-only`, `rules_only=True`.",
    )
    llm_mock_response: str | None = Field(
        default=None,
        description="litellm answers every call with this text, without a network call (its "
        "mock_response: for trying a configured model offline, and for tests).",
    )
    llm_backoff_s: float = Field(
        default=1.0,
        ge=0.0,
        le=60.0,
        description="First wait before retrying a model call that failed transiently; it "
        "doubles each attempt (with jitter). After 3 failed calls in a row the offline rules "
        "answer for 5 minutes.",
    )
    max_content_chars: int = Field(default=8000, ge=100, le=1_000_000)
    chunk_chars: int = Field(
        default=600,
        ge=0,
        le=100_000,
        description="A text longer than this also gets one vector per window of this many "
        "characters past what the embedder's own vector reads of it (found by meaning to the "
        "end; costs "
        "embedding time at write: bench/ingest.py). 0: the first window only.",
    )
    hold_facts_below: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="Facts extracted at write with confidence below this wait in the review "
        "queue before they count (0: off).",
    )
    ingest_batch_size: int = Field(default=256, ge=1, le=10_000)
    defer_vectors: Literal["never", "bulk", "always"] = Field(
        default="bulk",
        description="When a write returns before its memories' meaning vectors exist (found "
        "by their words and the graph at once, by meaning once catch-up embeds them): bulk = "
        "`memvault ingest` and `memvault eval`; always = every write (a busy server); never.",
    )
    catch_up_batch: int = Field(
        default=64,
        ge=1,
        le=4096,
        description="Memories embedded per catch-up transaction (a killed catch-up redoes at "
        "most one batch).",
    )
    catch_up_thread: bool = Field(
        default=True,
        description="Embedded mode: a thread in the writing process catches up after a "
        "deferred write. Off: only `memvault catch-up`, the server's jobs and the dream do.",
    )
    catch_up_process: bool = Field(
        default=False,
        description="Embedded mode: the catch-up thread hands each namespace to a process of "
        "its own holding its own copy of the model, so the writes and catch-up stop taking "
        "turns on one interpreter lock (a GPU machine; docs/benchmarks.md). Needs a vault "
        "built from its settings on a database another process can open (not :memory:); "
        "otherwise, or where the process cannot start, the thread catches up (logged).",
    )
    rule_workers: int = Field(
        default=0,
        ge=0,
        le=64,
        description="Processes that run the offline rules (extraction, the persona rules' "
        "reading) for a large write batch (32 memories or more): 0 = one less than the "
        "cores, at most 8, with 4 cores or more, else none, and none in server mode; 1 = none "
        "(in the writing process).",
    )
    sqlite_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    index: IndexSettings = Field(default_factory=IndexSettings)
    fold: FoldSettings = Field(default_factory=FoldSettings)
    persona: PersonaSettings = Field(default_factory=PersonaSettings)
    plans: PlanSettings = Field(default_factory=PlanSettings)
    sync: SyncSettings = Field(default_factory=SyncSettings)
    profile: ProfileSettings = Field(default_factory=ProfileSettings)
    prefetch: PrefetchSettings = Field(default_factory=PrefetchSettings)
    secret_key: str = DEFAULT_SECRET
    recall: RecallSettings = Field(default_factory=RecallSettings)
    dream: DreamSettings = Field(default_factory=DreamSettings)
    graph: GraphSettings = Field(default_factory=GraphSettings)
    lint: LintSettings = Field(default_factory=LintSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)

    @model_validator(mode="after")
    def _one_switch_for_decay(self) -> Settings:
        """The janitor's ``confidence_decay`` and recall's ranking age memories alike: off
        for one is off for both."""
        if not self.dream.hygiene.confidence_decay:
            self.recall.age_decay = False
        return self

    @model_validator(mode="after")
    def _server_needs_secrets(self) -> Settings:
        if self.mode == "server" and self.secret_key == DEFAULT_SECRET:
            raise ValueError(
                "MEMVAULT_SECRET_KEY is the default; set a real secret before running in "
                "server mode"
            )
        return self

    @property
    def database(self) -> Path:
        return self.db_path or self.data_dir / "memvault.db"
