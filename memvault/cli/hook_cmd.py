"""Agent hooks: ``memvault hook session-start`` prints the primer when an agent's session
begins (Claude Code's ``SessionStart`` hook, and any agent CLI that runs a command at session
start and reads its output as context: docs/hooks.md); ``memvault hook prompt`` prints the
memories that matter for the prompt just sent and keeps the prompt (``UserPromptSubmit``).

A hook must never break the agent's session: whatever goes wrong (no vault yet, an unreadable
event, a locked file), it prints nothing, writes one line to stderr and exits 0.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from pathlib import PurePath
from typing import Annotated, Any, Literal

import typer

from memvault.cli.output import NamespaceOpt, open_vault
from memvault.errors import ConflictError
from memvault.folds import projects
from memvault.ingest.normalize import QUERY_MAX_CHARS
from memvault.kg.model import NAMESPACE_PATTERN
from memvault.language.text import clip

hook_app = typer.Typer(
    rich_markup_mode="markdown",
    help="Commands an agent runs from its hooks (they never fail the agent's session).",
    no_args_is_help=True,
)
_NAMESPACE = re.compile(NAMESPACE_PATTERN)
MAX_EVENT_BYTES = 1_000_000  # a hook event is a small JSON object


# how a hook answers: plain text (what most agents add to the context), or Claude Code's JSON
OutputOpt = Annotated[
    Literal["text", "claude-code"],
    typer.Option(
        help="text: plain text (what most agents add to the context); claude-code: Claude "
        "Code's JSON (hookSpecificOutput.additionalContext)."
    ),
]


def say(text: str, output: str, event: str) -> None:
    """Print a hook's answer as ``output`` asks, for the hook event named ``event``."""
    if output == "claude-code":
        context = {"hookEventName": event, "additionalContext": text}
        print(json.dumps({"hookSpecificOutput": context}))
    else:
        print(text)


def project_name(event: dict[str, Any]) -> str | None:
    """The session's project: the last part of its working directory (the name claude-mem
    records as the project)."""
    cwd = event.get("cwd")
    if not isinstance(cwd, str) or not cwd.strip():
        return None
    return PurePath(cwd.strip()).name or None


def project_namespace(name: str | None, known: list[str]) -> str | None:
    """The namespace named like the project, when the vault has one."""
    if not name:
        return None
    candidates = [name, name.lower(), re.sub(r"[^A-Za-z0-9_.:@-]+", "-", name).strip("-")]
    return next((c for c in candidates if c in known and _NAMESPACE.fullmatch(c)), None)


def read_event(raw: bytes) -> dict[str, Any]:
    """The hook's JSON object on stdin (empty input: no event)."""
    if len(raw) > MAX_EVENT_BYTES:
        raise ValueError(f"the hook's input is over {MAX_EVENT_BYTES} bytes")
    text = raw.decode("utf-8", errors="replace").strip()
    if not text:
        return {}
    event = json.loads(text)
    if not isinstance(event, dict):
        raise ValueError("the hook's input is not a JSON object")
    return event


@hook_app.command("session-start")
def session_start(
    budget: Annotated[
        int | None, typer.Option(help="Primer budget in tokens (default: fold.primer_tokens).")
    ] = None,
    output: OutputOpt = "text",
    namespace: NamespaceOpt = None,
) -> None:
    """Print the primer for the session's project. Reads the hook's event (JSON) on stdin:
    ``cwd`` names the project: its namespace when the vault has one of that name (else
    --namespace, else the default), and in it the project's own digests when it has folds
    for that project. Never fails: on any error it prints nothing, logs
    one line to stderr and exits 0."""
    try:
        event = read_event(sys.stdin.buffer.read() if not sys.stdin.isatty() else b"")
        name = project_name(event)
        with open_vault() as vault:
            ns = namespace or project_namespace(name, vault.namespaces()) or vault.ns(None)
            # a namespace with folds per project (claude-mem's): the project's digests first
            project = name if name and name in projects(vault.store, ns) else None
            text = vault.primer(namespace=ns, budget_tokens=budget, project=project).text
    except Exception as exc:  # the agent's session goes on without memories
        print(
            f"memvault hook session-start: no primer ({type(exc).__name__}: {exc})",
            file=sys.stderr,
        )
        raise typer.Exit(0) from None
    say(text, output, "SessionStart")


