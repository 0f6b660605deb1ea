"""Composite edges between entities from five signals, vectorised with scipy sparse.

For every pair of entities named together in at least one episode:

- ``co_occurrence``: log(count) / log(max count): one chance co-occurrence scores 0;
- ``session_overlap``: Jaccard of the sets of sessions each appears in;
- ``adamic_adar``: Σ 1/log(degree) over common neighbours in the co-occurrence graph,
  divided by the largest value among the pairs;
- ``type_affinity``: a prior over entity types (person–place is not person–person);
- ``semantic``: cosine of the entities' embeddings, clamped at 0.

``composite`` is their weighted sum; a pair becomes an edge only at or above the threshold,
so two unrelated terms that met once in a session stay apart. And only with evidence
(``edge_evidence``, issue 31.2): named together in two separate episodes, or backed by two
signals that one sentence cannot produce alone: sessions shared beyond one (the one of the
co-mention itself does not count), a common neighbour (Adamic-Adar > 0) and closeness of
meaning (``semantic`` ≥ ``edge_semantic_floor``). Type affinity is a prior about kinds of
entity, not evidence about a pair. Pure: the caller passes in what the store holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from memvault.config import GraphSettings

SIGNALS = ("co_occurrence", "session_overlap", "adamic_adar", "type_affinity", "semantic")


@dataclass(frozen=True)
class Edge:
    a: str
    b: str
    composite: float
    signals: dict[str, float]


def type_affinity(prior: Mapping[str, float], a: str, b: str, default: float) -> float:
    return prior.get(f"{a}|{b}", prior.get(f"{b}|{a}", default))


def _incidence(
    index: Mapping[str, int], mentions: Mapping[str, Sequence[str]]
) -> tuple[sparse.csr_matrix, list[str]]:
    """episodes × entities, 1 where an episode names an entity; and the episodes kept."""
    episodes = [ep for ep, ents in mentions.items() if any(e in index for e in ents)]
    rows, cols = [], []
    for r, ep in enumerate(episodes):
        for e in set(mentions[ep]):
            if e in index:
                rows.append(r)
                cols.append(index[e])
    matrix = sparse.csr_matrix(
        (np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(episodes), len(index))
    )
    return matrix, episodes


def co_mention_counts(
    entity_ids: Sequence[str], mentions: Mapping[str, Sequence[str]]
) -> dict[tuple[str, str], int]:
    """How many episodes name each pair (a < b by id), for every pair named together."""
    index = {e: i for i, e in enumerate(entity_ids)}
    incidence, episodes = _incidence(index, mentions)
    if len(index) < 2 or not episodes:
        return {}
    co = sparse.triu(incidence.T @ incidence, k=1).tocoo()
    out = {}
    for i, j, c in zip(co.row, co.col, co.data, strict=True):
        a, b = entity_ids[i], entity_ids[j]
        out[(min(a, b), max(a, b))] = int(c)
    return out


def composite_edges(
    entity_ids: Sequence[str],
    entity_types: Sequence[str],
    mentions: Mapping[str, Sequence[str]],
    episode_session: Mapping[str, str | None],
    vectors: Mapping[str, np.ndarray],
    settings: GraphSettings,
) -> list[Edge]:
    """Edges (a < b by id) at or above ``settings.edge_threshold``, strongest first.

    ``mentions``: episode id → the entity ids it names; ``episode_session``: episode id →
    its session (None: the episode stands alone)."""
    weights, prior = settings.edge_weights, settings.type_affinity
    index = {e: i for i, e in enumerate(entity_ids)}
    n = len(entity_ids)
    incidence, episodes = _incidence(index, mentions)
    if n < 2 or not episodes:
        return []
    co = sparse.triu(incidence.T @ incidence, k=1).tocoo()  # pair counts, a < b
    if co.nnz == 0:
        return []
    i, j, count = co.row, co.col, co.data.astype(np.float64)

    top = max(float(count.max()), 2.0)
    co_sig = np.log(count) / np.log(top)

    sessions = sorted({s for s in (episode_session.get(ep) for ep in episodes) if s})
    s_index = {s: k for k, s in enumerate(sessions)}
    s_rows = [s_index[s] if (s := episode_session.get(ep)) else -1 for ep in episodes]
    keep = np.array([s >= 0 for s in s_rows])
    if sessions and keep.any():
        to_session = sparse.csr_matrix(
            (
                np.ones(int(keep.sum()), dtype=np.float32),
                (np.array(s_rows)[keep], np.flatnonzero(keep)),
            ),
            shape=(len(sessions), len(episodes)),
        )
        presence = ((to_session @ incidence) > 0).astype(np.float32)  # sessions × entities
        per_entity = np.asarray(presence.sum(axis=0)).ravel()
        shared = np.asarray((presence.T @ presence)[i, j]).ravel()
        shared_sessions = shared.copy()
        union = per_entity[i] + per_entity[j] - shared
        jaccard = np.divide(shared, union, out=np.zeros_like(shared), where=union > 0)
    else:
        jaccard = np.zeros_like(co_sig)
        shared_sessions = np.zeros_like(co_sig)

    adjacency = ((incidence.T @ incidence) > 0).astype(np.float32).tolil()
    adjacency.setdiag(0)
    adjacency = adjacency.tocsr()
    degree = np.asarray(adjacency.sum(axis=1)).ravel()
    inv_log = np.where(degree > 1, 1.0 / np.log(np.maximum(degree, 2.0)), 0.0)
    aa_matrix = adjacency @ sparse.diags(inv_log) @ adjacency
    aa = np.asarray(aa_matrix[i, j]).ravel()
    aa = aa / aa.max() if aa.max() > 0 else aa  # > 0: a neighbour both are named with

    types = np.array(
        [
            type_affinity(prior, entity_types[a], entity_types[b], settings.type_affinity_default)
            for a, b in zip(i, j, strict=True)
        ]
    )

    dim = next((len(v) for v in vectors.values()), 0)
    semantic = np.zeros_like(co_sig)
    if dim:
        matrix = np.zeros((n, dim), dtype=np.float32)
        for e, v in vectors.items():
            if e in index:
                norm = float(np.linalg.norm(v)) or 1.0
                matrix[index[e]] = v / norm
        semantic = np.clip(np.einsum("ij,ij->i", matrix[i], matrix[j]), 0.0, 1.0)

    signals = {
        "co_occurrence": co_sig,
        "session_overlap": jaccard,
        "adamic_adar": aa,
        "type_affinity": types,
        "semantic": semantic,
    }
    composite = sum(weights.get(name, 0.0) * values for name, values in signals.items())
    passing = composite >= settings.edge_threshold
    if settings.edge_evidence:
        independent = (
            (shared_sessions >= 2).astype(int)
            + (aa > 0).astype(int)
            + (semantic >= settings.edge_semantic_floor).astype(int)
        )
        passing &= (count >= 2) | (independent >= 2)
    chosen = np.flatnonzero(passing)
    chosen = chosen[np.argsort(-composite[chosen], kind="stable")]
    out = []
    for k in chosen:
        a, b = entity_ids[i[k]], entity_ids[j[k]]
        out.append(
            Edge(
                a=min(a, b),
                b=max(a, b),
                composite=round(float(composite[k]), 6),
                signals={name: round(float(v[k]), 6) for name, v in signals.items()},
            )
        )
    return out
