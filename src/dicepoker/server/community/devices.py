"""Login budgets that hold under concurrency, and device cookies that keep the owner out of a
lockout that strangers' wrong guesses cause (OWASP's "device cookies").

Logging in, changing the password and deleting the account check a password. Before the check,
the attempt takes a token from a budget of wrong passwords, in one atomic step (runtime/limits.py:
`RateLimiter.check`, one Redis script when the server's limits are shared): the account name's
budget (`--login-name-rate`, `--login-name-burst`), or a known device's own. A right password
gives its token back, so only wrong passwords use a budget up; and since nothing looks at a
budget before taking from it, however many guesses arrive at once, no more passwords are checked
than the budget holds. Over the name's budget: 429 with Retry-After, before any check.

- **A device**: a right password sets the cookie `dicepoker_device` (a random 256-bit token,
  HttpOnly, SameSite=Lax, Secure over https, for `DEVICE_DAYS` days), of which the database keeps
  only the SHA-256 (`account_devices`). An account keeps its `DEVICES_KEPT` most recently used
  devices, and forgets one unused for `DEVICE_DAYS`.
- **A known device logs in while its name is locked**: a device cookie of *that* account takes
  from the device's own budget (`DEVICE_FAILURES` wrong passwords, one more back every
  `DEVICE_REFILL_S`) instead of the name's. The per-address limit still holds for it.
- **A device that keeps failing is revoked**: once its own budget is spent, its next attempt
  deletes it (a stolen device cookie gives at most `DEVICE_FAILURES` guesses more, once); that
  attempt and the browser's next ones spend the name's budget like a stranger's, until a right
  password makes it a device again.
- **Strangers are throttled**: no device cookie, another account's, an unknown or revoked one.
  The owner on a new browser, or a script that keeps no cookies, is a stranger too: while the
  name is locked, it waits like anyone (a small price: it is one login a device).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

from sqlalchemy import delete, select, update

from dicepoker.server.runtime.limits import RateLimited, RateLimiter
from dicepoker.server.storage.models import AccountDeviceRow, AccountRow, utcnow
from dicepoker.server.storage.store import Store

DEVICE_COOKIE: Final = "dicepoker_device"
#: How long a device cookie lives, and how long a device unused is remembered.
DEVICE_DAYS: Final = 365
#: The devices an account keeps (the least recently used go first): a script that logs in
#: afresh every time must not grow the table without end.
DEVICES_KEPT: Final = 20
#: Wrong passwords a known device may give before it is revoked, and how fast one comes back
#: (an owner's rare typos never add up to a revocation).
DEVICE_FAILURES: Final = 3
DEVICE_REFILL_S: Final = 3600.0


def hash_device(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Attempt:
    """A password check allowed to go ahead: the budget it took a token from (`limit`, under
    `key`), and the device cookie it came with when that is a known device of the account."""

    limit: RateLimiter
    key: str
    device: str | None


class Devices:
    """The budgets of password checks and the known devices of one store's accounts.

    `names` is the per-name limit of wrong passwords; the devices' own limit shares its Redis
    (and is switched off with it: a rate of 0, the tests' and load benchmarks').
    """

    def __init__(
        self, store: Store, names: RateLimiter, now: Callable[[], datetime] = utcnow
    ) -> None:
        self.store = store
        self.names = names
        rate = 1 / DEVICE_REFILL_S if names.rate > 0 else 0.0
        self.devices = RateLimiter("failed_devices", rate, DEVICE_FAILURES, names.shared)
        self.now = now

    async def attempt(self, name_key: str, cookie: str | None) -> Attempt:
        """Take a token for checking a password of the account whose `name_key` this is: from
        the device's budget when `cookie` is a device of that account with budget left, else
        from the name's; `RateLimited` when the name's has none (nothing is checked then)."""
        device = hash_device(cookie) if cookie else None
        if device is not None and await self._of_account(device, name_key):
            if await self.devices.check(device) is None:
                return Attempt(self.devices, device, device)
            await self._forget(device)
        wait = await self.names.check(name_key)
        if wait is not None:
            raise RateLimited(wait)
        return Attempt(self.names, name_key, None)

    async def right_password(self, attempt: Attempt) -> None:
        """The password was right (the account may still refuse, disabled): the attempt's
        token goes back to its budget."""
        await attempt.limit.give_back(attempt.key)

    async def passed(self, attempt: Attempt, account_id: int, cookie: str | None) -> str:
        """The password was right and the account is in: the token goes back, and the browser
        is a device of the account. Returns the device cookie's token to set: `cookie` again
        when it is that device (its life starts over), else a new device's."""
        await self.right_password(attempt)
        now = self.now().astimezone(UTC)
        if attempt.device is not None and cookie is not None:
            async with self.store.writing(), self.store.sessions() as session, session.begin():
                touched = await session.execute(
                    update(AccountDeviceRow)
                    .where(AccountDeviceRow.token_hash == attempt.device)
                    .values(used_at=now)
                )
            if getattr(touched, "rowcount", 0):
                return cookie
        return await self.remember(account_id)

    async def remember(self, account_id: int) -> str:
        """A new device of the account (a sign-up, a right password from a stranger's browser):
        its cookie's token. The account's devices unused for `DEVICE_DAYS`, and those past its
        `DEVICES_KEPT` most recent, are forgotten meanwhile."""
        token = secrets.token_urlsafe(32)
        now = self.now().astimezone(UTC)
        async with self.store.writing(), self.store.sessions() as session, session.begin():
            mine = AccountDeviceRow.account_id == account_id
            stale = now - timedelta(days=DEVICE_DAYS)
            await session.execute(
                delete(AccountDeviceRow).where(mine, AccountDeviceRow.used_at < stale)
            )
            kept = (
                select(AccountDeviceRow.id)
                .where(mine)
                .order_by(AccountDeviceRow.used_at.desc(), AccountDeviceRow.id.desc())
                .limit(DEVICES_KEPT - 1)
            )
            await session.execute(
                delete(AccountDeviceRow).where(
                    mine, AccountDeviceRow.id.not_in(kept.scalar_subquery())
                )
            )
            session.add(
                AccountDeviceRow(
                    account_id=account_id,
                    token_hash=hash_device(token),
                    created_at=now,
                    used_at=now,
                )
            )
        return token

    async def _of_account(self, device: str, name_key: str) -> bool:
        """Whether `device` is a device of the account named `name_key`."""
        async with self.store.sessions() as session:
            found = await session.scalar(
                select(AccountDeviceRow.id)
                .join(AccountRow, AccountRow.id == AccountDeviceRow.account_id)
                .where(AccountDeviceRow.token_hash == device, AccountRow.name_key == name_key)
            )
            return found is not None

    async def _forget(self, device: str) -> None:
        async with self.store.writing(), self.store.sessions() as session, session.begin():
            await session.execute(
                delete(AccountDeviceRow).where(AccountDeviceRow.token_hash == device)
            )
