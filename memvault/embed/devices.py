"""Which runtime runs the packaged MiniLM, given where it may run.

``embedder_runtime=auto`` prefers ONNX Runtime (faster on a CPU). On a GPU machine the
usual install is the CPU build of ONNX Runtime beside a CUDA build of torch: ONNX Runtime
there would leave the GPU idle, so ``auto`` hands the model to torch on CUDA. Probing
costs imports (torch takes seconds), so the GPU is asked about only where the NVIDIA driver
is present, or where the user asked for ``cuda``.
"""

from __future__ import annotations

from pathlib import Path


def nvidia_driver_present() -> bool:
    """The NVIDIA kernel driver is loaded (no import, no GPU call)."""
    return Path("/proc/driver/nvidia/version").exists() or Path("/dev/nvidiactl").exists()


def onnx_has_cuda() -> bool:
    try:
        import onnxruntime as ort
    except ImportError:
        return False
    return "CUDAExecutionProvider" in ort.get_available_providers()


def torch_has_cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def choose_runtime(
    runtime: str,
    device: str,
    *,
    onnx_installed: bool,
    gpu_wanted: bool,
    onnx_cuda: bool | None = None,
    torch_cuda: bool | None = None,
) -> str:
    """``onnx`` or ``torch``. ``runtime`` as configured (``auto``, ``onnx``, ``torch``);
    ``device`` as configured (``auto``, ``cpu``, ``cuda``); ``gpu_wanted``: the device is
    ``cuda``, or ``auto`` on a machine with the NVIDIA driver. The CUDA answers are asked
    for only when they decide (None: not asked)."""
    if runtime != "auto":
        return runtime
    if not onnx_installed:
        return "torch"
    if device == "cpu" or not gpu_wanted:
        return "onnx"
    if onnx_cuda:
        return "onnx"
    return "torch" if torch_cuda else "onnx"


def runtime_for(runtime: str, device: str, *, onnx_installed: bool) -> str:
    """:func:`choose_runtime` with the machine's own answers, probed lazily."""
    wanted = device == "cuda" or (device == "auto" and nvidia_driver_present())
    if runtime != "auto" or not onnx_installed or device == "cpu" or not wanted:
        return choose_runtime(runtime, device, onnx_installed=onnx_installed, gpu_wanted=wanted)
    onnx_cuda = onnx_has_cuda()
    return choose_runtime(
        runtime,
        device,
        onnx_installed=True,
        gpu_wanted=True,
        onnx_cuda=onnx_cuda,
        torch_cuda=None if onnx_cuda else torch_has_cuda(),
    )
