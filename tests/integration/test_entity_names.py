"""Which capitalised words become entities, through the real write pipeline: a word that
opens a sentence is capitalised because it comes first: an ordinary word there ("Horses
have such grace!") becomes an entity only when the namespace already knows the name;
elsewhere, or when no dictionary holds it ("Lena lives in Porto"), a capitalised word is a
name (bench/entity_names.py measures it on LoCoMo)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from memvault import FixedClock, MemVault

T = datetime(2025, 5, 1, tzinfo=UTC)


def names_of(vault: MemVault, episode_id: str) -> set[str]:
    mentions = vault.store.mentions_of("default", [episode_id])
    return {e.name for e in vault.store.get_entities("default", [m.entity_id for m in mentions])}


def test_what_opens_a_sentence_is_an_entity_only_once_its_name_is_known(tmp_path: Path) -> None:
    with MemVault.open(tmp_path / "v.db", clock=FixedClock(T + timedelta(days=3))) as vault:
        first = vault.write("Horses have such grace! Rose loves them.", speaker="Ana", now=T)
        assert names_of(vault, first.id) == {"Ana"}  # ordinary words that open sentences
        said = vault.write("We adopted a puppy and named her Rose.", speaker="Ana", now=T)
        assert names_of(vault, said.id) == {"Ana", "Rose"}  # in mid-sentence: a name
        later = vault.write(
            "Rose! She brings us joy. Horses too.", speaker="Ana", now=T + timedelta(days=1)
        )
        assert names_of(vault, later.id) == {"Ana", "Rose"}  # known now; "Horses" is not
        lena = vault.write("Lena lives in Porto.", speaker="Ana", now=T)
        assert names_of(vault, lena.id) == {"Ana", "Lena", "Porto"}  # no dictionary word
        moved = vault.write("Leaving Bologna was hard.", speaker="Ana", now=T + timedelta(days=2))
        assert names_of(vault, moved.id) == {"Ana", "Bologna"}  # after a verb's -ing form


def test_a_speakers_nickname_is_their_alias(tmp_path: Path) -> None:
    """ "Hey Mel!" before Melanie's first turn names Melanie (the one speaker whose first name
    it begins); later writes find her by it. A word two speakers' names begin stays a name
    of its own."""
    with MemVault.open(tmp_path / "v.db", clock=FixedClock(T + timedelta(days=3))) as vault:
        vault.write_many(
            [
                {
                    "content": "Hey Mel! How was the hike?",
                    "speaker": "Caroline",
                    "session_id": "s1",
                },
                {"content": "Great, thanks Caroline!", "speaker": "Melanie", "session_id": "s1"},
            ],
            now=T,
        )
        later = vault.write("Thanks, Mel! See you soon.", speaker="Caroline", now=T)
        assert names_of(vault, later.id) == {"Caroline", "Melanie"}
        (melanie,) = vault.store.find_entities("default", ["Mel"])
        assert melanie.name == "Melanie" and "Mel" in melanie.aliases
        vault.write_many(
            [
                {"content": "Morning all.", "speaker": "Samuel", "session_id": "s2"},
                {"content": "Morning!", "speaker": "Samantha", "session_id": "s2"},
                {"content": "Hey Sam, coffee?", "speaker": "Caroline", "session_id": "s2"},
            ],
            now=T + timedelta(days=1),
        )
        (sam,) = vault.store.find_entities("default", ["Sam"])
        assert sam.name == "Sam"  # Samuel or Samantha: not guessed


def test_a_name_that_keeps_opening_sentences_is_a_name(tmp_path: Path) -> None:
    """A name that is also an ordinary word ("Bill"), said only where a sentence starts, in
    three memories of one write and never in lower case there, is a name ("Bill called
    again…"); a word written in lower case too is not ("Gaming can be fun" beside "I love
    gaming"), nor a verb's -ing form that keeps opening lines ("Dancing brings me joy")."""
    lines = [f"Bill called again about invoice {i}." for i in range(3)]
    lines += [f"Gaming can be fun, day {i}." for i in range(3)] + ["I love gaming."]
    lines += [f"Dancing brings me joy, day {i}." for i in range(3)]  # a verb's -ing form
    # words joined by a hyphen, the same test: "check-in" in lower case once, no name
    lines += [f"Check-in went well, day {i}." for i in range(3)] + ["The check-in was slow."]
    # an assistant's discourse words and list items' verbs open line after line and are
    # never written in lower case in the batch; no dictionary or census knows them as names
    # (found importing real ShareGPT chats: "Certainly", "Furthermore", "Utilize" were
    # entities)
    lines += [f"Certainly! Here is plan {i}." for i in range(3)]
    lines += [f"Furthermore, step {i} matters." for i in range(3)]
    lines += [f"Define the budget for trip {i}." for i in range(3)]
    with MemVault.open(tmp_path / "v.db", clock=FixedClock(T + timedelta(days=3))) as vault:
        result = vault.write_many(
            [{"content": x, "speaker": "Ana", "session_id": "s1"} for x in lines], now=T
        )
        named = set().union(*(names_of(vault, i) for i in result.episode_ids))
    assert named == {"Ana", "Bill"}
