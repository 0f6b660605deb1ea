#!/usr/bin/env bash
# Set up .venv with everything the tests need, then lint, type-check and run the whole suite.
# Extra arguments go to pytest (e.g. scripts/test.sh -k recall -x).
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
memvault_env "ml,dev,server"
cd "$ROOT"
echo "==> ruff" >&2
ruff check .
ruff format --check .
echo "==> mypy" >&2
mypy
echo "==> pytest" >&2
exec python -m pytest "$@"
