"""Serve an ASGI app with uvicorn on a free loopback port, in a thread: real HTTP."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from memvault.devservers import free_port


@contextmanager
def serving(app: Any) -> Iterator[str]:
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(20)


# Secrets strong enough for api.security (32+ characters, well over 128 estimated bits): the
# API refuses to serve with anything weaker.
ADMIN = "test-admin-Zq7wX2pL9vK4mN8rT1yB6cH3jF5dG0sA"
SECRET = "test-secret-Hb4Jk8Lm2Np6Qr0St3Uv7Wx1Yz5Ac9Ef"
