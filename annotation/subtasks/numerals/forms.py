"""Is a word a Polish numeral form? Looked up in Morfeusz 2 (SGJP dictionary).

The numerals widget underlines the words of an answer that are not numeral forms, as a
warning against typos ("dwudziesu"); it never blocks saving and never proposes a form.

A word counts as a numeral form when one of its Morfeusz interpretations, covering the
whole word as one segment, is:

- a cardinal or collective numeral: tag ``num`` (dwudziestu, stu, dwojga, pół, półtora);
- a form of tysiąc, milion or miliard, which SGJP also files as nouns (tysięcy, milionów);
- an ordinal: Morfeusz tags ordinals ``adj`` like any adjective, so an adjective counts only
  when its lemma is an ordinal. The lemma is decided by derivation, not by a list of every
  form: the simple ordinals (pierwszy ... dziewiętnasty, dwudziesty ... dziewięćdziesiąty,
  setny ... dziewięćsetny) are listed in ``SIMPLE_ORDINALS``; the others are compounds
  ending in -tysięczny, -milionowy or -miliardowy whose prefix is made only of numeral
  combining forms (dwu-, trzy-, dwudziesto-, stu-, pięćset-, półtora- ...), as in
  dwutysięczny, dwudziestopięciotysięczny, stutysięczny;
- "jeden" in any form (SGJP files its forms as an adjective: jedna, jednego);
- the conjunction "i" (dwa i pół).

Morfeusz is loaded on first use, once per process; one lock serialises lookups because a
Morfeusz instance must not be used by two threads at once.
"""

import re
import threading
from dataclasses import dataclass
from functools import lru_cache

import morfeusz2

SIMPLE_ORDINALS = frozenset(
    """
    pierwszy drugi trzeci czwarty piąty szósty siódmy ósmy dziewiąty
    dziesiąty jedenasty dwunasty trzynasty czternasty piętnasty szesnasty siedemnasty
    osiemnasty dziewiętnasty
    dwudziesty trzydziesty czterdziesty pięćdziesiąty sześćdziesiąty siedemdziesiąty
    osiemdziesiąty dziewięćdziesiąty
    setny dwusetny trzechsetny trzysetny czterechsetny czterysetny pięćsetny sześćsetny
    siedemsetny osiemsetny dziewięćsetny
    """.split()
)


# The forms a numeral takes as the first part of a compound word (dwu|tysięczny).
_COMBINING_FORMS = """
    jedno dwu trzy cztero pięcio sześcio siedmio ośmio dziewięcio
    dziesięcio jedenasto dwunasto trzynasto czternasto piętnasto szesnasto siedemnasto
    osiemnasto dziewiętnasto
    dwudziesto trzydziesto czterdziesto pięćdziesięcio sześćdziesięcio siedemdziesięcio
    osiemdziesięcio dziewięćdziesięcio
    stu dwustu trzystu czterystu pięćset sześćset siedemset osiemset dziewięćset
    półtora
""".split()


_COMPOUND_ORDINAL = re.compile(
    "(?:%s)*(?:tysięczny|tysiączny|milionowy|miliardowy)"
    # Longest first, so "dwudziesto" is not read as "dwu" + "dziesto".
    % "|".join(sorted(_COMBINING_FORMS, key=len, reverse=True))
)


NOUN_NUMERALS = frozenset({"tysiąc", "milion", "miliard"})


ALWAYS_NUMERAL_LEMMAS = frozenset({"jeden"})


CONJUNCTION = "i"


@dataclass(frozen=True)
class CheckedWord:
    text: str
    is_numeral: bool


_lock = threading.Lock()


_morfeusz: morfeusz2.Morfeusz | None = None


def _analyse(word: str) -> list:
    global _morfeusz
    with _lock:
        if _morfeusz is None:
            _morfeusz = morfeusz2.Morfeusz()
        return _morfeusz.analyse(word)


def is_ordinal_lemma(lemma: str) -> bool:
    return lemma in SIMPLE_ORDINALS or _COMPOUND_ORDINAL.fullmatch(lemma) is not None


def _is_numeral_interpretation(lemma: str, tag: str) -> bool:
    # Morfeusz marks homonyms as "lemma:qualifier" (drugi:A, tysiąc:Sm3).
    lemma = lemma.split(":", 1)[0].lower()
    part_of_speech = tag.split(":", 1)[0]
    if part_of_speech == "num" or lemma in NOUN_NUMERALS or lemma in ALWAYS_NUMERAL_LEMMAS:
        return True
    return part_of_speech == "adj" and is_ordinal_lemma(lemma)


@lru_cache(maxsize=4096)
def is_numeral_form(word: str) -> bool:
    if word.lower() == CONJUNCTION:
        return True
    interpretations = _analyse(word)
    # More than one segment (e.g. a glued comma or hyphen) is not a single numeral word.
    if any(end != 1 for _start, end, _ in interpretations):
        return False
    return any(_is_numeral_interpretation(lemma, tag) for _s, _e, (_orth, lemma, tag, *_rest) in interpretations)


def check_words(text: str) -> list[CheckedWord]:
    """The answer's words (split on white space), each marked numeral form or not."""
    return [CheckedWord(word, is_numeral_form(word)) for word in text.split()]
