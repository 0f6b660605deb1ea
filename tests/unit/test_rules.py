import pytest

from memvault.ingest.rules import extract


def facts(text: str, speaker: str | None = "Ana") -> set[tuple[str, str, str]]:
    return {(f.subject, f.predicate, f.object) for f in extract(text, speaker=speaker).facts}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in Lisbon.", ("Ana", "lives_in", "Lisbon")),
        ("Big news: I moved to Porto last week!", ("Ana", "lives_in", "Porto")),
        ("I prefer dark roast coffee", ("Ana", "prefers", "dark roast coffee")),
        ("My manager is Sarah Connor and she is kind.", ("Ana", "manager", "Sarah Connor")),
        ("my favorite color is green", ("Ana", "favorite_color", "green")),
        ("I work at Helio Labs as an engineer", ("Ana", "works_at", "Helio Labs")),
        ("I'm 34 years old", ("Ana", "age", "34")),
    ],
)
def test_first_person_statements_become_facts(text: str, expected: tuple[str, str, str]) -> None:
    assert expected in facts(text)


def test_without_speaker_the_subject_is_the_user() -> None:
    assert ("user", "lives_in", "Oslo") in facts("I live in Oslo", speaker=None)


def test_text_without_first_person_statements_yields_no_facts() -> None:
    assert facts("The weather in Oslo was cold and Ana lives far away.") == set()


def test_named_entities_skip_sentence_starters_and_type_by_cue() -> None:
    found = {
        e.name: e.type
        for e in extract(
            "Yesterday I flew to Tokyo with my friend Kenji. Thanks!", speaker="Ana"
        ).entities
    }
    assert found["Ana"] == "person"
    assert found["Tokyo"] == "place"
    assert found["Kenji"] == "person"
    assert "Yesterday" not in found and "Thanks" not in found


@pytest.mark.parametrize(
    ("text", "names", "tentative"),
    [
        # a contraction of a common word is no name: "It's" was read as the entity "It"
        ("It's great. That's fun! You're right, Mel. Can't wait.", {"Mel"}, set()),
        # nor is any verb's contraction ("Don't", "Isn't" were LoCoMo entities); a
        # possessive still names its owner, though tentatively when it opens a sentence
        ("Don't worry. Isn't it odd? Won't happen. Ana's cat is fine.", set(), {"Ana"}),
        # words that open a chat sentence; an adjective only when no name follows it
        ("Sounds good! Big change: I moved. Long week.", set(), set()),
        ("Thankfully Oliver came. Seeing Caroline happy was great.", {"Oliver", "Caroline"}, set()),
        # what opens a sentence is capitalised because it comes first: an ordinary word
        # there is kept only if the namespace knows the name (memvault.ingest.pipeline), and
        # so is a longer run and the rest of it; a word no dictionary holds is a name
        ("Big Sur was amazing. Emily came along.", {"Emily"}, {"Big Sur", "Sur"}),
        ("Rose called. Lena lives in Porto.", {"Lena", "Porto"}, {"Rose"}),
        ("Pottery is my new thing. Horses have such grace!", set(), {"Pottery", "Horses"}),
        # … unless a verb's -ing or -ed form opens it: what follows is a name
        (
            "Leaving Bologna was hard. Compared to Cork, Tallinn is quiet.",
            {"Bologna", "Cork", "Tallinn"},
            {"Leaving Bologna", "Compared"},
        ),
        ("Dear Joanna, I won!", set(), {"Dear Joanna", "Joanna"}),
        ("Debugging the Java service.", {"Java"}, {"Debugging the Java"}),
        # joined by "and" to a name that stands mid-sentence: one too; a comma alone is no
        # list ("Gotcha, Jon!")
        (
            "Ana and Bo went hiking. Eve, Fay and Gus cooked.",
            {"Ana", "Bo", "Eve", "Fay", "Gus"},
            set(),
        ),
        ("Gotcha, Jon! See you. BTW, Ana called.", {"Jon", "Ana"}, {"See"}),
        # the calendar is no one's name, abbreviated or not
        ("We met on Tues and in March. Last Fri was fun.", set(), {"Last Fri"}),
        # a name is a name wherever else it stands in the text
        ("Max is here. We love Max.", {"Max"}, set()),
    ],
)
def test_what_opens_a_sentence_is_not_a_name(
    text: str, names: set[str], tentative: set[str]
) -> None:
    found = extract(text, speaker=None).entities
    assert {e.name for e in found if not e.tentative} == names
    assert {e.name for e in found if e.tentative} == tentative


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ('Thanks! "The Name of the Wind" is great.', "The Name of the Wind"),
        ('Just finished "A Dance with Dragons" last night.', "A Dance with Dragons"),
        ('It was called "Inception". Loved it.', "Inception"),
        ('A game called "Cyberpunk 2077", have you played it?', "Cyberpunk 2077"),
    ],
)
def test_a_quoted_title_is_one_name(text: str, title: str) -> None:
    """A quoted title is one name, not its capitalised pieces ("Name", "Wind"); a quoted
    sentence is not a title, and its first word opens a sentence."""
    assert {e.name for e in extract(text, speaker=None).entities if not e.tentative} == {title}


