"""``memvault mcp``: memvault as an MCP server for agents (stdio, or streamable HTTP behind
API keys)."""

from __future__ import annotations

from typing import Annotated

import typer

from memvault.cli.output import NamespaceOpt, err_console, handle_errors, open_vault


@handle_errors
def mcp(
    namespace: NamespaceOpt = None,
    http: Annotated[bool, typer.Option("--http", help="Streamable HTTP (default: stdio).")] = False,
    host: Annotated[
        str, typer.Option(help="--http: the address (loopback by default).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="--http: the port.")] = 8765,
    url: Annotated[
        str | None, typer.Option(help="A memvault server's URL: serve its namespace over stdio.")
    ] = None,
    key: Annotated[
        str | None,
        typer.Option(help="--url: an API key of the namespace.", envvar="MEMVAULT_API_KEY"),
    ] = None,
) -> None:
    """Serve one namespace to MCP clients: tools recall, write, add_fact, feedback, facts,
    inbox, review_list, review_decide, primer, attitudes; resources memvault://primer and
    memvault://stats. The vault is this machine's (--db / MEMVAULT_DB_PATH) or a server's
    (--url URL --key KEY, over its REST API). Over --http every request needs an API key of
    the namespace (Authorization: Bearer KEY); another address than loopback needs a real
    MEMVAULT_SECRET_KEY. Needs the 'server' extra."""
    try:
        from api import mcp as server
    except ImportError as exc:
        raise typer.BadParameter(
            f"the server extra is not installed ({exc.name}): pip install 'memvault[server]'"
        ) from exc
    if url is not None:  # a remote vault, through its REST API
        from memvault.client import Client
        from memvault.errors import InvalidInputError

        if http or not key or not namespace:
            raise InvalidInputError(
                "--url serves over stdio and needs --key (or MEMVAULT_API_KEY) and -n",
                field="url",
                hint="memvault mcp --url http://host:8080 --key mvk_... -n maya",
            )
        server.build(Client(url, key, namespace=namespace), namespace).run("stdio")
        return
    vault = open_vault(create=True)
    ns = vault.ns(namespace)
    if not http:
        server.build(vault, ns).run("stdio")
        return
    import uvicorn

    app = server.http_app(vault, ns, host=host, port=port)
    err_console.print(f"memvault MCP for {ns!r} on http://{host}:{port}/mcp (API key required)")
    uvicorn.run(app, host=host, port=port, log_level="warning")


def register(app: typer.Typer) -> None:
    app.command()(mcp)
