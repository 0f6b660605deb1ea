"""The install the README's commands make: torch is the CPU build (constraints.txt pins it),
and no NVIDIA CUDA wheel came along with sentence-transformers."""

from __future__ import annotations

from importlib import metadata

import torch  # the ml extra: scripts/test.sh installs it


def test_torch_is_the_cpu_build_and_no_cuda_wheel_was_pulled() -> None:
    assert torch.version.cuda is None, "a CUDA build of torch: install with -c constraints.txt"
    cuda = sorted(
        d.metadata["Name"]
        for d in metadata.distributions()
        if (d.metadata["Name"] or "").lower().startswith(("nvidia-", "triton"))
    )
    assert cuda == [], f"CUDA wheels installed: {cuda}"
