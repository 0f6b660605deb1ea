"""The LLM level of the lint: semantic contradictions the rules miss.

Live facts are grouped by subject (subjects with the most facts first, at most
``llm_max_subjects``), a batch of groups per call. The configured model reads the statements;
without one, the offline provider answers by a labelled rule: facts of one subject whose
predicates the ontology declares opposite (likes / dislikes) about the same object.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from memvault.changes.workspace import Workspace
from memvault.errors import LLMError
from memvault.kg.model import Fact, normalize_name
from memvault.kg.ontology import Ontology
from memvault.lint.findings import Finding, retire
from memvault.llm.port import LLM
from memvault.llm.prompts import Contradiction, Contradictions, lint_contradictions_v1

CALL_SITE = "lint.semantic"


def fact_groups(facts: Sequence[Fact], max_subjects: int) -> list[dict[str, Any]]:
    by_subject: dict[str, list[Fact]] = defaultdict(list)
    for f in facts:
        by_subject[f.subject_id].append(f)
    ranked = sorted(
        (g for g in by_subject.values() if len(g) > 1), key=lambda g: (-len(g), g[0].subject_id)
    )
    return [
        {
            "subject": group[0].subject,
            "facts": [
                {
                    "id": f.id,
                    "statement": f.statement,
                    "predicate": f.predicate,
                    "object": f.object,
                    "valid_at": f.valid_at.date().isoformat(),
                }
                for f in sorted(group, key=lambda f: (f.valid_at, f.id))
            ],
        }
        for group in ranked[:max_subjects]
    ]


def ask(
    llm: LLM, groups: Sequence[Mapping[str, Any]], onto: Ontology, batch: int
) -> list[Contradiction]:
    opposites = sorted(sorted(pair) for pair in onto.opposites)
    out: list[Contradiction] = []
    for start in range(0, len(groups), batch):
        answer = llm.complete(
            lint_contradictions_v1(groups[start : start + batch], opposites), call_site=CALL_SITE
        )
        out += answer.contradictions
    return out


def semantic(
    ws: Workspace, onto: Ontology, llm: LLM, *, max_subjects: int, batch: int
) -> list[Finding]:
    live = ws.live_facts()
    known = {f.id: f for f in live}
    out = []
    for c in ask(llm, fact_groups(live, max_subjects), onto, batch):
        ids = sorted(set(c.fact_ids))
        if len(ids) < 2 or any(i not in known for i in ids):
            continue  # a model naming facts it was not shown is ignored, not trusted
        wrong = known.get(c.wrong_fact_id or "")
        fix = []
        if wrong is not None and wrong.id in ids:
            fix = [retire(wrong, ws, c.reason, confidence=c.confidence, impact="high")]
        out.append(
            Finding(
                "llm",
                "semantic_contradiction",
                "warning",
                f"these cannot all hold: {'; '.join(known[i].statement for i in ids)}",
                [f"fact:{i}" for i in ids],
                {"reason": c.reason, "confidence": c.confidence, "judge": llm.name},
                fix,
            )
        )
    return out


def still_contradicts(finding: Finding, ws: Workspace, onto: Ontology, llm: LLM) -> bool:
    """Stage two for an LLM finding: ask again about just its facts, read fresh."""
    ids = {r.split(":", 1)[1] for r in finding.records}
    facts = [f for f in ws.live_facts() if f.id in ids]
    if len(facts) != len(ids):
        return False
    try:
        again = ask(llm, fact_groups(facts, 1), onto, 1)
    except LLMError:
        return False
    return any(set(c.fact_ids) == ids for c in again)


def opposite_rule(
    groups: Sequence[Mapping[str, Any]], opposites: Sequence[Sequence[str]]
) -> Contradictions:
    """The offline answer (a rule, labelled as such): two facts of one subject, about the
    same object, whose predicates are declared opposite. The older is proposed wrong."""
    pairs = {frozenset(p) for p in opposites}
    found = []
    for group in groups:
        facts = group["facts"]
        for n, a in enumerate(facts):
            for b in facts[n + 1 :]:
                if frozenset((a["predicate"], b["predicate"])) in pairs and normalize_name(
                    a["object"]
                ) == normalize_name(b["object"]):
                    older = min((a, b), key=lambda f: (f["valid_at"], f["id"]))
                    found.append(
                        Contradiction(
                            fact_ids=[a["id"], b["id"]],
                            wrong_fact_id=older["id"],
                            reason=(
                                f"offline rule: {a['predicate']} and {b['predicate']} are "
                                f"opposites for {a['object']!r}; the older one is proposed wrong"
                            ),
                            confidence=0.6,
                        )
                    )
    return Contradictions(contradictions=found)
