"""Something that ended: a pet that died, a car sold, a band broken up. Months of memories
name it as part of someone's life ("Biscuit loves chasing squirrels in the park"); then one
says it is over ("Our sweet Biscuit passed away last night."). A question about now ("How is
Maya's dog doing?") must not be answered by the old life first: the ending leads, and
nothing before it is lost (a question about the past still finds it).

Written before the mechanism (memvault/language/endings.py) was built. A family = one thing
that ends, one way of saying it ended, one question about now; families are split into dev
(tuned on) and test (reported). Each case: who speaks, the earlier memories naming the thing
(oldest first, a month apart), the ending, a question about now, and a question about the past
whose answer is an earlier memory.
"""

from __future__ import annotations

from typing import NamedTuple


class Ending(NamedTuple):
    family: str
    split: str
    speaker: str
    before: tuple[str, ...]
    ending: str
    now: str
    past: str  # asks about an earlier memory: the first of ``before`` answers it


CASES = [
    Ending(
        "pet died", "dev", "Maya",
        ("We adopted a beagle puppy called Biscuit, he is the sweetest dog.",
         "Biscuit loves chasing squirrels in the park every morning.",
         "Took Biscuit to the vet for his shots, all good."),
        "Our sweet Biscuit passed away last night. The house feels so empty.",
        "How is Maya's dog doing?",
        "When did Maya adopt her puppy?",
    ),
    Ending(
        "car sold", "dev", "Tom",
        ("Picked up a second-hand Volvo estate, it's called Rusty now.",
         "Rusty needed new brakes, cost me a fortune at the garage.",
         "Drove Rusty all the way to Inverness and back without trouble."),
        "Sold Rusty to a student from Leeds on Saturday.",
        "What car does Tom drive?",
        "What did Tom's Volvo need at the garage?",
    ),
    Ending(
        "band broke up", "dev", "Ana",
        ("I joined a covers band called The Lanterns, I'm on bass.",
         "The Lanterns played a wedding in Braga, the crowd loved it.",
         "Rehearsal with The Lanterns ran late again tonight."),
        "The Lanterns broke up after the summer, everyone went their own way.",
        "Is Ana still playing in a band?",
        "Where did Ana's band play a wedding?",
    ),
    Ending(
        "café closed", "test", "Lena",
        ("Found a lovely café near the office, Moss & Mill, their flat white is perfect.",
         "Working from Moss & Mill again this morning, it's my second office.",
         "The owner of Moss & Mill remembered my order today."),
        "Moss & Mill shut down for good, there's a phone shop there now.",
        "Where does Lena get her coffee near the office?",
        "Which café did Lena find near the office?",
    ),
    Ending(
        "cat put to sleep", "test", "Sam",
        ("Our cat Pepper turned twelve today, still bossing the dog around.",
         "Pepper has been sleeping on my laptop keyboard all week.",
         "Pepper's kidney diet seems to be working, the vet is pleased."),
        "We had to put Pepper to sleep on Tuesday. I miss her already.",
        "How is Sam's cat?",
        "How old did Sam's cat turn?",
    ),
    Ending(
        "relationship ended", "test", "Priya",
        ("Jonas and I have been seeing each other for three months now.",
         "Jonas cooked me dinner for my birthday, so sweet.",
         "Meeting Jonas's parents next weekend, a bit nervous."),
        "Jonas and I split up. It was mutual, but it still hurts.",
        "Who is Priya dating?",
        "What did Jonas cook for Priya's birthday?",
    ),
    Ending(
        "membership cancelled", "test", "Kai",
        ("Signed up at Iron Works gym, they have proper squat racks.",
         "Iron Works was packed tonight, waited ages for a rack.",
         "New personal best on deadlift at Iron Works today."),
        "Cancelled my Iron Works membership, the prices went up again.",
        "Which gym does Kai train at?",
        "Where did Kai set a deadlift personal best?",
    ),
]  # fmt: skip
