"""What to say of a field a request body does not have: the name memvault reads for it
("text" → "content", "timestamp" → "occurred_at"), as the CLI and the SDK say it
(memvault.ingest.inputs.unknown_field). The body's model is found from the route that was
asked, then followed along the error's location (``items.0.text``: the list's items)."""

from __future__ import annotations

import typing
from collections.abc import Sequence
from typing import Any

from fastapi import Request
from pydantic import BaseModel

from memvault.ingest.inputs import unknown_field


def hint(request: Request, loc: Sequence[Any]) -> str | None:
    """The message for an ``extra_forbidden`` error at ``loc`` (starting "body"), or None
    when the model there cannot be found."""
    if not loc or loc[0] != "body" or len(loc) < 2:
        return None
    route = request.scope.get("route")
    field = getattr(route, "body_field", None)
    model: Any = getattr(getattr(field, "field_info", None), "annotation", None)
    for part in loc[1:-1]:
        model = _inner(model, part)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return None
    return unknown_field(str(loc[-1]), model.model_fields)


def _inner(model: Any, part: Any) -> Any:
    """The type one step along a location: a field's annotation, or a list's items."""
    if isinstance(part, int):
        args = [a for a in typing.get_args(model) if a is not type(None)]
        return args[0] if args else None
    if isinstance(model, type) and issubclass(model, BaseModel) and part in model.model_fields:
        annotation = model.model_fields[part].annotation
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        origin = typing.get_origin(annotation)
        if origin is not None and origin not in (list, tuple) and len(args) == 1:
            return args[0]  # Optional[X]
        return annotation
    return None
