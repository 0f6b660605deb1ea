#!/usr/bin/env bash
# Set up .venv with everything the tests need, then lint, type-check and run the whole suite.
# Extra arguments go to pytest (e.g. scripts/test.sh -k recall -x).
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
memvault_env "ml,dev,server"
cd "$ROOT"
if ! command -v chromium >/dev/null 2>&1; then
  # the console's browser tests drive Debian's chromium through Playwright (no download)
  echo "==> installing Debian's chromium (apt)" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get install -y -q chromium >/dev/null 2>&1 \
    || { $SUDO apt-get update -q >/dev/null 2>&1 && $SUDO apt-get install -y -q chromium >/dev/null 2>&1; } \
    || { echo "memvault's console tests need Debian's chromium, and apt could not install it:" \
              "run 'sudo apt-get install chromium' and try again" >&2; exit 1; }
fi
echo "==> ruff" >&2
ruff check .
ruff format --check .
echo "==> mypy" >&2
mypy
echo "==> import contracts" >&2
lint-imports --no-cache
echo "==> pytest" >&2
exec python -m pytest "$@"