def test_a_quoted_sentence_is_no_title() -> None:
    found = extract(
        'The sign says, "Keep looking on the bright side". She said "Maybe later".', speaker=None
    )
    assert {e.name for e in found.entities if not e.tentative} == set()


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I love hiking in the Serra da Estrela.", "Serra da Estrela"),
        ("We saw Ludwig van Beethoven's house.", "Ludwig van Beethoven"),
        ("We drove on to Rio de Janeiro.", "Rio de Janeiro"),
        ("I bank with the Bank of the West.", "Bank of the West"),
        ("Lunch with Leonardo da Vinci fans.", "Leonardo da Vinci"),
    ],
)
def test_a_name_runs_on_across_its_particles(text: str, name: str) -> None:
    """One name, not its capitalised pieces; a particle only joins two capitalised words
    ("Maya and Rui" stays two names)."""
    found = {e.name for e in extract(text, speaker=None).entities if not e.tentative}
    assert name in found and not found & set(name.split())
    assert {e.name for e in extract("Maya and Rui went to Porto.", speaker=None).entities} == {
        "Maya",
        "Rui",
        "Porto",
    }


def test_object_entities_are_listed() -> None:
    names = {e.name for e in extract("my boss is Maria", speaker="Ana").entities}
    assert "Maria" in names


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We finally moved to Porto! The boxes are everywhere.", ("lives_in", "Porto")),
        ("We relocated to Madrid for good.", ("lives_in", "Madrid")),
        ("Since last month I'm based in Graz.", ("lives_in", "Graz")),
        ("I started at Northwind last week.", ("works_at", "Northwind")),
        ("Today was my first day at Helio Labs.", ("works_at", "Helio Labs")),
        ("I'm on the payments team.", ("team", "payments")),
        ("My new team is search.", ("team", "search")),
        ("Quick note: I'm vegetarian now.", ("diet", "vegetarian")),
        ("I decided to go vegan this month.", ("diet", "vegan")),
        ("I live in Lisbon with my partner.", ("lives_in", "Lisbon")),
        # a named place or employer is its run of capitalised words, whatever follows it
        ("I'm living in Nantes at the moment.", ("lives_in", "Nantes")),
        ("I work at Helio Labs as a data engineer.", ("works_at", "Helio Labs")),
        ("I moved to Rio de Janeiro, finally.", ("lives_in", "Rio de Janeiro")),
        ("I work at the local bakery.", ("works_at", "the local bakery")),
        # a place does not run on into the date of the move
        ("We moved to Braga in January, the commute is longer now.", ("lives_in", "Braga")),
        ("I started at Contoso Health in 2024.", ("works_at", "Contoso Health")),
        ("I moved to New York on Monday.", ("lives_in", "New York")),
    ],
)
def test_common_update_phrasings(text: str, expected: tuple[str, str]) -> None:
    facts = [(f.predicate, f.object) for f in extract(text, speaker="Ana").facts]
    assert expected in facts


@pytest.mark.parametrize(
    "text",
    ["We went to Rome for a week.", "We moved the meeting to Friday.", "I'm in the team chat."],
)
def test_what_is_not_an_update(text: str) -> None:
    facts = {f.predicate for f in extract(text, speaker="Ana").facts}
    assert not facts & {"lives_in", "team", "works_at", "diet"}


