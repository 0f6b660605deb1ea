"""Never lose a memory, measured on LoCoMo (issue 30's numbers): recall@10 before and after
three dreams per conversation at a clock one year after its last session, and the count of
episode merges whose sources differ in a number, a name, a date or a negation
(memvault.language.claims.distinguishing), which must be 0.

Questions are asked at their own time before and after (the dreams ran later: what they did
to the vault is what changes). Fact merges are not counted here: a judge's MERGE of facts
that differ so is refused in the dream itself (memvault/dream/consolidate.py, tested).

    .venv/bin/python bench/dream_safety.py --vault /tmp/fusion/locomo.db

``--vault``: a LoCoMo vault built by bench/recall_fusion.py (copied, never changed); without
it one is built (a few minutes). Scores are also given per half (conversations in file order,
even = dev, odd = test, as bench/recall_fusion.py splits them). ``--after KEY=JSON`` (repeat)
also scores the dreamed vault with that recall setting changed, in the same run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_ablation import build, last_times, locomo_score, rank

from memvault import MemVault
from memvault.eval.recall_eval import namespace_for, read_jsonl
from memvault.kg.model import Episode
from memvault.language.claims import claim_tokens, content_words, distinguishing
from memvault.language.words import STOPWORDS, plain_words

DATA = Path("../shared/datasets/locomo")


def merges(vault: MemVault, namespaces: list[str]) -> dict[str, object]:
    """Every survivor's absorbed episodes: what an absorbed one says that its survivor no
    longer holds. A survivor still whole is the merge's own doing: a distinguishing token (a
    number, a name, a date, a negation) or any other word it lacks. A survivor digested since
    (a later dream's one-way compression, decision 0012) is judged by what recall searches,
    digest and cues, in the index's own words (``fine-tuning`` is found as ``fine`` and
    ``tuning``); the sentences a digest stops showing are its compression, counted apart."""
    total, bad, worded = 0, [], 0
    digested = unsearchable = compressed = 0
    for ns in namespaces:
        episodes = {e.id: e for e in vault.store.list_episodes(ns, limit=1_000_000)}
        for e in episodes.values():
            held = e.index_text()
            for other in e.metadata.get("merged_from", []):
                total += 1
                gone = episodes.get(other)
                if gone is None:
                    continue
                claims = claim_tokens(gone.content)
                differ = {t for t in distinguishing(held, gone.content) if t in claims}
                lacks = bool(content_words(gone.content) - content_words(held))
                if "digest" in e.metadata:
                    digested += 1
                    unsearchable += bool(_searched(gone.content) - _searched(held))
                    compressed += bool(differ) or lacks
                    continue
                if differ:
                    bad.append(
                        {"kept": e.content, "absorbed": gone.content, "differ": sorted(differ)}
                    )
                worded += lacks
    return {
        "episode_merges": total,
        "differing_in_a_detail": len(bad),
        "absorbed_with_a_word_the_survivor_lacks": worded,
        "examples": bad[:5],
        "survivors_digested_since": digested,
        "digested_absorbed_with_a_word_recall_cannot_find": unsearchable,
        "digested_absorbed_with_a_sentence_the_digest_no_longer_shows": compressed,
    }


def _searched(text: str) -> set[str]:
    """The words of ``text`` the keyword index finds it by (stop words aside)."""
    return {w for w in plain_words(text) if w not in STOPWORDS and len(w) > 1}


def text_size(vault: MemVault, namespaces: list[str]) -> dict[str, int]:
    """Characters of live episodes' text, and of the dropped words digests keep as cues."""
    text = cues = 0
    for ns in namespaces:
        for e in vault.store.list_episodes(ns, limit=1_000_000):
            if e.expired_at is None:
                text += len(e.content)
                cues += len(str((e.metadata.get("digest") or {}).get("cues", "")))
    return {"text_chars": text, "cue_chars": cues}


def texts(vault: MemVault, namespaces: list[str]) -> dict[tuple[str, str], Episode]:
    """(namespace, turn id) → its live episode."""
    return {
        (ns, e.external_id): e
        for ns in namespaces
        for e in vault.store.list_episodes(ns, limit=1_000_000)
        if e.external_id and e.expired_at is None
    }


