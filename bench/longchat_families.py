"""The families of the generated long-chat sets (bench/longchat_data.py): the topics and the
reply frames every session is made of, and each category's planted statements and questions,
four families apiece (a family = one way of saying a thing and of asking about it; SPLIT says
which are dev and which test). Tables only: the generator reads them in this order, so moving a
row moves every draw."""

from __future__ import annotations

SPLIT = {0: "dev", 1: "test", 2: "dev", 3: "test"}

TOPICS: dict[str, list[str]] = {
    "running": ["training plan", "long run", "pace", "shoes", "recovery", "knee", "intervals"],
    "cooking": ["recipe", "oven", "spices", "dinner", "sauce", "meal prep", "restaurant"],
    "travel": ["itinerary", "flights", "hotel", "museum", "train", "neighbourhood", "budget"],
    "garden": ["tomatoes", "compost", "watering", "seedlings", "soil", "shade", "pruning"],
    "money": ["budget", "savings", "pension", "credit card", "rent", "index fund", "taxes"],
    "home": ["paint", "nursery", "shelves", "lighting", "sofa", "curtains", "kitchen"],
    "music": ["guitar", "chords", "practice", "band", "concert", "album", "lessons"],
    "work": ["manager", "deadline", "presentation", "team", "promotion", "meeting", "project"],
}
FRAMES = [
    "When it comes to {a}, the most important thing is to be consistent rather than perfect",
    "A lot of people find that {a} gets easier once {b} is part of a weekly routine",
    "My favorite approach to {a} is to start small, try one change, and see how it feels",
    "You could also look at {b}; many readers say it was the thing they tried that worked",
    "If {a} has been stressful, it might help to set aside time each week just for {b}",
    "Another option is to compare two or three kinds of {b} before you decide on one",
    "It is worth keeping notes on {a} so that next time you can see what you tried and when",
    "Some people recommend asking a friend about {b}, since they know your situation well",
    "Try not to change {a} and {b} at the same time, or it is hard to tell what helped",
    "The usual advice on {b} is to think about cost, time and how much you will enjoy it",
    "I would recommend writing down your favorite parts of {a} and building on those",
    "Remember that {a} looks different for everyone, and your own pace is the right pace",
    "A simple checklist for {b} can save a lot of time over the next few months",
    "If you want, I can put together a short plan for {a} that includes {b} as well",
    "Many experts suggest reviewing {a} every few weeks and adjusting {b} as needed",
    "It can be fun to treat {a} as an experiment: try something new and note the result",
]
USER_ASKS = [
    "Can you help me think through my {a}?",
    "Any tips on {a}? I want to get better at it.",
    "I'm trying to sort out {a} this week, where do I start?",
    "What do you think about {a} versus {b}?",
    "Quick question about {b} for my {a}.",
    "I'd love some ideas for {a}, nothing too complicated.",
]