def test_a_description_keeps_its_with_a_place_does_not() -> None:
    facts = {(f.predicate, f.object) for f in extract(
        "I prefer short answers with code examples. I live in Lisbon with my partner.",
        speaker="Ana").facts}  # fmt: skip
    assert ("prefers", "short answers with code examples") in facts
    assert ("lives_in", "Lisbon") in facts


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("I don't like Thai food anymore, too spicy.", {("dislikes", "Thai food")}),
        ("I no longer enjoy running.", {("dislikes", "running")}),
        ("I like Thai food.", {("likes", "Thai food")}),
        # a pronoun names nothing by itself: no fact about "it"
        ("I used to cook a lot but now I hate it.", set()),
        ("I love that!", set()),
    ],
)
def test_a_negated_liking_is_a_dislike_and_a_pronoun_no_object(
    text: str, facts: set[tuple[str, str]]
) -> None:
    assert {(f.predicate, f.object) for f in extract(text, speaker="Lea").facts} == facts


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("My sister Joana lives in Porto.", {("Joana", "lives_in", "Porto")}),
        ("I live in Lisbon and Rui lives in Braga.",
         {("Lea", "lives_in", "Lisbon"), ("Rui", "lives_in", "Braga")}),
        ("My friend Ludwig van Dyke works for Deutsche Bahn now.",
         {("Ludwig van Dyke", "works_at", "Deutsche Bahn")}),
        ("Yesterday Rui moved to Braga, finally.", {("Rui", "lives_in", "Braga")}),
        # a pronoun, a word that only opens the sentence, the speaker: no third person
        ("She lives in Porto.", set()),
        ("Today moved to Friday.", set()),
        ("Everyone lives in London these days.", set()),
        ("Lea lives in Porto.", set()),
    ],
)  # fmt: skip
def test_what_a_named_person_is_said_to_do_is_their_fact(
    text: str, facts: set[tuple[str, str, str]]
) -> None:
    found = extract(text, speaker="Lea").facts
    assert {(f.subject, f.predicate, f.object) for f in found} == facts


@pytest.mark.parametrize(
    ("text", "name", "fact"),
    [
        ("I moved to St. Louis in May.", "St Louis", ("lives_in", "St Louis")),
        ("We hiked Mt. Rainier last week.", "Mt Rainier", None),
        (
            "I just started at St. Mary's Hospital in Leeds.",
            "St Mary's Hospital",
            ("works_at", "St Mary's Hospital"),
        ),
        ("Dr. Patel says my knee is fine.", "Patel", None),
    ],
)
def test_an_abbreviation_before_a_name_ends_no_sentence(
    text: str, name: str, fact: tuple[str, str] | None
) -> None:
    """ "I moved to St. Louis" lived in "St"; "Dr. Patel" opened a sentence of its own."""
    out = extract(text, speaker="Sam")
    found = {e.name: e.tentative for e in out.entities}
    assert found.get(name) is False and "St" not in found and "Mt" not in found
    assert [(f.predicate, f.object) for f in out.facts] == ([fact] if fact else [])


