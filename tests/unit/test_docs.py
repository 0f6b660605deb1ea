"""The docs stay true: every setting is documented, the README's commands exist."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from memvault.config import DreamSettings, RecallSettings, Settings

ROOT = Path(__file__).resolve().parents[2]


def _leaves(model: type[BaseModel]) -> set[str]:
    out: set[str] = set()
    for name, f in model.model_fields.items():
        kind = f.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            out |= _leaves(kind)
        else:
            out.add(name)
    return out


def test_every_setting_is_documented() -> None:
    doc = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `(\w+)` \|", doc, flags=re.M))
    every = _leaves(Settings)
    assert every - documented == set()
    assert documented <= every
    assert _leaves(RecallSettings) | _leaves(DreamSettings) <= every


def test_readme_commands_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for script in re.findall(r"^bash (scripts/\S+)", readme, flags=re.M):
        assert (ROOT / script).is_file(), script
    for link in re.findall(r"\]\(((?:docs|bench)/[^)#]+)\)", readme):
        assert (ROOT / link).exists(), link
