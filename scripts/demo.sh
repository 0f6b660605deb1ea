#!/usr/bin/env bash
# The main job on the embedded default: set up .venv, then write → recall → dream → review
# on a conversation memvault wrote itself, in a throwaway vault (nothing else running).
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
memvault_env "ml,server"
cd "$ROOT"
exec memvault demo "$@"
