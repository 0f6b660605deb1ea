"""The deployment files stay true to the code: docker-compose services, health checks and
commands, the image's entry point, the beat schedule from settings."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml

from memvault.bootstrap import load_settings
from memvault.errors import ConfigError
from workers.celery_config import beat_schedule

ROOT = Path(__file__).resolve().parents[2]


def test_compose_has_every_service_with_a_healthcheck_and_volumes() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"redis", "neo4j", "api", "worker", "beat"}
    assert all("healthcheck" in s for s in services.values())
    assert {"data", "redis", "neo4j"} <= set(compose["volumes"])
    for name in ("api", "worker", "beat"):
        env = services[name]["environment"]
        assert env["MEMVAULT_SERVER__REDIS_URL"] == "redis://redis:6379/0"
        assert env["MEMVAULT_STORE"].endswith("neo4j}")
    for name in ("worker", "beat"):
        command = services[name]["command"]
        assert command[:3] == ["celery", "-A", "workers.app"]
    assert importlib.util.find_spec("workers.app") is not None


def test_the_image_serves_the_api_module() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert '"api.main:build", "--factory"' in text and ".[ml,llm,server]" in text
    assert importlib.util.find_spec("api.main") is not None


def test_beat_schedule_comes_from_settings() -> None:
    nightly = beat_schedule(load_settings())["dream-check"]
    assert nightly["task"] == "memvault.dream_check"
    assert str(nightly["schedule"]).startswith("<crontab: 0 3 *")
    every = beat_schedule(load_settings(server={"dream_check_every_s": 30}))["dream-check"]
    assert every["schedule"] == 30
    with pytest.raises(ConfigError, match="five fields"):
        beat_schedule(load_settings(server={"dream_check_cron": "nightly"}))


def test_the_celery_app_reads_settings_when_configured_not_at_import() -> None:
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMVAULT_")}
    code = (
        "import workers.app as w\n"
        "print('imported')\n"
        "try:\n"
        "    w.app.conf.broker_url\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.stdout.splitlines()[0] == "imported"
    assert "ConfigError server.redis_url" in done.stdout
