"""Keyword search: FTS5 BM25 over one namespace's rows, and which terms are too common to
search by.

Rows of every namespace share one FTS table; a query is confined to its namespace by a
``ns`` token (weighed 0 by bm25). Matching that token walks the namespace's whole posting
list, which at 100k rows costs more than the words themselves, so when the namespace is the
only one in the store the token is left out: bm25's statistics are the whole table's either
way, so the ranking is identical (tested).

A word found in many of a namespace's records (a chat's speaker names, "today", "work")
says little about which record answers (its idf is near zero) but its matches still earn
BM25 points and crowd the keyword list, and in a 100k-record namespace scoring them costs
more than the rest of recall. So in a namespace of at least ``common_term_min_records``
(100) records, a word matching more than ``common_term_share`` (5%) of them is left out
while a rarer word remains (when none does, only the rarest is searched). Counting stops
past the share (or past ``keyword_scored_matches``, if larger, so that the rarest of common
words is known), so deciding costs no more than the limits it enforces. Measured on LoCoMo
and on the generated temporal-update set, recall improves on both (docs/recall.md, "Common
words"); a share of 1% removes too much (LoCoMo 0.71 to 0.62).

Below that share a word can still match thousands of records, and FTS5's bm25 costs a few
µs per match (it scores every match; a word in 4% of 100k records: 8 ms, more than the rest
of keyword recall). So when a query's words match more than ``keyword_scored_matches`` (500)
records in all, ranking reads only each word's newest that many matches (all of a rarer
word's) and scores every record found by the idf of the words it contains: bm25 with one
occurrence at average length; ties go to the newest. An old record that shares only a
frequent word with the query is then no keyword candidate (dense and graph search still
reach it), and one with a rare word scores that word. Namespaces too small to reach the
limit (LoCoMo's, the generated evaluation sets') are ranked by bm25 as before.

bm25's idf, log((N - n + 0.5) / (n + 0.5)), reads the whole table's counts and is floored at
1e-6 for a word in half of the rows or more. In a small store that floor erases evidence: in
a vault of two memories a word in one of them ("adopt" in "I adopted a cat") scores as little
as a name in both, and recall drops both as telling nothing apart. So in a namespace no
larger than the window, when bm25 floored the words of its best match (so of every match),
the matches are scored again by the namespace's own counts, each word weighing log(N / n):
a word in every record weighs nothing (it tells none apart), one in half of them log 2.
When that tells no match apart (a store of one record), bm25's floored scores stand.
"""

from __future__ import annotations

import math
import sqlite3
from collections import OrderedDict
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from memvault.config import IndexSettings
from memvault.errors import InvalidInputError
from memvault.kg.roles import NO_EVIDENCE
from memvault.kg.sqlite.sql import ns_token


def fts_query(namespace: str, terms: Sequence[str], *, scoped: bool = True) -> str | None:
    quoted = ['"' + t.replace('"', '""') + '"' for t in terms if t.strip()]
    if not quoted:
        return None
    words = f"text : ({' OR '.join(quoted)})"
    return f"ns : {ns_token(namespace)} AND {words}" if scoped else words


class KeywordSearch:
    def __init__(self, settings: IndexSettings):
        self.common = CommonTerms(settings)
        self.window = settings.keyword_scored_matches

    def topk(
        self, conn: sqlite3.Connection, namespace: str, table: str, terms: Sequence[str], k: int
    ) -> list[tuple[str, float]]:
        names = [r[0] for r in conn.execute("SELECT name FROM namespaces LIMIT 2")]
        scoped = names != [namespace]
        counted = self.common.counts(conn, namespace, table, terms, self.window, scoped=scoped)
        terms = self.common.prune(terms, counted)
        match = fts_query(namespace, terms, scoped=scoped)
        if match is None or k <= 0:
            return []
        if sum(counted.matches.get(t, 0) for t in terms) > self.window:
            return self._by_idf(conn, namespace, table, terms, counted, k, scoped=scoped)
        found = self._ranked(conn, table, namespace, match, k)
        if counted.records > self.window or not found or found[0][1] > NO_EVIDENCE:
            return found
        counted = self.common.counts(
            conn, namespace, table, terms, self.window, scoped=scoped, every=True
        )
        # when the recount tells no match apart either (one record; a word in every one),
        # bm25's answer stands: its floored scores say so to the caller
        own = self._by_idf(conn, namespace, table, terms, counted, k, scoped=scoped, own=True)
        return own or found

    def _by_idf(
        self,
        conn: sqlite3.Connection,
        namespace: str,
        table: str,
        terms: Sequence[str],
        counted: TermCounts,
        k: int,
        *,
        scoped: bool,
        own: bool = False,
    ) -> list[tuple[str, float]]:
        """Each record among every term's newest ``window`` matches scores the idf of the
        terms it contains (bm25 with one occurrence at average length; ``own``: the
        namespace's log(N / n), and a record scoring nothing is left out); ties: newest
        first."""
        rowids, weights = [], []
        for term in terms:
            n = counted.matches[term]
            (listed,) = conn.execute(
                f"SELECT group_concat(rowid) FROM (SELECT rowid FROM {table}_fts"
                f" WHERE {table}_fts MATCH ? ORDER BY rowid DESC LIMIT ?)",
                (fts_query(namespace, [term], scoped=scoped), self.window),
            ).fetchone()
            found = np.array(listed.split(",") if listed else [], dtype=np.int64)
            rowids.append(found)
            if own:
                idf = math.log(max(counted.records, n, 1) / max(n, 1))
            else:
                idf = max(math.log((counted.records - n + 0.5) / (n + 0.5)), 1e-6)
            weights.append(np.full(len(found), idf))
        unique, which = np.unique(np.concatenate(rowids), return_inverse=True)
        scores = np.bincount(which, weights=np.concatenate(weights))
        order = np.lexsort((-unique, -scores))[:k]
        if own:
            order = order[scores[order] > 0]
        if len(order) == 0:
            return []
        best = [(int(unique[i]), float(scores[i])) for i in order]
        ids = dict(
            conn.execute(
                f"SELECT rowid, id FROM {table} WHERE +namespace = ?"
                f" AND rowid IN ({','.join('?' * len(best))})",
                (namespace, *(rowid for rowid, _ in best)),
            ).fetchall()
        )
        return [(ids[rowid], value) for rowid, value in best if rowid in ids]

    @staticmethod
    def _ranked(
        conn: sqlite3.Connection,
        table: str,
        namespace: str,
        match: str,
        k: int,
    ) -> list[tuple[str, float]]:
        """The best ``k`` matches by bm25."""
        try:
            rows = conn.execute(
                f"SELECT t.id, -f.score FROM (SELECT rowid, bm25({table}_fts, 0.0, 1.0) AS score"
                f" FROM {table}_fts WHERE {table}_fts MATCH ? ORDER BY score LIMIT ?) f"
                f" JOIN {table} t ON t.rowid = f.rowid WHERE t.namespace = ? ORDER BY f.score",
                (match, k, namespace),
            ).fetchall()
        except sqlite3.Error as exc:
            raise InvalidInputError(f"keyword query not understood: {exc}", field="query") from exc
        return [(r[0], float(r[1])) for r in rows]


