"""What the table shows at one moment, read from the session: `TableState`.

The game screen builds a new `TableState` whenever the session's view, a choice of the person
here, the language or the clock changes, and its widgets draw from it (they are bound to the
screen's `table` reactive). A state is a plain frozen value: equal states draw the same, so
Textual redraws only what changed, and a widget can be tried out with a state made by hand.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from dicepoker.engine.actions import KEEP_WORDS
from dicepoker.fair import VerifyResult
from dicepoker.tui.choices import Choices
from dicepoker.tui.hints import Advisor, Hint
from dicepoker.tui.i18n import Words
from dicepoker.tui.session import LocalSession, Session
from dicepoker.tui.sheet import Selection

NoticeKind = Literal["notice", "error"]
RematchStep = Literal["ask", "join", "watch"]


#: Words to say in whichever language the table speaks when they are drawn.
Phrase = Callable[[Words], str]


@dataclass(frozen=True, slots=True)
class Notice:
    """A message in the status line for a while: a notice (yellow) or an error (red).

    It keeps what to say, a msgid or a `Phrase`, rather than the words said: the status line
    writes it in the language of the moment, so that L turns a notice on the screen into the new
    language with everything else."""

    said: str | Phrase
    kind: NoticeKind = "notice"

    def text(self, words: Words) -> str:
        return words(self.said) if isinstance(self.said, str) else self.said(words)


@dataclass(frozen=True, slots=True)
class HintsState:
    """The hint panel's content: the advisor's values, best first, and what they mean."""

    title: str
    signed: bool
    hints: tuple[Hint, ...]


@dataclass(frozen=True)
class TableState:
    """The session's view and facts, and the choices made here, as the widgets draw them.

    `view` is None until the session has one (`status` says why); `shown` is the seat whose
    sheet is drawn full size; `held` the dice drawn held; `legal` the cell moves of the player
    to move when that player plays here; `clock` the seat whose clock runs and its seconds left;
    `hints` the hint panel when it is open."""

    words: Words
    view: Mapping[str, Any] | None
    status: str = "connecting"
    fatal: str | None = None
    local: bool = True
    spectator: bool = False
    title: str = ""
    mover: int | None = None
    my_turn: bool = False
    shown: int = 0
    bots: tuple[bool, ...] = ()
    controlled: tuple[bool, ...] = ()
    held: frozenset[int] = frozenset()
    selection: Selection | None = None
    legal: tuple[Mapping[str, Any], ...] = ()
    last_action: tuple[int, str] | None = None
    clock: tuple[int, int] | None = None
    commitment: str | None = None
    dice_check: VerifyResult | None = None
    notice: Notice | None = None
    hints: HintsState | None = None
    #: The command that comes back to this seat of a server game, and the file keeping it.
    rejoin: str | None = None
    rejoin_path: str | None = None
    #: What N does at the end of a server game: ask for a rematch, join it, watch it (else None).
    rematch: RematchStep | None = None
    #: Why a server game has no hints (`rated`, `daily`, `casual`), else None (see Session).
    competition: str | None = None

    @property
    def finished(self) -> bool:
        return bool(self.view and self.view.get("finished"))

    @property
    def can_strike(self) -> bool:
        """Whether a strike is among the moves of the player to move here (the view says)."""
        return any(option.get("verb") == "strike" for option in self.legal)

    @property
    def dice(self) -> int:
        """How many dice the game throws (the rules' `dice`)."""
        return int(self.view["rules"]["dice"]) if self.view else 0

    def is_bot(self, seat: int) -> bool:
        return 0 <= seat < len(self.bots) and self.bots[seat]

    def is_mine(self, seat: int) -> bool:
        """Whether `seat` is played from this terminal in a game of the web app."""
        return not self.local and 0 <= seat < len(self.controlled) and self.controlled[seat]

    def name(self, seat: int) -> str:
        assert self.view is not None
        return self.words.shown_name(str(self.view["players"][seat]["name"]))

    def waiting_words(self) -> str:
        return waiting_words(self.words, self.status, self.fatal)

    def result_words(self) -> str:
        assert self.view is not None
        winner = self.view.get("winner")
        if winner is None:
            return self.words("A tie for first place!")
        return self.words("{name} wins!", name=self.name(int(winner)))


def waiting_words(words: Words, status: str, fatal: str | None) -> str:
    """What to say while there is no view: connecting, reconnecting, or why it ended."""
    if status == "closed" and fatal:
        return words(fatal)
    return words("Reconnecting…" if status == "reconnecting" else "Connecting…")


def legal_moves(session: Session) -> list[dict[str, Any]]:
    """The moves the view lists for the player to move, when that player plays here."""
    view = session.view
    if view is None or not session.my_turn:
        return []
    legal: list[dict[str, Any]] = view.get("turn", {}).get("legal", [])
    return legal


def auto_seat(session: Session) -> int:
    """Whose sheet to show without a choice: the mover in a local game, else your own seat,
    else the mover, else the winner."""
    mover = session.seat_to_move
    home = session.home_seat
    if mover is not None and (home is None or session.local):
        return mover
    if home is not None:
        return home
    if mover is not None:
        return mover
    view = session.view
    ranking = view.get("ranking") if view else None
    return int(ranking[0]) if ranking else 0


def shown_seat(session: Session, viewing: int | None) -> int:
    """Whose sheet is drawn full size: the seat chosen with Tab, else `auto_seat`."""
    view = session.view
    count = len(view["players"]) if view else 0
    if viewing is not None and 0 <= viewing < count:
        return viewing
    return auto_seat(session)


def drawn_held(session: Session, held: set[int]) -> frozenset[int]:
    """The dice drawn held: your choice on your turn; else what the mover holds now (a server
    game says it live), else what the view says they hold, else what they kept last roll."""
    if session.my_turn:
        return frozenset(held)
    mover = session.seat_to_move
    live = session.live_held
    if live is not None and live[1] == mover:
        return live[2]
    turn = session.view.get("turn") if session.view else None
    if isinstance(turn, Mapping) and isinstance(turn.get("held"), list):
        return frozenset(int(p) for p in turn["held"])
    last = session.last_action
    if last is not None and last[0] == mover and last[1].split()[0] in KEEP_WORDS:
        return frozenset(int(p) for p in last[1].split()[1:])
    return frozenset()


def rematch_step(session: Session) -> RematchStep | None:
    """What N does at the end of a server game: join (or watch) the rematch on offer, else ask
    for one (a seat of the game only)."""
    view = session.view
    if session.local or not view or not view.get("finished"):
        return None
    offer = session.rematch
    if offer is not None:
        return "join" if offer.token else "watch"
    return None if session.spectator else "ask"


def _clock(session: Session, players: int) -> tuple[int, int] | None:
    clock = session.clock
    if clock is None:
        return None
    seat = int(clock.get("seat", 0))
    if not 0 <= seat < players:
        return None
    left = max(0, int(float(clock.get("deadline", 0)) / 1000 - time.time() + 0.999))
    return seat, left


def _hints(session: Session, advisor: Advisor) -> HintsState:
    view = session.view
    assert view is not None
    state = session.state if isinstance(session, LocalSession) else None
    hints: Sequence[Hint] = advisor(dict(view), state) if session.seat_to_move is not None else []
    # The advisor names what its values mean after it gave them (`title`, `signed`).
    return HintsState(advisor.title, bool(getattr(advisor, "signed", True)), tuple(hints))


def read_table(
    session: Session,
    choices: Choices,
    words: Words,
    *,
    notice: Notice | None = None,
    advisor: Advisor | None = None,
) -> TableState:
    """The table as it stands: the session's view and facts, `choices`, the `notice` of the
    status line, and the hints of `advisor` (None: the hint panel is closed)."""
    view = session.view
    fair = session.fair_dice
    commitment = fair.get("commitment") if fair else None
    base = TableState(
        words=words,
        view=view,
        status=session.status,
        fatal=session.fatal,
        local=session.local,
        spectator=session.spectator,
        title=session.title,
        notice=notice,
        commitment=commitment if isinstance(commitment, str) else None,
        dice_check=session.dice_check,
        rejoin=session.rejoin.command if session.rejoin else None,
        rejoin_path=str(session.rejoin.path) if session.rejoin and session.rejoin.path else None,
        competition=session.competition,
    )
    if view is None:
        return base
    seats = range(len(view["players"]))
    mover = session.seat_to_move
    shown = shown_seat(session, choices.viewing)
    return replace(
        base,
        mover=mover,
        my_turn=session.my_turn,
        shown=shown,
        bots=tuple(session.is_bot(seat) for seat in seats),
        controlled=tuple(session.controls(seat) for seat in seats),
        held=drawn_held(session, choices.held),
        selection=choices.selection,
        legal=tuple(legal_moves(session)) if shown == mover else (),
        last_action=session.last_action,
        clock=_clock(session, len(seats)) if not view.get("finished") else None,
        hints=_hints(session, advisor) if advisor is not None else None,
        rematch=rematch_step(session),
    )
