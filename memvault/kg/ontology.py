"""The ontology the grounding lint checks facts against: predicates with their domain and
range types and their single-valued, volatile, acyclic and reflexive flags.

memvault ships ``ontology.yaml`` beside this module; users extend it with files of the same
shape (a later file's predicate replaces the fields it names). A file with a mistake is
refused whole, with its path, the line and what is wrong, so nothing half-loaded ever
checks a graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import yaml

from memvault.errors import InvalidInputError
from memvault.kg.model import EntityType, normalize_predicate

BUILTIN = Path(__file__).with_name("ontology.yaml")
TYPES = frozenset(t.value for t in EntityType if t is not EntityType.UNKNOWN)
_FLAGS = ("single_valued", "volatile", "acyclic", "reflexive")
_FIELDS = frozenset({"description", "domain", "range", *_FLAGS})

Range = frozenset[str] | Literal["literal", "any"]


class OntologyError(InvalidInputError):
    """An ontology file that cannot be used: where, and what to fix."""

    def __init__(self, path: Path | str, line: int | None, reason: str):
        self.path, self.line, self.reason = str(path), line, reason
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {reason}", field="ontology")


@dataclass(frozen=True)
class PredicateSpec:
    name: str
    description: str = ""
    domain: frozenset[str] | None = None  # None: any subject type
    range: Range = "any"
    single_valued: bool = False
    volatile: bool = False
    acyclic: bool = False
    reflexive: bool = False
    source: str = ""  # path:line it was (last) defined at

    def allows_subject(self, entity_type: str) -> bool:
        return self.domain is None or entity_type in self.domain

    def allows_object(self, entity_type: str | None) -> bool:
        """``entity_type`` None: the object is a value, not an entity."""
        if self.range == "any":
            return True
        if self.range == "literal":
            return entity_type is None
        return entity_type is not None and entity_type in self.range


@dataclass(frozen=True)
class Ontology:
    predicates: dict[str, PredicateSpec] = field(default_factory=dict)
    opposites: frozenset[frozenset[str]] = frozenset()
    sources: tuple[str, ...] = ()
    # predicate -> its spec, found once (a 100k-fact lint asks 300k times for a few hundred)
    _found: dict[str, PredicateSpec | None] = field(default_factory=dict, compare=False, repr=False)

    def spec(self, predicate: str) -> PredicateSpec | None:
        """The exact entry, else the longest ``prefix_*`` pattern that matches."""
        if predicate in self._found:
            return self._found[predicate]
        best = self.predicates.get(predicate)
        if best is None:
            for name, spec in self.predicates.items():
                matches = name.endswith("*") and predicate.startswith(name[:-1])
                if matches and (best is None or len(name) > len(best.name)):
                    best = spec
        self._found[predicate] = best
        return best

    def flagged(self, flag: str) -> set[str]:
        """Exact predicate names with ``flag`` set (patterns are matched by :meth:`is_`)."""
        return {n for n, s in self.predicates.items() if getattr(s, flag) and "*" not in n}

    def is_(self, predicate: str, flag: str) -> bool:
        spec = self.spec(predicate)
        return bool(spec and getattr(spec, flag))

    def opposite(self, a: str, b: str) -> bool:
        return frozenset((a, b)) in self.opposites


def load_ontology(extra: Sequence[Path | str] = (), *, builtin: bool = True) -> Ontology:
    """The shipped ontology, extended by ``extra`` files in order."""
    paths = [BUILTIN] if builtin else []
    paths += [Path(p) for p in extra]
    onto = Ontology()
    for path in paths:
        onto = _merge(onto, _parse(path))
    return onto


@dataclass
class _Parsed:
    path: str
    predicates: dict[str, tuple[dict[str, Any], int]]  # name → (fields given, line)
    opposites: list[frozenset[str]]


def _merge(base: Ontology, new: _Parsed) -> Ontology:
    predicates = dict(base.predicates)
    for name, (fields, line) in new.predicates.items():
        source = f"{new.path}:{line}"
        current = predicates.get(name) or PredicateSpec(name=name)
        predicates[name] = replace(current, **fields, source=source)
    return Ontology(
        predicates=predicates,
        opposites=base.opposites | frozenset(new.opposites),
        sources=(*base.sources, new.path),
    )


def _parse(path: Path) -> _Parsed:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise OntologyError(path, None, f"cannot read the file ({exc.strerror})") from exc
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else None
        raise OntologyError(path, line, f"not valid YAML: {exc.problem}") from exc
    if root is None:
        raise OntologyError(path, None, "the file is empty; it needs a 'predicates' mapping")
    top = _mapping(path, root, "the file")
    unknown = set(top) - {"version", "predicates", "opposites"}
    if unknown:
        key = sorted(unknown)[0]
        raise OntologyError(
            path, top[key][0], f"unknown top-level key {key!r} (use version, predicates, opposites)"
        )
    if "version" in top and _scalar(top["version"][1], path) != "1":
        raise OntologyError(path, top["version"][0], "unsupported version (this memvault reads 1)")
    predicates: dict[str, tuple[dict[str, Any], int]] = {}
    if "predicates" in top:
        for name, (line, node) in _mapping(path, top["predicates"][1], "predicates").items():
            predicates[_predicate_name(path, line, name)] = (_fields(path, name, node), line)
    opposites = [_pair(path, node) for node in _sequence(path, top, "opposites")]
    return _Parsed(str(path), predicates, opposites)


def _mapping(path: Path, node: yaml.Node, what: str) -> dict[str, tuple[int, yaml.Node]]:
    """key → (line of the key, value node); a repeated key is an error, not a silent win."""
    if not isinstance(node, yaml.MappingNode):
        raise OntologyError(path, node.start_mark.line + 1, f"{what} must be a mapping")
    out: dict[str, tuple[int, yaml.Node]] = {}
    for key, value in node.value:
        line = key.start_mark.line + 1
        name = _scalar(key, path)
        if name in out:
            raise OntologyError(
                path, line, f"{name!r} is defined twice in {what} (first at line {out[name][0]})"
            )
        out[name] = (line, value)
    return out


def _sequence(path: Path, top: dict[str, tuple[int, yaml.Node]], key: str) -> Iterable[yaml.Node]:
    if key not in top:
        return []
    line, node = top[key]
    if not isinstance(node, yaml.SequenceNode):
        raise OntologyError(path, line, f"{key} must be a list")
    return list(node.value)


def _scalar(node: yaml.Node, path: Path | str = "") -> str:
    if not isinstance(node, yaml.ScalarNode):
        raise OntologyError(path, node.start_mark.line + 1, "expected a single value here")
    return str(node.value)


def _predicate_name(path: Path, line: int, name: str) -> str:
    stem = name[:-1] if name.endswith("*") else name
    if not stem or normalize_predicate(stem) + ("_" if stem.endswith("_") else "") != stem:
        raise OntologyError(
            path,
            line,
            f"predicate {name!r} is not snake_case (write it as {normalize_predicate(name)!r})",
        )
    return name


def _fields(path: Path, predicate: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode) and node.value in ("", "~", "null"):
        return {}
    out: dict[str, Any] = {}
    for key, (line, value) in _mapping(path, node, f"predicate {predicate!r}").items():
        if key not in _FIELDS:
            raise OntologyError(
                path,
                line,
                f"unknown field {key!r} for predicate {predicate!r} "
                f"(allowed: {', '.join(sorted(_FIELDS))})",
            )
        if key in _FLAGS:
            text = _scalar(value, path).lower()
            if text not in ("true", "false"):
                raise OntologyError(path, line, f"{key} must be true or false, got {text!r}")
            out[key] = text == "true"
        elif key == "description":
            out[key] = _scalar(value, path)
        elif key == "domain":
            out[key] = _types(path, line, value, key)
        else:
            if isinstance(value, yaml.ScalarNode):
                if value.value not in ("literal", "any"):
                    raise OntologyError(
                        path,
                        line,
                        f"range must be a list of entity types, 'literal' or 'any', "
                        f"got {value.value!r}",
                    )
                out[key] = value.value
            else:
                out[key] = _types(path, line, value, key)
    return out


def _types(path: Path, line: int, node: yaml.Node, key: str) -> frozenset[str]:
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise OntologyError(path, line, f"{key} must be a non-empty list of entity types")
    names = [_scalar(v, path) for v in node.value]
    for n, name in zip(node.value, names, strict=True):
        if name not in TYPES:
            raise OntologyError(
                path,
                n.start_mark.line + 1,
                f"unknown entity type {name!r} in {key} (known: {', '.join(sorted(TYPES))})",
            )
    return frozenset(names)


def _pair(path: Path, node: yaml.Node) -> frozenset[str]:
    line = node.start_mark.line + 1
    if not isinstance(node, yaml.SequenceNode) or len(node.value) != 2:
        raise OntologyError(path, line, "each opposites entry must be a pair: [a, b]")
    a, b = (_scalar(v, path) for v in node.value)
    if a == b:
        raise OntologyError(path, line, f"{a!r} cannot be its own opposite")
    return frozenset((a, b))
