"""``memvault serve``: the REST API on this machine's vault, with in-process jobs."""

from __future__ import annotations

from typing import Annotated

import typer

from memvault.cli.output import console, handle_errors, open_vault


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)


@handle_errors
def serve(
    host: Annotated[str | None, typer.Option(help="Default: server__host (127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Default: server__port (8080).")] = None,
    check_every: Annotated[
        float | None,
        typer.Option(
            help="Seconds between dream checks (default: server__dream_check_interval_s)."
        ),
    ] = None,
) -> None:
    """Serve the REST API (OpenAPI docs at /docs) on the embedded vault: jobs and the
    nightly dream check run in this process, no Redis needed. Needs the 'server' extra and
    an admin key (MEMVAULT_SERVER__ADMIN_KEY) to create namespace keys."""
    try:
        import uvicorn

        from api.app import create_app
    except ImportError as exc:
        raise typer.BadParameter(
            f"the server extra is not installed ({exc.name}): pip install 'memvault[server]'"
        ) from exc
    from memvault.errors import ConfigError
    from memvault.jobs import InProcessJobs

    vault = open_vault(create=True)
    s = vault.settings.server
    if not s.admin_key:
        raise ConfigError(
            "no admin key: set MEMVAULT_SERVER__ADMIN_KEY to a long random string",
            setting="server.admin_key",
        )
    jobs = InProcessJobs(vault.c, interval_s=check_every or s.dream_check_interval_s)
    console.print(f"memvault API on http://{host or s.host}:{port or s.port} (docs: /docs)")
    uvicorn.run(create_app(vault, jobs), host=host or s.host, port=port or s.port)
