"""A text that says something came to an end for good: a life ("passed away", "put to
sleep"), a having ("sold", "gave away"), a being together ("broke up", "divorced"), a place
or a service ("closed down", "went out of business", "cancelled my membership"), a role
("quit", "resigned", "retired"). Recall reads it (memvault.recall.currency_step): for a
question about now, a newer ending of a thing the leading memories name ranks above them,
and they stay in the list.

The verbs are English's verbs of ending, grouped by what ends (the classes lexical resources
such as VerbNet draw: disappearance, relinquishing, separation, termination), not the
phrasings of any data set; they must be said as so (memvault.language.mood.asserted: not
asked, not supposed) and not denied ("we never sold it", "didn't quit"). Verbs that end
something only sometimes ("left", "lost", "stopped", "finished") are not among them: "I left
the café at noon", "we lost the match". Pure, microseconds a text.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memvault.language.mood import asserted

_ENDED = re.compile(
    r"(?<![.\w])(?:"
    # a life
    r"died|passed away|passed on|put (?:\w+ )?(?:down|to sleep)|was put down|"
    # a having
    r"sold|gave (?:\w+ )?away|given away|got rid of|traded (?:\w+ )?in|"
    # a being together
    r"broke up|broken up|split up|divorced|"
    # a place, a service, a membership, a role
    r"closed (?:down|for good|its doors|their doors)|shut down|shut for good|"
    r"went (?:out of business|bust|under)|cancell?ed|quit|resigned|retired|"
    r"handed in my notice|dropped out|moved out|"
    r"(?:is|are|was|were|it's|it is) (?:gone|over) for good|no longer (?:exists|open|around)"
    r")\b(?!\()",  # "pygame.quit()" is code
    re.IGNORECASE,
)
_DENIED = re.compile(  # denied, not yet done, or no one's: "never sold", "might quit", "being sold"
    r"(?:n't|\b(?:not|never|almost|nearly|might|may|could|would|will|going to|want to|"
    r"thinking of|plan to|planning to|about to|being|be))\s+(?:\w+\s+)?$",
    re.IGNORECASE,
)


@lru_cache(maxsize=4096)
def ends(text: str) -> bool:
    """Some sentence of ``text`` says, as so, that something ended for good."""
    for m in _ENDED.finditer(text):
        before = text[max(0, m.start() - 40) : m.start()]
        if _DENIED.search(before):
            continue
        if asserted(text, m.start()):
            return True
    return False
