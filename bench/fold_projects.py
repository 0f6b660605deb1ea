"""Folds per project on a claude-mem-shaped history (issue 31.3): the token economics per
project as its history grows, and how much of the detail that still stands a digest keeps.

Generated here: several projects, each a stream of coding-agent observations in claude-mem's
shape (a type — decision, feature, bugfix, change, discovery — and a narrative), written
through the real write path as memvault's claude-mem import writes them (memory type
``project``, ``metadata.claude_mem.project``). A third of the observations carry a detail
(a file path, an exact command, a version string); some details are later superseded (a
dependency pinned again to another version, a command changed); the rest is everyday
progress ("worked on the login page"). The vault folds after 100, 200, 400, 800 and 1,600
observations per project.

``details_kept``: of the details that still stand (the newest of each superseded chain, and
every one never superseded), the share the project's digest holds; ``stale_kept``: of the
superseded ones, the share it still holds (lower is better: recency resolved). The fold is
compared with the previous offline fold (newest lines first, cut at the budget) on the same
notes in the same run.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memvault import MemVault, folds
from memvault.embed import HashingEmbedder
from memvault.folds import note_line, tokens
from memvault.kg.model import MemoryType

LIBS = ["numpy", "pandas", "fastapi", "pydantic", "sqlalchemy", "httpx", "celery", "redis"]
PARTS = ["login page", "billing service", "search index", "export job", "settings screen"]
FILES = ["src/app/main.py", "src/billing/invoice.py", "web/src/Login.tsx", "db/schema.sql"]
CHATTER = [
    "Worked on the {part} again.",
    "Reviewed the open pull requests for the {part}.",
    "Ran the test suite; everything passed.",
    "Paired on the {part} and cleaned up some naming.",
    "Looked into a flaky test around the {part}.",
]


def history(project: str, n: int, seed: int) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """``n`` observations of one project, oldest first, and each detail's fate: detail →
    'stands' or 'stale'."""
    rng = random.Random(seed)
    t0 = datetime(2025, 1, 1, tzinfo=UTC)
    chains: dict[str, str] = {}  # subject → its standing detail
    fate: dict[str, str] = {}
    out = []
    for i in range(n):
        roll = rng.random()
        if roll < 0.12:
            lib = rng.choice(LIBS)
            version = f"{rng.randint(1, 4)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"
            text, subject, detail = (
                f"Pinned {lib} to {version} in requirements.txt after the last upgrade broke "
                "a test.",
                f"pin:{lib}",
                version,
            )
        elif roll < 0.22:
            part = rng.choice(PARTS)
            target = f"{part.split()[0]}-{rng.choice(['check', 'deploy', 'seed'])}"
            cmd = f"make {target} -j{rng.randint(2, 16)}"
            text, subject, detail = (f"To rebuild the {part}, run `{cmd}`.", f"cmd:{part}", cmd)
        elif roll < 0.33:
            path = f"{rng.choice(FILES)}:{rng.randint(10, 900)}"
            text, subject, detail = (
                f"Fixed the {rng.choice(PARTS)} bug at {path} (a missing null check).",
                f"fix:{path}",
                path,
            )
        else:
            text, subject, detail = (rng.choice(CHATTER).format(part=rng.choice(PARTS)), "", "")
        if detail:
            if subject in chains:
                fate[chains[subject]] = "stale"
            chains[subject] = detail
            fate[detail] = "stands"
        out.append(
            {
                "content": text,
                "type": "project",
                "occurred_at": t0 + timedelta(hours=6 * i),
                "metadata": {"claude_mem": {"project": project, "id": i, "type": "change"}},
            }
        )
    return out, fate


def share(digest: str, fate: dict[str, str]) -> float | None:
    """Of the digest's lines, the share that carries a detail (path, command, version)."""
    lines = [line for line in digest.splitlines() if line.strip()]
    if not lines:
        return None
    return round(sum(1 for line in lines if any(d in line for d in fate)) / len(lines), 3)


