"""Optional player accounts: names, argon2id passwords, login sessions (docs/api.md, "Accounts").

Anonymous play needs none of this. An account is a name (3-20 letters, digits, `_` or `-`,
unique by its confusable skeleton: see `dicepoker.names`, which says why) and a password kept
only as its argon2id hash. Logging in gives a random
session token, sent as an HttpOnly cookie; the database keeps only the token's SHA-256, so a
copy of the database logs nobody in. An unknown name and a wrong password get the same answer
and cost the same time (a dummy hash is checked for an unknown name), so a name's existence
cannot be learned from the login.

Expired sessions are deleted as sessions are opened, never by a task of their own: an account's
own expired sessions when it logs in, and everyone's, a batch at a time, at most once every
`PURGE_EVERY` (`Accounts.open_session` says why).
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import Request
from sqlalchemy import delete, exc, select
from sqlalchemy.ext.asyncio import AsyncSession

from dicepoker import names
from dicepoker.master import Refusal
from dicepoker.names import (
    MAX_SKELETON,
    check_not_reserved,
    check_seat_name,
    check_visible,
    name_skeleton,
    skeletons,
)
from dicepoker.server.storage.models import AccountRow, GamePlayerRow, GameRow, SessionRow, utcnow
from dicepoker.server.storage.store import Store

NAME_MIN, NAME_MAX = 3, 20
PASSWORD_MIN, PASSWORD_MAX = 8, 200
SESSION_DAYS = 30
#: How often opening a session also deletes expired sessions of any account, and how many at most.
PURGE_EVERY = timedelta(hours=1)
PURGE_BATCH = 500
COOKIE = "dicepoker_session"
#: What a deleted account's seats are called in the games it played (which stay); the word is
#: `dicepoker.names`', which keeps people's seats from taking it.
DELETED_NAME = names.DELETED_NAME
_NAME_SIGNS = frozenset("_-")


@dataclass(frozen=True)
class Account:
    id: int
    name: str
    created_at: datetime
    disabled: bool = False


def account_of(row: AccountRow) -> Account:
    created = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
    return Account(row.id, row.name, created, row.disabled)


def name_key(name: str) -> str:
    """The form in which a name is looked up to log in: the same name in any case is one name.
    (Names are unique by `name_skeleton`, a coarser form; the key stays as it was so that every
    account made before skeletons logs in as it did.)"""
    return unicodedata.normalize("NFC", name).casefold()


def _has_name_shape(name: str) -> bool:
    """Whether `name` (NFC) is 3-20 letters, digits, `_` or `-`: what every stored name is."""
    return NAME_MIN <= len(name) <= NAME_MAX and all(
        char.isalpha() or char in "0123456789" or char in _NAME_SIGNS for char in name
    )


def check_name(name: str) -> str:
    """The name of a new account as it is stored (NFC, and NFKC alike), or a refusal:
    `bad_name` for one that is not 3-20 letters, digits, `_` or `-`, is written in styled or
    compatibility letters (fullwidth, mathematical bold: NFKC would change it), or renders blank
    (`dicepoker.names.check_visible`); `name_taken` for a bot's name or the deleted player's.
    Whether another account has it is the store's to say (`Accounts.create`)."""
    name = unicodedata.normalize("NFC", name)
    if not _has_name_shape(name):
        raise Refusal(
            "bad_name",
            f"a name is {NAME_MIN}-{NAME_MAX} letters, digits, '_' or '-'",
        )
    check_visible(name)
    if unicodedata.normalize("NFKC", name) != name:
        raise Refusal(
            "bad_name",
            "a name is written in plain letters and digits, not fullwidth or styled ones",
        )
    check_not_reserved(name)
    if len(name_skeleton(name)) > MAX_SKELETON:
        raise Refusal("bad_name", "that name cannot be told apart from others")
    return name


def _is_name(name: str) -> bool:
    """Whether `name` may be an account's, made now or before the rules of `check_name`."""
    return _has_name_shape(unicodedata.normalize("NFC", name))


def check_password(password: str) -> str:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise Refusal(
            "bad_password", f"a password is {PASSWORD_MIN} to {PASSWORD_MAX} characters long"
        )
    return password


