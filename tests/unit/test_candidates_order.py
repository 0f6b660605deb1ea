"""Equal scores take one order, whatever order the channels found the candidates in (a
channel's order of near ties follows the last bits of a vector: memvault.recall.candidates)."""

from datetime import timedelta
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from memvault.embed.steady import nearest_steady, steady
from memvault.kg.model import Episode
from memvault.recall.candidates import Candidates
from tests.conftest import T0

TEXTS = ("I see.", "Good to know.", "The bakery opens at seven.")


def candidates(rows: list[tuple[int, int, int]]) -> tuple[Candidates, list[Episode]]:
    c = Candidates("n")
    episodes = [
        Episode(namespace="n", content=TEXTS[text], occurred_at=T0 + timedelta(days=day),
                created_at=T0, session_id=f"s{day}", position=n)
        for n, (day, text, _) in enumerate(rows)
    ]  # fmt: skip
    return c, episodes


rows = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=12
)


@given(rows=rows, seed=st.randoms(use_true_random=False))
@settings(max_examples=200, deadline=None)
def test_equal_scores_rank_alike_in_any_order_found(rows, seed) -> None:  # type: ignore[no-untyped-def]
    """Scores from three levels (many ties), the keys inserted in two random orders: the
    same list, best first, ties newest first."""
    c, episodes = candidates(rows)
    c.episodes = {e.id: e for e in episodes}
    score = {("episode", e.id): level / 2 for e, (_, _, level) in zip(episodes, rows, strict=True)}
    keys = list(score)
    orders = []
    for _ in range(2):
        seed.shuffle(keys)
        orders.append(c.by_score({k: score[k] for k in keys}, "episode"))
    assert orders[0] == orders[1]
    ranked = orders[0]
    assert [score[k] for k in ranked] == sorted(score.values(), reverse=True)
    for a, b in pairwise(ranked):
        if score[a] == score[b]:
            assert c.order(a) >= c.order(b)


def test_a_cosine_is_kept_to_five_decimals() -> None:
    """Two cosines 1e-8 apart (the same text embedded in two batches) are one value; 1e-4
    apart, two."""
    assert steady(0.6123456) == steady(0.6123456 + 1e-8) == 0.61235
    assert steady(0.61234) != steady(0.61244)


@given(
    levels=st.lists(st.integers(30_000, 30_004), min_size=1, max_size=60),
    n=st.integers(1, 20),
    seed=st.randoms(use_true_random=False),
)
@settings(max_examples=200, deadline=None)
def test_the_nearest_are_cut_where_the_rounded_scores_say(levels, n, seed) -> None:  # type: ignore[no-untyped-def]
    """Cosines on a 1e-5 grid (many ties, runs of ties longer than the margin asked for),
    each moved by under 1e-8 one way in one copy and another way in the other, the index
    ordering by those last bits: both copies keep the same turns, the first ``n`` by rounded
    score and every one tied with the ``n``-th."""
    cosines = {f"t{i}": level / 100_000 for i, level in enumerate(levels)}
    copies = []
    for _ in range(2):
        moved = {i: c + seed.uniform(-9e-9, 9e-9) for i, c in cosines.items()}
        ranked = sorted(moved.items(), key=lambda kv: -kv[1])
        copies.append(nearest_steady(lambda k, ranked=ranked: ranked[:k], n))
    assert {i for i, _ in copies[0]} == {i for i, _ in copies[1]}
    assert all(score == steady(cosines[i]) for i, score in copies[0])
    nth = sorted(cosines.values(), reverse=True)[min(n, len(levels)) - 1]
    assert {i for i, _ in copies[0]} == {i for i, c in cosines.items() if c >= nth}
