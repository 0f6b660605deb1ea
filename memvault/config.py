"""One ``Settings`` object, read from ``MEMVAULT_*`` environment variables (nested with
``__``, e.g. ``MEMVAULT_RECALL__RRF_K=30``). Defaults run embedded, offline, with no servers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from memvault.kg.model import MemoryType

DEFAULT_SECRET = "change-me"


class RecallSettings(BaseModel):
    """How recall ranks. Each factor of the composite score is explained per hit."""

    k: int = Field(default=10, ge=1, le=1000)
    candidates: int = Field(default=100, ge=1, le=5000, description="Per channel.")
    channel_weights: dict[str, float] = Field(
        default_factory=lambda: {
            "dense": 0.4,
            "keyword": 0.6,
            "graph": 0.1,
            "actor": 0.3,
            "context": 0.5,
            "session": 0.4,
        },
        description="Weights of the relevance signals (see memvault.recall.engine).",
    )
    # per-type age decay exp(-λ·age_days); facts age through effective confidence instead
    decay_per_day: dict[MemoryType, float] = Field(
        default_factory=lambda: {
            MemoryType.USER: 0.0005,
            MemoryType.REFERENCE: 0.001,
            MemoryType.FEEDBACK: 0.002,
            MemoryType.PROJECT: 0.01,
            MemoryType.EPISODIC: 0.0005,
        }
    )
    fact_half_life_days: float = Field(default=180.0, gt=0)
    access_boost_step: float = Field(default=0.1, ge=0)
    access_boost_cap: int = Field(default=10, ge=0)
    sticky_min_access: int = Field(default=5, ge=0)
    sticky_base: float = Field(default=0.95, gt=0, le=1)
    sticky_offset: float = Field(default=3.0, ge=0)
    sticky_cap: float = Field(default=30.0, ge=0)
    context_window: int = Field(
        default=1, ge=0, le=5, description="Neighbouring turns of a hit that share its score."
    )
    context_anchors: int = Field(
        default=10,
        ge=0,
        le=500,
        description="How many of the strongest episodes lend their neighbours a share.",
    )
    graph_max_entity_share: float = Field(
        default=0.2,
        gt=0,
        le=1,
        description="Entities named in more than this share of a namespace's episodes are "
        "too common to seed the graph channel (e.g. the two speakers of a chat).",
    )


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="MEMVAULT_", env_nested_delimiter="__", env_ignore_empty=True, extra="ignore"
    )

    mode: Literal["embedded", "server"] = "embedded"
    data_dir: Path = Field(default=Path.home() / ".memvault")
    db_path: Path | None = Field(default=None, description="Default: <data_dir>/memvault.db")
    default_namespace: str = "default"
    embedder: Literal["auto", "minilm", "hashing"] = Field(
        default="auto",
        description="auto: all-MiniLM-L6-v2 when torch is installed, else the hashing fallback",
    )
    llm_model: str | None = Field(default=None, description="A litellm model; None: offline.")
    llm_reasoning_model: str | None = None
    max_content_chars: int = Field(default=8000, ge=100, le=1_000_000)
    ingest_batch_size: int = Field(default=256, ge=1, le=10_000)
    sqlite_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    secret_key: str = DEFAULT_SECRET
    recall: RecallSettings = Field(default_factory=RecallSettings)

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
