"""Imports of whole chat histories: a ChatGPT or Claude export (memvault.interop.chat_import,
the same reader and checks as ``memvault ingest``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from api.deps import Jobs, Namespace, Vault
from api.routers.memory import queue_catch_up
from memvault.interop.chat_import import import_chat_export

router = APIRouter(prefix="/v1/ns/{namespace}", tags=["memory"])


@router.post(
    "/imports/chat-export",
    status_code=201,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"type": "array", "items": {"type": "object"}}},
                "application/zip": {"schema": {"type": "string", "format": "binary"}},
            },
        }
    },
    responses={200: {"description": "A dry run: what would be written, nothing written."}},
)
async def chat_export(
    request: Request,
    ns: Namespace,
    vault: Vault,
    jobs: Jobs,
    format: Annotated[
        Literal["chatgpt", "claude"] | None,
        Query(description="The export's kind (default: read from the data)."),
    ] = None,
    speaker: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=256,
            description="The name of the person's own messages (default: user).",
        ),
    ] = None,
    dry_run: Annotated[
        bool, Query(description="Read and check everything, write nothing (200).")
    ] = False,
    skip_invalid: Annotated[
        bool,
        Query(
            description="Write what can be read and list the rest (default: refuse the "
            "whole export, every problem listed)."
        ),
    ] = False,
) -> JSONResponse:
    """Import a ChatGPT or Claude data export: the body is its `conversations.json` (a JSON
    list of conversations) or the export's .zip. Each message a memory, the conversation its
    session; importing it again writes nothing twice and a forgotten message stays forgotten.
    An export larger than the body limit (`server.max_body_bytes`) is sent in parts: any
    slice of its list of conversations is itself an export."""
    raw = await request.body()

    def run() -> dict[str, Any]:
        return import_chat_export(
            vault,
            raw,
            namespace=ns,
            fmt=format,
            user=speaker,
            dry_run=dry_run,
            skip_invalid=skip_invalid,
        )

    report = await run_in_threadpool(run)
    queue_catch_up(jobs, ns, report.get("vectors_pending", 0))
    return JSONResponse(report, status_code=200 if dry_run else 201)
