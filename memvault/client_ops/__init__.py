"""The REST clients' operations, each written once, without I/O: a generator that yields the
HTTP calls it needs (:class:`Call`) and receives each decoded answer, then returns the same
model the SDK returns (a dict where the SDK's answer is one, or where the server's answer is
a job to poll). :class:`memvault.Client` runs them with a blocking ``httpx.Client``,
:class:`memvault.AsyncClient` awaits them with ``httpx.AsyncClient``; which operations they
offer is listed in :mod:`memvault.capabilities.registry` (``client=True``)."""

from memvault.client_ops.admin import create_key, list_keys, metrics, namespaces, revoke_key
from memvault.client_ops.background import (
    approve,
    attitudes,
    catch_up,
    decide_reviews,
    define_entity_type,
    dream,
    dream_job,
    dream_report,
    dream_runs,
    entity_types,
    fold,
    inbox,
    janitor,
    lint,
    mark_dismissed,
    mark_seen,
    primer,
    record_skill_use,
    reject,
    remove_entity_type,
    review_items,
    skills,
    tiers,
    undo_dream,
    upsert_attitude,
)
from memvault.client_ops.base import Base, Call, Op
from memvault.client_ops.memory import (
    add_fact,
    add_facts,
    correct,
    diary,
    episodes,
    facts,
    forget,
    forget_subject,
    gaps,
    get_episode,
    import_chat_export,
    judge,
    profile,
    recall,
    record_access,
    reinforce,
    stats,
    verdict,
    write,
    write_many,
    write_session,
)

__all__ = [
    "Base", "Call", "Op",
    "add_fact", "add_facts", "approve", "attitudes", "catch_up", "correct", "create_key",
    "decide_reviews", "define_entity_type", "diary", "dream", "dream_job", "dream_report",
    "dream_runs", "entity_types", "episodes", "facts", "fold", "forget", "forget_subject",
    "gaps", "get_episode", "import_chat_export", "inbox", "janitor", "judge", "lint",
    "list_keys", "mark_dismissed",
    "mark_seen", "metrics", "namespaces", "primer", "profile", "recall", "record_access",
    "record_skill_use", "reinforce", "reject", "remove_entity_type", "review_items",
    "revoke_key", "skills", "stats", "tiers", "undo_dream", "upsert_attitude", "verdict",
    "write", "write_many", "write_session",
]  # fmt: skip