RARE = [  # (topic, said, asked, family)
    ("running", "My physio, Dr. Okonkwo, told me to ice the knee twice a day.",
     "What did Dr. Okonkwo tell me to do?", 0),
    ("cooking", "The chef at Zanzibar Grill showed us how to toast cumin seeds first.",
     "What did I learn at Zanzibar Grill?", 1),
    ("music", "My teacher Ingrid Halvorsen wants me to practise barre chords slowly.",
     "What does Ingrid Halvorsen want me to work on?", 2),
    ("money", "The adviser at Brightwater Capital suggested moving my savings into bonds.",
     "What did Brightwater Capital suggest?", 3),
    ("garden", "Our neighbour Mr. Ferreira gave us cuttings of his fig tree.",
     "What did Mr. Ferreira give us?", 0),
    ("travel", "We booked the Hotel Vasquez near the old harbour for the last two nights.",
     "Where is Hotel Vasquez?", 1),
    ("home", "The decorator, Tamsin Obi, picked a warm grey for the hallway.",
     "Which colour did Tamsin Obi choose?", 2),
    ("work", "Kowalczyk from finance signed off on the new laptop budget.",
     "What did Kowalczyk approve?", 3),
]  # fmt: skip
SPELLING = [
    ("home", "My favourite colour for the nursery is sage green.",
     "What is my favorite color for the nursery?", 0),
    ("cooking", "I finally organised the spice drawer by flavour.",
     "How did I organize my spice drawer?", 1),
    ("garden", "The grey mould on the tomatoes is gone after I cut the lower leaves.",
     "What did I do about the gray mold on my tomatoes?", 2),
    ("work", "I'm on the programme committee for the autumn conference now.",
     "Which program committee am I on for the fall conference?", 3),
    ("music", "I've been analysing the harmonies on my favourite jazz album.",
     "Which album have I been analyzing?", 0),
    ("travel", "We travelled to the centre of Lyon by tram, it was a lovely neighbourhood.",
     "How did we travel to the center of Lyon?", 1),
    ("money", "I cancelled the cheque for the gym and set up a standing order instead.",
     "What did I do instead of the check for the gym?", 2),
    ("running", "My metre-by-metre pacing practice at the track is really paying off.",
     "What pacing practice have I been doing at the track?", 3),
]  # fmt: skip
OUTINGS = [  # (topic, thing, values, said templates by family, question by family)
    ("cooking", "ramen place", ["Menya Koji", "Tonkotsu Ya", "Ramen Hoshi", "Kuroi Bowl"]),
    ("travel", "day trip", ["Bruges", "Delft", "Ghent", "Haarlem"]),
    ("music", "concert", ["the Arlo Quartet", "Neon Fields", "Sister Oak", "the Velvet Tides"]),
    ("home", "furniture shop", ["Hallberg's", "Oakroom", "Nordica Living", "Casa Pino"]),
]
OUTING_SAY = [
    "Tried a new {thing} tonight: {v}.",
    "We went to {v} today, my pick for the {thing} this time.",
    "Just back from {v}, the {thing} everyone talks about.",
    "Today's {thing} was {v}, worth it.",
]
OUTING_ASK = [
    "Which {thing} did I go to about {ago}?",
    "Remind me of the {thing} from {ago}?",
    "What was the {thing} I visited {ago}?",
    "The {thing} I tried {ago}, what was it called?",
]
ACTIVITIES = [("running", "trail run"), ("music", "open mic"), ("garden", "allotment shift"),
              ("cooking", "pasta class")]  # fmt: skip
COUNT_SAY = [
    "Did my {a} this morning.",
    "Another {a} today, feeling good about it.",
    "Went to the {a} again after work.",
    "Fit in a quick {a} before lunch.",
]
COUNT_ASK = [
    "How many times did I do the {a}?",
    "How often have I been to the {a} so far?",
    "Count the times I mentioned going to the {a}.",
    "In total, how many {a}s did I do?",
]
QUOTE_ASK = [
    'You once wrote "{q}", what was that about?',
    'Find where you said "{q}".',
    'I remember the line "{q}" from one of your answers.',
    'Where did "{q}" come up?',
]
RECOMMEND = [
    ("cooking", "For the lamb I'd recommend a Rioja Reserva, it stands up to rosemary.",
     "Which wine did you recommend for the lamb?", 0),
    ("travel", "I'd suggest the Alfama walking route, starting at the Sé cathedral.",
     "What walking route did you suggest in Lisbon?", 1),
    ("running", "Try the Hanson method: six days a week with a sixteen-mile long run.",
     "What marathon method did you recommend?", 2),
    ("money", "A good choice would be a Vanguard LifeStrategy fund for simplicity.",
     "Which fund did you recommend to me?", 3),
]  # fmt: skip
UPDATES = [  # (topic, attribute question by family, values, said by family)
    ("work", ["Who do I report to now?", "Who is my current manager?",
              "Who's my boss these days?", "Who am I reporting to at the moment?"],
     ["Priyanka", "Osei", "Marguerite"],
     ["My manager is {v} now.", "Reorg again: I report to {v} from Monday.",
      "{v} took over as my boss.", "I've been moved under {v}."]),
    ("home", ["Where do I live now?", "What's my current address area?",
              "Which neighbourhood am I in these days?", "Where am I living at the moment?"],
     ["Clapham", "Walthamstow", "Ealing"],
     ["We live in {v} now.", "Moving day done, hello {v}!",
      "Our new flat is in {v}.", "Signed the lease in {v} today."]),
]  # fmt: skip
AGO = [("about two months ago", 60), ("last week", 7), ("about five months ago", 150),
       ("three weeks ago", 21)]  # fmt: skip