def hash_session(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class Accounts:
    """The accounts and sessions of one store. Hashing runs in a thread: argon2id is meant to
    be slow, and the event loop must not wait for it. `now` is the clock sessions expire by
    (tests move it)."""

    def __init__(
        self,
        store: Store,
        hasher: PasswordHasher | None = None,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self.store = store
        self.hasher = hasher or PasswordHasher()
        self.now = now
        self._dummy: str | None = None
        # When opening a session next deletes expired sessions of any account (None: at the
        # first one, so that a server started after a long pause catches up at once).
        self._next_purge: datetime | None = None

    async def _hash(self, password: str) -> str:
        return await asyncio.to_thread(self.hasher.hash, password)

    async def _verify(self, stored: str, password: str) -> bool:
        try:
            return await asyncio.to_thread(self.hasher.verify, stored, password)
        except (VerificationError, InvalidHashError):
            return False

    async def _dummy_hash(self) -> str:
        if self._dummy is None:
            self._dummy = await self._hash(secrets.token_urlsafe(16))
        return self._dummy

    # --- accounts ------------------------------------------------------------------------

    async def create(self, name: str, password: str) -> Account:
        name = check_name(name)
        digest = await self._hash(check_password(password))
        row = AccountRow(
            name=name,
            name_key=name_key(name),
            name_skeleton=name_skeleton(name),
            password_hash=digest,
        )
        try:
            async with self.store.writing(), self.store.sessions() as session, session.begin():
                session.add(row)
        except exc.IntegrityError:
            # The name, or a look-alike of it (the same skeleton), is another account's.
            raise Refusal("name_taken", "that name, or one that looks like it, is taken") from None
        return account_of(row)

    async def _row(self, name: str) -> AccountRow | None:
        if not _is_name(name):
            return None  # never stored, and some (a NUL) PostgreSQL cannot even compare
        async with self.store.sessions() as session:
            found: AccountRow | None = await session.scalar(
                select(AccountRow).where(AccountRow.name_key == name_key(name))
            )
            return found

    async def by_name(self, name: str) -> Account | None:
        row = await self._row(name)
        return None if row is None else account_of(row)

    async def check_seat_name(self, name: str, account: Account | None = None) -> str:
        """The name to seat a person under without an account, or a refusal: the rules of
        `dicepoker.names.check_seat_name`, and `name_taken` for an account's name or a
        look-alike of it, unless it is `account`'s own (the caller's, logged in).

        Accounts made before skeletons were kept may have none (a look-alike of an earlier
        name, migration 0010): their key is compared too."""
        name = check_seat_name(name)
        alike = AccountRow.name_skeleton.in_(sorted(skeletons(name)))
        async with self.store.sessions() as session:
            owners = set(
                (
                    await session.scalars(
                        select(AccountRow.id).where(alike | (AccountRow.name_key == name_key(name)))
                    )
                ).all()
            )
        if owners - ({account.id} if account is not None else set()):
            raise Refusal(
                "name_taken",
                "an account has that name (or one that looks like it): log in to play under it",
            )
        return name

    async def check_login(self, name: str, password: str) -> Account:
        """The account whose name and password these are, or `bad_login` (the same for an
        unknown name and a wrong password), or `account_disabled` once the password is right."""
        row = await self._row(name)
        stored = row.password_hash if row is not None else await self._dummy_hash()
        right = await self._verify(stored, password[: PASSWORD_MAX + 1])
        if row is None or not right:
            raise Refusal("bad_login", "wrong name or password")
        if row.disabled:
            raise Refusal("account_disabled", "this account is disabled")
        return account_of(row)

    async def login(self, name: str, password: str) -> tuple[Account, str]:
        """Check the name and password and open a session: the account and the session's token."""
        account = await self.check_login(name, password)
        return account, await self.open_session(account.id)

    async def everyone(self) -> list[Account]:
        async with self.store.sessions() as session:
            rows = await session.scalars(select(AccountRow).order_by(AccountRow.id))
            return [account_of(row) for row in rows]

    async def change_password(self, account: Account, old: str, new: str, keep: str) -> None:
        """Change the password (the old one is asked again) and end every other session of the
        account: a stolen session does not outlive the change. `keep` is the caller's token."""
        await self.check_login(account.name, old)
        await self.set_password(account.id, new, keep=keep)

    async def set_password(self, account_id: int, new: str, keep: str | None = None) -> None:
        digest = await self._hash(check_password(new))
        async with self.store.writing(), self.store.sessions() as session, session.begin():
            row = await session.get(AccountRow, account_id)
            if row is None:
                raise Refusal("not_found", "no such account")
            row.password_hash = digest
            await self._end_sessions(session, account_id, keep)

    async def set_disabled(self, account_id: int, disabled: bool) -> None:
        """Disable (or enable again) an account; a disabled one is logged out everywhere."""
        async with self.store.writing(), self.store.sessions() as session, session.begin():
            row = await session.get(AccountRow, account_id)
            if row is None:
                raise Refusal("not_found", "no such account")
            row.disabled = disabled
            if disabled:
                await self._end_sessions(session, account_id, None)

    @staticmethod
    async def _end_sessions(session: AsyncSession, account_id: int, keep: str | None) -> None:
        query = delete(SessionRow).where(SessionRow.account_id == account_id)
        if keep is not None:
            query = query.where(SessionRow.token_hash != hash_session(keep))
        await session.execute(query)

    async def delete(self, account_id: int) -> list[str]:
        """Delete the account, its sessions and ratings. Its games stay: its seats in them are
        renamed `DELETED_NAME`. Returns the ids of the games renamed (a running server reads
        their seats again: `GameMaster.seats_stored`)."""
        async with self.store.writing(), self.store.sessions() as session, session.begin():
            row = await session.get(AccountRow, account_id)
            if row is None:
                raise Refusal("not_found", "no such account")
            links = (
                await session.scalars(
                    select(GamePlayerRow).where(GamePlayerRow.account_id == account_id)
                )
            ).all()
            seats: dict[str, set[int]] = {}
            for link in links:
                seats.setdefault(link.game_id, set()).add(link.seat)
            for game_id, numbers in seats.items():
                game = await session.get(GameRow, game_id)
                if game is None:
                    continue
                renamed = [dict(seat) for seat in game.seats]
                for number in numbers:
                    if number < len(renamed):
                        renamed[number]["name"] = DELETED_NAME
                        renamed[number].pop("account", None)
                game.seats = renamed
            await session.delete(row)
        return sorted(seats)

    async def delete_own(self, account: Account, password: str) -> list[str]:
        """An account deleted by its owner, who gives the password again."""
        await self.check_login(account.name, password)
        return await self.delete(account.id)

    # --- sessions ------------------------------------------------------------------------

    async def open_session(self, account_id: int) -> str:
        """Open a session of the account and give its token; expired sessions go meanwhile.

        Most expired sessions belong to people who come back: their cookie lapsed with the
        session, so they log in again, and this deletes the account's expired sessions (found
        through the sessions' account index). The accounts nobody logs into again are swept up
        at most once every `PURGE_EVERY` per process, `PURGE_BATCH` sessions at a time: the
        sweep scans the table and runs inside somebody's login (on SQLite holding the one
        writer's turn), so it must be rare and short; a backlog (a database from before sessions
        were purged) goes a batch at each next session instead. An expired session left a while
        costs only its row: `by_session` refuses it. Several processes sweep alike, harmlessly.
        """
        token = secrets.token_urlsafe(32)
        now = self.now().astimezone(UTC)
        sweep = self._next_purge is None or now >= self._next_purge
        if sweep:
            # Claimed before the first await: this process's other logins do not sweep too.
            self._next_purge = now + PURGE_EVERY
        row = SessionRow(
            token_hash=hash_session(token),
            account_id=account_id,
            created_at=now,
            expires_at=now + timedelta(days=SESSION_DAYS),
        )
        async with self.store.writing(), self.store.sessions() as session, session.begin():
            await session.execute(
                delete(SessionRow)
                .where(SessionRow.account_id == account_id, SessionRow.expires_at <= now)
                .execution_options(synchronize_session=False)
            )
            swept = await self._purge(session, now, PURGE_BATCH) if sweep else 0
            session.add(row)
        if swept >= PURGE_BATCH:
            self._next_purge = now  # more are left: the next session takes the next batch
        return token

    async def by_session(self, token: str) -> Account | None:
        """The account of a live session token; None for an unknown, expired or forged one, or
        a disabled account."""
        if not token or len(token) > 100:
            return None
        async with self.store.sessions() as session:
            found = (
                await session.execute(
                    select(SessionRow, AccountRow)
                    .join(AccountRow, AccountRow.id == SessionRow.account_id)
                    .where(SessionRow.token_hash == hash_session(token))
                )
            ).first()
        if found is None:
            return None
        stored, row = found
        if _aware(stored.expires_at) <= self.now() or row.disabled:
            return None
        return account_of(row)

    async def end_session(self, token: str) -> None:
        async with self.store.writing(), self.store.sessions() as session, session.begin():
            await session.execute(
                delete(SessionRow).where(SessionRow.token_hash == hash_session(token))
            )

    async def purge_expired(self) -> int:
        """Delete every expired session at once (`dicepoker admin purge-sessions`): how many."""
        async with self.store.writing(), self.store.sessions() as session, session.begin():
            return await self._purge(session, self.now().astimezone(UTC), None)

    @staticmethod
    async def _purge(session: AsyncSession, now: datetime, most: int | None) -> int:
        """Delete the sessions expired by `now`, at most `most` of them: how many went."""
        expired = delete(SessionRow).where(SessionRow.expires_at <= now)
        if most is not None:
            # A LIMIT inside the IN: neither SQLite (as built by default) nor PostgreSQL takes
            # one on DELETE itself.
            batch = select(SessionRow.token_hash).where(SessionRow.expires_at <= now).limit(most)
            expired = delete(SessionRow).where(SessionRow.token_hash.in_(batch))
        result = await session.execute(expired.execution_options(synchronize_session=False))
        return int(getattr(result, "rowcount", 0) or 0)


def session_token(request: Request) -> str | None:
    return request.cookies.get(COOKIE)


async def optional_account(request: Request) -> Account | None:
    """The account of the request's session cookie, or None (anonymous, expired, forged)."""
    token = session_token(request)
    if not token:
        return None
    accounts: Accounts = request.app.state.services.accounts
    return await accounts.by_session(token)


async def required_account(request: Request) -> Account:
    """The request's account, or 401 `not_logged_in`."""
    account = await optional_account(request)
    if account is None:
        raise Refusal("not_logged_in", "log in first")
    return account
