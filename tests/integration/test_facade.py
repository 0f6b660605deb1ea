"""The SDK facade composes one object per capability (issue 29.2): ``vault.persona.attitudes``
and the flat ``vault.attitudes`` are one method; the registry names each operation's owner;
the facade inherits nothing but ``object``."""

from __future__ import annotations

import inspect
from datetime import timedelta

from memvault import MemVault
from memvault.capabilities.registry import OPERATIONS
from memvault.clock import FixedClock
from memvault.container import Capability

FACADE_OWN = {"open", "close", "ns", "now", "dreamer"}  # the facade's own, not a capability's


def _capabilities(vault: MemVault) -> dict[str, Capability]:  # type: ignore[type-arg]
    return {n: v for n, v in vars(vault).items() if isinstance(v, Capability)}


def test_the_facade_inherits_no_method_group() -> None:
    assert MemVault.__mro__ == (MemVault, object)


def test_every_sdk_operation_is_its_capabilitys_method_under_both_names(vault: MemVault) -> None:
    capabilities = _capabilities(vault)
    assert set(capabilities) == {
        "memories", "knowledge", "forgetting", "vectors", "background", "review", "digests",
        "persona", "profiling", "interop",
    }  # fmt: skip
    for op in OPERATIONS:
        if op.on is None:
            assert not hasattr(MemVault, op.name), op.name
            continue
        flat = getattr(MemVault, op.name)
        owner = type(capabilities[op.on])
        assert flat.capability == op.on, op.name
        assert flat.__wrapped__ is getattr(owner, op.name), op.name
        assert inspect.signature(getattr(vault, op.name)) == inspect.signature(
            getattr(capabilities[op.on], op.name)
        ), op.name


def test_every_flat_name_reaches_a_capability_method(vault: MemVault) -> None:
    capabilities = _capabilities(vault)
    public = {n for n in vars(MemVault) if not n.startswith("_")}
    for name in public - FACADE_OWN:
        flat = vars(MemVault)[name]
        assert getattr(flat, "capability", None) in capabilities, name
        assert callable(getattr(capabilities[flat.capability], name)), name


def test_both_spellings_run_the_same_call_on_one_vault(vault: MemVault, clock: FixedClock) -> None:
    ns = "facade"
    first = vault.memories.write("I adopted a cat named Miso.", namespace=ns, speaker="Ana")
    clock.set(clock.now() + timedelta(days=2))
    second = vault.write("I started learning the cello.", namespace=ns, speaker="Ana")
    assert vault.get_episode(first.id, namespace=ns) == vault.memories.get_episode(
        first.id, namespace=ns
    )
    flat = vault.recall("a cat named Miso", namespace=ns)
    composed = vault.memories.recall("a cat named Miso", namespace=ns)
    assert [h.id for h in flat] == [h.id for h in composed] and "Miso" in flat[0].text
    vault.upsert_attitude(
        "learning", "Ana learns by playing the cello", namespace=ns, evidence=second.id
    )
    assert vault.persona.attitudes(namespace=ns) == vault.attitudes(namespace=ns) != []
    plan = vault.forgetting.forget(second.id, namespace=ns, dry_run=True)
    assert plan == vault.forget(second.id, namespace=ns, dry_run=True)
    assert vault.episodes(namespace=ns)[-1].id == second.id  # a dry run changed nothing
    assert vault.stats(namespace=ns) == vault.memories.stats(namespace=ns)
    assert vault.knowledge.entity_types(namespace=ns) == vault.entity_types(namespace=ns)
    assert vault.dreamer is vault.background.dreamer
