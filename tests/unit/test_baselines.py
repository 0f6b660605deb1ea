"""The baselines memvault's recall is measured against (memvault.eval.baselines)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from memvault.eval.baselines import Bm25, Turns, cosine_rank, rrf


def test_bm25_weighs_a_rare_word_above_a_frequent_one() -> None:
    docs = ["my favorite tea", "my favorite coffee", "my favorite Zanzibar trip", "tea again"]
    index = Bm25(docs)
    assert index.rank("favorite Zanzibar")[0] == 2
    assert index.rank("nothing matches") == [0, 1, 2, 3]  # ties keep the order said
    # one query word, its Lucene idf and the length norm by hand
    n, df, k1, b = 4, 1, 1.5, 0.75
    avg = (3 + 3 + 4 + 2) / 4
    expected = math.log(1 + (n - df + 0.5) / (df + 0.5)) * 2.5 / (1 + k1 * (1 - b + b * 4 / avg))
    assert index.scores("zanzibar")[2] == pytest.approx(expected)


def test_bm25_of_no_text_ranks_nothing() -> None:
    assert Bm25([]).rank("anything") == []
    assert Bm25(["", ""]).rank("x") == [0, 1]


def test_rank_fusion_and_cosine() -> None:
    assert rrf([1, 2], [2, 3]) == [2, 1, 3]  # first and second beats first alone
    matrix = np.array([[1.0, 0.0], [0.0, 0.0], [0.6, 0.8]], dtype=np.float32)
    assert cosine_rank(matrix, np.array([0.0, 1.0])) == [2, 0, 1]  # no vector: last


def test_turns_rank_distinct_turn_ids() -> None:
    matrix = np.eye(3, dtype=np.float32)
    turns = Turns(["t1", "t1", "t2"], ["tea", "tea time", "coffee"], matrix)
    ranked = turns.ranked("tea", np.array([1.0, 0.0, 0.0]), k=5)
    assert ranked["bm25"] == ["t1", "t2"] and ranked["cosine"] == ["t1", "t2"]


def test_the_report_names_where_a_baseline_is_ahead() -> None:
    from memvault.eval.recall_eval import EvalReport, _below

    report = EvalReport(
        k=10,
        per_category={"a": {"n": 2, "recall@10": 0.5}, "b": {"n": 2, "recall@10": 0.9}},
        overall=0.7,
        baselines={
            "bm25": {
                "per_category": {"a": {"recall@10": 0.6}, "b": {"recall@10": 0.8}},
                "overall": 0.7,
            },
            "cosine": {"per_category": {"b": {"recall@10": 0.95}}, "overall": 0.71},
        },
    )
    assert _below(report) == ["a", "b", "overall"]
    report.baselines = {}
    assert _below(report) == []