@pytest.mark.parametrize(
    ("text", "home"),
    [
        ("I moved to Lisbon at the start of the year.", "Lisbon"),
        ("I moved to the Netherlands.", "the Netherlands"),
        ("We finally moved to Porto!", "Porto"),
        ("I moved to the night shift.", None),
        ("I moved to the other team last week.", None),
        ("I moved to marketing.", None),
        ("Big news: I moved to the ICU at Leeds General Infirmary.", None),
        ("I'm moving to Acme Corp next month.", None),
    ],
)
def test_a_move_is_a_new_home_only_to_a_place(text: str, home: str | None) -> None:
    """ "I moved to the ICU at Leeds General Infirmary" lived in "the ICU"; "moved to the
    night shift" lived there too; "Lisbon at the start of the year" was too long to be read."""
    facts = [(f.predicate, f.object) for f in extract(text, speaker="Sam").facts]
    assert facts == ([("lives_in", home)] if home else [])


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        (
            "I live in Denver and work as a pharmacist.",
            {("lives_in", "Denver"), ("occupation", "pharmacist")},
        ),
        (
            "I moved to Boulder and started at Acme.",
            {("lives_in", "Boulder"), ("works_at", "Acme")},
        ),
        ("I love hiking but hate running.", {("likes", "hiking"), ("dislikes", "running")}),
        ("I love the self-acceptance and love theme.", {("likes", "the self-acceptance")}),
        ("I wish I could, but like I said, it's tough.", set()),
        ("I did it to learn something new and work as a team.", set()),
        ("I think my sister lives in Rome and works at Fiat.", set()),
        ("I told her to move to Rome and live with Ana.", set()),
    ],
)
def test_a_clause_after_and_shares_the_first_persons_subject(
    text: str, facts: set[tuple[str, str]]
) -> None:
    """ "I live in Denver and work as a pharmacist" gave where Sam lives, not what Sam does."""
    assert {(f.predicate, f.object) for f in extract(text, speaker="Sam").facts} == facts


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My partner is pregnant!", None),
        ("My dog is a golden retriever.", None),
        ("my manager is strict", None),
        ("My partner is Joana.", ("partner", "Joana")),
        ("Yeah, I love to. It's peaceful.", None),
        ("I love them for that.", None),
        ("I love the beach.", ("likes", "the beach")),
    ],
)
def test_an_object_that_names_nothing_is_no_fact(text: str, fact: tuple[str, str] | None) -> None:
    """Read on LoCoMo: "my partner is pregnant" made the partner "pregnant", "I love to."
    liked "to", "I love them for that" liked "them for that"."""
    facts = [(f.predicate, f.object) for f in extract(text, speaker="Sam").facts]
    assert facts == ([fact] if fact else [])


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("If I moved to Paris, I would learn French.", None),
        ("Do I live in Leeds?", None),
        ("I wish I lived in Paris.", None),
        ("Unless I move to Oslo, I stay.", None),
        ("I live in Porto, do you?", ("lives_in", "Porto")),
        ("I love sushi, have you tried it?", ("likes", "sushi")),
        ("When I moved to Paris I learned French.", ("lives_in", "Paris")),
        ("Did I tell you I moved to Oslo?", ("lives_in", "Oslo")),
        ("Did you know that I work at Acme now?", ("works_at", "Acme")),
    ],
)
def test_what_is_asked_or_supposed_is_no_fact(text: str, fact: tuple[str, str] | None) -> None:
    """ "If I moved to Paris, I would learn French." lived in Paris, and so did the question
    "Do I live in Leeds?"; a statement with a question after it still says what it says."""
    facts = [(f.predicate, f.object) for f in extract(text, speaker="Sam").facts]
    assert facts == ([fact] if fact else [])


def test_an_update_is_not_read_from_a_question_or_a_supposition() -> None:
    from memvault.kg.updates import statements

    assert statements("Do I still live in Leeds?") == []
    assert statements("If I moved to Paris I would be happy.") == []
    assert [s.value for s in statements("I moved to Porto, did you hear?")] == ["Porto"]


def test_an_assistant_states_no_fact_of_itself() -> None:
    """Found importing real ChatGPT chats: a role play's "My name is Alice" and a template's
    "My name is [Your Name]" became the assistant's name, five times over."""
    said = "My name is Alice and I live in Paris."
    assert extract(said, speaker="assistant").facts == []
    assert {(f.predicate, f.object) for f in extract(said, speaker="Maya").facts} == {
        ("name", "Alice"),
        ("lives_in", "Paris"),
    }


def test_code_placeholders_and_list_markers_are_no_objects() -> None:
    for said in (
        "My name is [Your Name].",
        "my name is {self.name}",
        "My name is <name>.",
        "I don't like #8 please give me one more",
    ):
        assert extract(said, speaker="Sam").facts == [], said
    assert [f.object for f in extract("I love C#.", speaker="Sam").facts] == ["C#"]
    # a dash before the object is punctuation, not the object; alone it is nothing
    love = extract("I love - the sound of the waves.", speaker="Deb").facts
    assert [f.object for f in love] == ["the sound of the waves"]
    assert extract("I love -", speaker="Deb").facts == []
    assert extract("I love — !", speaker="Deb").facts == []