def digests_answer(
    questions: list[dict[str, object]],
    before: dict[tuple[str, str], Episode],
    after: dict[tuple[str, str], Episode],
) -> dict[str, object]:
    """Of the evidence turns the dreams compressed whose original held every content word of
    the question's answer, how many still show them in their digest (and how many hold them
    in digest + cues, what recall searches)."""
    held = shown = searchable = 0
    for q in questions:
        words = {w for w in plain_words(str(q.get("answer") or "")) if w not in STOPWORDS}
        ns = namespace_for(str(q["conv_id"]))
        for turn in q.get("evidence_turn_ids") or []:  # type: ignore[attr-defined]
            old, new = before.get((ns, turn)), after.get((ns, turn))
            if not words or old is None or new is None or "digest" not in new.metadata:
                continue
            if not words <= set(plain_words(old.content)):
                continue
            held += 1
            shown += words <= set(plain_words(new.content))
            searchable += words <= set(plain_words(new.index_text()))
    return {
        "compressed_evidence_with_the_answer": held,
        "digest_still_shows_it": round(shown / held, 4) if held else None,
        "digest_or_cues_hold_it": round(searchable / held, 4) if held else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=None)
    parser.add_argument("--dreams", type=int, default=3)
    parser.add_argument("--days-later", type=int, default=365)
    parser.add_argument("--after", action="append", default=[], metavar="KEY=JSON")
    parser.add_argument(
        "--data",
        type=Path,
        default=DATA,
        help="turns.jsonl and questions.jsonl of another set in the evaluation contract, e.g. "
        "recall_fusion.py's longchat-real (its vault as --vault); its questions' own split",
    )
    args = parser.parse_args()
    turns_path, questions_path = args.data / "turns.jsonl", args.data / "questions.jsonl"
    turns = read_jsonl(turns_path, ("conv_id", "turn_id", "text"))
    questions = read_jsonl(questions_path, ("conv_id", "question_id", "question"))
    times = last_times(turns)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "locomo.db"
        if args.vault:
            shutil.copy(args.vault, path)
            vault = MemVault.open(path, sqlite_synchronous="NORMAL")
        else:
            vault = build(path, turns_path, questions_path)
        convs = list(dict.fromkeys(t["conv_id"] for t in turns))
        halves = {
            half: [
                q
                for q in questions
                if q.get("split", ("dev", "test")[convs.index(q["conv_id"]) % 2]) == half
            ]
            for half in ("dev", "test")
        }

        def score(over: dict[str, object]) -> dict[str, object]:
            ranked = rank(vault, questions, times, over)
            out = locomo_score(questions, ranked)
            for half, qs in halves.items():
                out[f"{half}:overall"] = locomo_score(qs, ranked)["overall"]
            return out

        before = score({})
        spaces = sorted({namespace_for(c) for c in times})
        size_before = text_size(vault, spaces)
        originals = texts(vault, spaces)
        started = time.perf_counter()
        reports = []
        for n in range(args.dreams):
            for conv, last in sorted(times.items()):
                when = last + timedelta(days=args.days_later + 30 * n)
                result = vault.dream(
                    namespace=namespace_for(conv), apply=True, force=True, now=when
                )
                reports.append(result.report.get("counts", {}))
        dream_s = time.perf_counter() - started
        after = score({})
        variants = {}
        for item in args.after:
            key, _, value = item.partition("=")
            variants[item] = score({key: json.loads(value)})
        merged = merges(vault, spaces)
        size_after = text_size(vault, spaces)
        answered = digests_answer(questions, originals, texts(vault, spaces))
        vault.close()
    counts: dict[str, int] = {}
    for r in reports:
        for key, value in r.items():
            if isinstance(value, int):
                counts[key] = counts.get(key, 0) + value
    print(json.dumps({
        "benchmark": "dream_safety",
        "dreams_per_conversation": args.dreams,
        "clock": f"last session + {args.days_later} days (+30 per further dream)",
        "recall@10_before": before,
        "recall@10_after": after,
        "drop": round(before["overall"] - after["overall"], 4),  # type: ignore[operator]
        "after_with": variants,
        "merges": merged,
        "digests_answer": answered,
        "size_before": size_before,
        "size_after": size_after,
        "dream_counts": counts,
        "dream_s": round(dream_s, 1),
    }, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
