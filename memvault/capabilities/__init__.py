"""Capabilities: one module per thing a user can do with a vault, each a small class with
typed inputs and outputs over the store and the settings. Surfaces (the SDK facade, REST,
MCP, the CLI, the console, the clients) call them; :mod:`memvault.capabilities.registry`
lists every operation once, with its scope, and the surfaces are checked against it.

Forget is the first capability written this way (docs/architecture.md, issue 29)."""
