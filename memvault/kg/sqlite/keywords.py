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
while a rarer word remains (when none does, only the rarest is searched). Counting stops at
the share, so deciding costs no more than the limit it enforces. Measured on LoCoMo and on
the generated temporal-update set, recall improves on both (docs/recall.md, "Common
words"); a share of 1% removes too much (LoCoMo 0.71 to 0.62).
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from collections.abc import Sequence

from memvault.config import IndexSettings
from memvault.errors import InvalidInputError
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

    def topk(
        self, conn: sqlite3.Connection, namespace: str, table: str, terms: Sequence[str], k: int
    ) -> list[tuple[str, float]]:
        names = [r[0] for r in conn.execute("SELECT name FROM namespaces LIMIT 2")]
        scoped = names != [namespace]
        terms = self.common.prune(conn, namespace, table, terms, scoped=scoped)
        match = fts_query(namespace, terms, scoped=scoped)
        if match is None or k <= 0:
            return []
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


class CommonTerms:
    def __init__(self, settings: IndexSettings, *, remember: int = 4096):
        self.share = settings.common_term_share
        self.min_records = settings.common_term_min_records
        self.remember = remember
        self._sizes: dict[tuple[str, str], tuple[int, int]] = {}
        self._counts: OrderedDict[tuple[str, str, str], tuple[int, int]] = OrderedDict()

    def prune(
        self,
        conn: sqlite3.Connection,
        namespace: str,
        table: str,
        terms: Sequence[str],
        *,
        scoped: bool = True,
    ) -> list[str]:
        """``terms`` without the ones too common to search by (order kept)."""
        terms = [t for t in terms if t.strip()]
        if len(terms) < 2:
            return terms
        row = conn.execute("SELECT seq FROM namespaces WHERE name = ?", (namespace,)).fetchone()
        seq = int(row[0]) if row else 0
        size = self._size(conn, namespace, table, seq)
        if size < self.min_records:
            return terms
        cap = int(self.share * size)
        counts = {t: self._count(conn, namespace, table, t, cap, seq, scoped) for t in terms}
        rare = [t for t in terms if counts[t] <= cap]
        return rare or [min(terms, key=lambda t: counts[t])]

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