PROMPT_K = 5  # memories shown beside a prompt: a few lines, not a second primer
LINE_CHARS = 400  # a pasted log kept as a memory is shown by its start
# shown only when it scores at least this share of the best one: a prompt about knees and
# running brings the runs, not the cat that ranked fifth at a third of their score
PROMPT_FLOOR = 0.5


def _worth_showing(hits: list[Any], prompt: str, session: str | None, k: int) -> list[Any]:
    """The hits a prompt's context gains from: not what this session said (the agent has
    it), nor the prompt itself (said before in the same words), and near the best one."""
    said = " ".join(prompt.split()).casefold()
    kept = [
        h
        for h in hits
        if " ".join(h.text.split()).casefold() != said
        and not (session and h.episode is not None and h.episode.session_id == session)
    ]
    best = max((h.score for h in kept), default=0.0)
    return [h for h in kept if h.score >= PROMPT_FLOOR * best][:k]


def _recalled_block(hits: list[Any]) -> str:
    lines = []
    for h in hits:
        when = f"{h.episode.occurred_at:%Y-%m-%d} " if h.episode else ""
        who = f"{h.episode.speaker}: " if h.episode and h.episode.speaker else ""
        if h.fact is not None:
            when = f"{h.fact.valid_at:%Y-%m-%d} (fact) "
        lines.append(f"- {when}{who}{clip(' '.join(h.text.split()), LINE_CHARS)}")
    return "Memories that may matter here (memvault):\n" + "\n".join(lines) if lines else ""


@hook_app.command("prompt")
def prompt(
    k: Annotated[int, typer.Option(help="At most this many memories.", min=1, max=50)] = PROMPT_K,
    write: Annotated[
        bool,
        typer.Option(
            help="Also keep the prompt as a memory of the user (--speaker, the event's "
            "session), after recalling for it."
        ),
    ] = True,
    speaker: Annotated[
        str, typer.Option(help="Who the prompts are from (the name the user goes by).")
    ] = "user",
    output: OutputOpt = "text",
    namespace: NamespaceOpt = None,
) -> None:
    """Print the memories that matter for the prompt the user just sent (Claude Code's
    ``UserPromptSubmit`` hook), and keep the prompt. Reads the hook's event (JSON) on stdin:
    ``prompt`` is recalled for, as the primer's namespace is chosen (``cwd``, else
    --namespace, else the default), leaving out this session's own memories (``session_id``:
    the agent holds them) and any below half the best one's score; then, unless --no-write,
    the prompt is written as a memory (a prompt forgotten before is not). Prints nothing
    when nothing is found. Never fails: on any error it prints nothing, logs one line to
    stderr and exits 0."""
    try:
        event = read_event(sys.stdin.buffer.read() if not sys.stdin.isatty() else b"")
        said = event.get("prompt")
        if not isinstance(said, str) or not said.strip():
            return
        raw = event.get("session_id")
        session = raw.strip()[:256] if isinstance(raw, str) and raw.strip() else None
        with open_vault() as vault:
            ns = namespace or project_namespace(project_name(event), vault.namespaces())
            ns = ns or vault.ns(None)
            known = ns in vault.namespaces()
            # a pasted log or file is asked by its start; the whole prompt is still kept
            asked = clip(said, QUERY_MAX_CHARS)
            hits = list(vault.recall(asked, namespace=ns, k=2 * k + 5)) if known else []
            if write:
                fields = {"speaker": speaker, "type": "episodic", "session_id": session}
                with contextlib.suppress(ConflictError):  # forgotten before: it stays out
                    vault.write(said, namespace=ns, **fields)
        text = _recalled_block(_worth_showing(hits, said, session, k))
    except Exception as exc:  # the agent's session goes on without memories
        why = f"{type(exc).__name__}: {exc}"
        print(f"memvault hook prompt: nothing recalled ({why})", file=sys.stderr)
        raise typer.Exit(0) from None
    if not text:
        return
    say(text, output, "UserPromptSubmit")
