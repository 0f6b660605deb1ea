"""Facts said inside a request: a category of the long-chat sets (bench/longchat_data.py,
``asked=True``) that measures what recall's ``asks`` cut risks. People tell an assistant
about their lives while asking it for something ("Is it normal for my six-month-old to wake
up every two hours?"), and the request is then the only place the fact was said; a turn that
only asks keeps 70% of its score (memvault.language.mood, docs/recall.md). Nothing in these
lines names anything or holds a digit, so no exemption for names covers them.

Four families (a family = one way of putting a fact into a request), split like the other
categories (0 and 2 dev, 1 and 3 test): 0 "can you recommend ... for my ...", 1 "how should
I ... now that ...", 2 "is it normal / safe for my ...", 3 a request in no person at all ("Any
ideas for a dinosaur party for a seven-year-old?"), which speaks of nobody and tells only by
what it asks about.
"""

from __future__ import annotations

ASKED = [  # (topic, said, asked, family)
    ("travel", "Can you suggest a quiet hotel for my parents' fortieth anniversary trip?",
     "Which anniversary are my parents celebrating?", 0),
    ("running", "Could you recommend insoles for my flat feet and weak arches?",
     "What problem do I have with my feet?", 0),
    ("garden", "Can you recommend a shade plant for my north-facing balcony?",
     "Which way does my balcony face?", 0),
    ("running", "How should I change my training now that I've torn a ligament in my ankle?",
     "What injury did I get?", 1),
    ("money", "How do I budget now that my hours were cut to three days a week?",
     "How many days a week do I work now?", 1),
    ("music", "How can I keep practising piano while my wrist is in a cast?",
     "Why can't I practise normally?", 1),
    ("home", "Is it normal for my six-month-old to wake up every two hours at night?",
     "How old is my baby?", 2),
    ("cooking", "Is it safe to feed my lactose-intolerant husband goat cheese?",
     "What can't my husband digest?", 2),
    ("garden", "Is it okay that my lemon tree drops leaves every winter indoors?",
     "What kind of tree do I keep inside?", 2),
    ("home", "Any ideas for a dinosaur party for a seven-year-old?",
     "What theme is the birthday party?", 3),
    ("cooking", "What goes well with a vegetarian lasagne for twelve guests?",
     "How many people am I cooking for?", 3),
    ("travel", "Which ferry is quickest to the island with a camper van?",
     "What vehicle am I taking on the ferry?", 3),
]  # fmt: skip