def kept(digest: str, fate: dict[str, str], which: str) -> float | None:
    wanted = [d for d, f in fate.items() if f == which]
    if not wanted:
        return None
    return round(sum(1 for d in wanted if d in digest) / len(wanted), 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--projects", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 200, 400, 800, 1600])
    args = parser.parse_args()
    rows = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        MemVault.open(Path(tmp) / "f.db", embedder=HashingEmbedder()) as vault,
    ):
        budget = vault.settings.fold.budget_tokens
        streams = {
            f"project-{p}": history(f"project-{p}", max(args.sizes), seed=p)
            for p in range(args.projects)
        }
        written = 0
        for size in sorted(args.sizes):
            for items, _ in streams.values():
                vault.write_many(items[written:size], namespace="agent")
            written = size
            vault.fold(namespace="agent", apply=True)
            table = {row["project"]: row for row in vault.fold_economics(namespace="agent")}
            for project, (items, fate) in streams.items():
                cell = folds.cells(vault.store, "agent", project)[MemoryType.PROJECT].digest
                so_far = {d: f for d, f in _fate_upto(items[:size], fate).items()}
                notes = [note_line(e) for e in _episodes(items[:size])]
                newest = newest_first("", notes, budget)
                rows.append(
                    {
                        "project": project,
                        "observations": size,
                        **{k: table[project][k] for k in ("raw_tokens", "digest_tokens", "ratio")},
                        "details_kept": kept(cell, so_far, "stands"),
                        "stale_kept": kept(cell, so_far, "stale"),
                        "newest_first_details_kept": kept(newest, so_far, "stands"),
                        "newest_first_stale_kept": kept(newest, so_far, "stale"),
                        "newest_first_tokens": tokens(newest),
                        "detail_lines_share": share(cell, fate),
                        "newest_first_detail_lines_share": share(newest, fate),
                    }
                )
    change = {}  # per project: digest tokens at the largest size against the smallest
    for project in sorted({r["project"] for r in rows}):
        mine = [r for r in rows if r["project"] == project]
        first, last = mine[0]["digest_tokens"], mine[-1]["digest_tokens"]
        change[project] = round(last / first - 1, 3) if first else None
    json.dump(
        {
            "benchmark": "fold_projects",
            "budget_tokens": budget,
            "fold": "offline (extractive, detail first)",
            "rows": rows,
            "digest_tokens_change_per_project": change,
            "goal_digest_tokens_flat": "±30% from 100 to 1,600 observations per project",
        },
        sys.stdout,
        indent=2,
    )
    print()


def newest_first(digest: str, notes: list[str], budget_tokens: int) -> str:
    """The previous offline fold, for comparison: one line per distinct statement, newest
    first, the oldest dropped at the budget."""
    import re

    best: dict[str, tuple[str, str]] = {}
    for line in [*digest.splitlines(), *notes]:
        m = re.match(r"^- (\d{4}-\d{2}-\d{2}) (.*)$", line.strip())
        if m:
            day, text = m.groups()
            key = " ".join(re.findall(r"\w+", text.lower()))
            if key and (key not in best or day > best[key][0]):
                best[key] = (day, text)
    out: list[str] = []
    for d, t in sorted(best.values(), key=lambda x: x[0], reverse=True):
        if tokens("\n".join([*out, f"- {d} {t}"])) > budget_tokens:
            break
        out.append(f"- {d} {t}")
    return "\n".join(out)


def _episodes(items: list[dict[str, Any]]) -> list[Any]:
    from memvault.kg.model import Episode, content_hash

    return [
        Episode(
            namespace="x",
            content=i["content"],
            content_hash=content_hash("x", None, None, i["content"]),
            occurred_at=i["occurred_at"],
            created_at=i["occurred_at"],
        )
        for i in items
    ]


def _fate_upto(items: list[dict[str, Any]], fate: dict[str, str]) -> dict[str, str]:
    """Each detail's fate as of the last of ``items``: stale only once superseded by then."""
    text = "\n".join(i["content"] for i in items)
    present = {d for d in fate if d in text}
    out: dict[str, str] = {}
    for d in present:
        out[d] = "stands"
    # a detail is stale when a later one of its chain appears among these items
    seen_chain: dict[str, str] = {}
    for i in items:
        for d in present:
            if d in i["content"]:
                key = _chain(i["content"])
                if key in seen_chain and seen_chain[key] != d:
                    out[seen_chain[key]] = "stale"
                seen_chain[key] = d
    return out


def _chain(text: str) -> str:
    if text.startswith("Pinned "):
        return "pin:" + text.split()[1]
    if text.startswith("To rebuild the "):
        return "cmd:" + text[len("To rebuild the ") :].split(",")[0]
    return "fix:" + text


if __name__ == "__main__":
    main()