class TermCounts(NamedTuple):
    records: int  # in the namespace
    matches: dict[str, int]  # records matching each term, counted past the larger limit
    common_above: int | None  # a term matching more is too common; None: none pruned


class CommonTerms:
    def __init__(self, settings: IndexSettings, *, remember: int = 4096):
        self.share = settings.common_term_share
        self.min_records = settings.common_term_min_records
        self.remember = remember
        self._sizes: dict[tuple[str, str], tuple[int, int]] = {}
        self._counts: OrderedDict[tuple[str, str, str], tuple[int, int]] = OrderedDict()

    def counts(
        self,
        conn: sqlite3.Connection,
        namespace: str,
        table: str,
        terms: Sequence[str],
        window: int,
        *,
        scoped: bool = True,
        every: bool = False,
    ) -> TermCounts:
        """How many records match each term, as far as pruning and the bm25 window need to
        know (none counted in a namespace too small for either, unless ``every``)."""
        terms = [t for t in terms if t.strip()]
        row = conn.execute("SELECT seq FROM namespaces WHERE name = ?", (namespace,)).fetchone()
        seq = int(row[0]) if row else 0
        size = self._size(conn, namespace, table, seq)
        cap = int(self.share * size) if size >= self.min_records and len(terms) > 1 else None
        if cap is None and size <= window and not every:
            return TermCounts(size, {}, None)
        limit = size if cap is None else max(cap, window)
        return TermCounts(
            size,
            {t: self._count(conn, namespace, table, t, limit, seq, scoped) for t in terms},
            cap,
        )

    @staticmethod
    def prune(terms: Sequence[str], counts: TermCounts) -> list[str]:
        """``terms`` without the ones too common to search by (order kept)."""
        terms = [t for t in terms if t.strip()]
        if counts.common_above is None:
            return terms
        rare = [t for t in terms if counts.matches[t] <= counts.common_above]
        return rare or [min(terms, key=lambda t: counts.matches[t])]

    def _size(self, conn: sqlite3.Connection, namespace: str, table: str, seq: int) -> int:
        cached = self._sizes.get((namespace, table))
        if cached and cached[0] == seq:
            return cached[1]
        (n,) = conn.execute(
            f"SELECT count(*) FROM {table} WHERE namespace = ?", (namespace,)
        ).fetchone()
        self._sizes[(namespace, table)] = (seq, int(n))
        return int(n)

    def _count(
        self,
        conn: sqlite3.Connection,
        namespace: str,
        table: str,
        term: str,
        cap: int,
        seq: int,
        scoped: bool,
    ) -> int:
        """Rows matching ``term``, counted up to ``cap + 1``."""
        key = (namespace, table, term)
        cached = self._counts.get(key)
        if cached and cached[0] == seq:
            self._counts.move_to_end(key)
            return cached[1]
        try:
            (n,) = conn.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM {table}_fts WHERE {table}_fts MATCH ?"
                " LIMIT ?)",
                (fts_query(namespace, [term], scoped=scoped), cap + 1),
            ).fetchone()
        except sqlite3.Error:
            return 0  # a term FTS cannot parse is searched as given; the search reports it
        self._counts[key] = (seq, int(n))
        if len(self._counts) > self.remember:
            self._counts.popitem(last=False)
        return int(n)
