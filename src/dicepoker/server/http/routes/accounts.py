"""Accounts: sign up, log in and out, who am I, change the password, delete the account
(docs/api.md, "Accounts"). Every answer is a model of `dicepoker.protocol.accounts`.

Every route that checks a password takes a token of a budget of wrong passwords first, and sets
the device cookie when the password is right (community/devices.py says why and how)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response

from dicepoker.master import Refusal
from dicepoker.protocol import AccountDeletion, Credentials, Me, PasswordChange, error_responses
from dicepoker.server.community.accounts import (
    COOKIE,
    NAME_MAX,
    SESSION_DAYS,
    Account,
    name_key,
    required_account,
    session_token,
)
from dicepoker.server.community.devices import DEVICE_COOKIE, DEVICE_DAYS, Attempt
from dicepoker.server.services import LOGGING_IN, Services, services

router = APIRouter(prefix="/api", tags=["accounts"])

App = Annotated[Services, Depends(services)]
LoggedIn = Annotated[Account, Depends(required_account)]


def me(account: Account) -> Me:
    return Me.build(name=account.name, created_at=account.created_at.isoformat())


def _set_cookie(request: Request, response: Response, token: str) -> None:
    _set_private_cookie(request, response, COOKIE, token, SESSION_DAYS)


def _set_device_cookie(request: Request, response: Response, token: str) -> None:
    _set_private_cookie(request, response, DEVICE_COOKIE, token, DEVICE_DAYS)


def _set_private_cookie(
    request: Request, response: Response, name: str, token: str, days: int
) -> None:
    """A cookie no page script reads, sent to this site only (and over https only when the
    request came by https)."""
    response.set_cookie(
        name,
        token,
        max_age=days * 24 * 3600,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )


async def _attempt(app: Services, request: Request, name: str) -> Attempt:
    """A token of the budget of wrong passwords for checking `name`'s password (429 when the
    name's budget is spent and the browser is no device of the account)."""
    return await app.devices.attempt(
        name_key(name[: NAME_MAX + 1]), request.cookies.get(DEVICE_COOKIE)
    )


async def _refused(app: Services, attempt: Attempt, refusal: Refusal) -> None:
    """A check refused: a wrong password keeps its token spent; any other refusal came after a
    right password (a disabled account) and gives it back."""
    if refusal.code != "bad_login":
        await app.devices.right_password(attempt)


def _clear_cookie(request: Request, response: Response) -> None:
    response.delete_cookie(
        COOKIE, httponly=True, samesite="lax", secure=request.url.scheme == "https", path="/"
    )


@router.post(
    "/accounts",
    status_code=201,
    dependencies=LOGGING_IN,
    response_model=Me,
    responses=error_responses(400, 403, 409, 413, 429),
)
async def sign_up(body: Credentials, app: App, request: Request, response: Response) -> Me:
    """Create an account and log it in (the session cookie is set)."""
    account = await app.accounts.create(body.name, body.password)
    _set_cookie(request, response, await app.accounts.open_session(account.id))
    _set_device_cookie(request, response, await app.devices.remember(account.id))
    return me(account)


@router.post(
    "/session",
    dependencies=LOGGING_IN,
    response_model=Me,
    responses=error_responses(400, 401, 403, 413, 429),
)
async def log_in(body: Credentials, app: App, request: Request, response: Response) -> Me:
    """Log in: the session cookie (HttpOnly, SameSite=Lax, Secure over https) is set, and the
    device cookie. A wrong name and a wrong password get the same answer; wrong passwords are
    limited per name, except from a device of the account (community/devices.py)."""
    attempt = await _attempt(app, request, body.name)
    try:
        account, token = await app.accounts.login(body.name, body.password)
    except Refusal as refusal:
        await _refused(app, attempt, refusal)
        raise
    device = await app.devices.passed(attempt, account.id, request.cookies.get(DEVICE_COOKIE))
    _set_cookie(request, response, token)
    _set_device_cookie(request, response, device)
    return me(account)


@router.delete("/session", status_code=204, responses=error_responses(403))
async def log_out(app: App, request: Request, response: Response) -> None:
    """Log out: the session ends and its cookie is cleared (also when there was none)."""
    token = session_token(request)
    if token:
        await app.accounts.end_session(token)
    _clear_cookie(request, response)


@router.get("/me", response_model=Me, responses=error_responses(401))
async def who_am_i(account: LoggedIn) -> Me:
    return me(account)


@router.post("/me/password", status_code=204, responses=error_responses(400, 401, 403, 413, 429))
async def change_password(
    body: PasswordChange, account: LoggedIn, app: App, request: Request, response: Response
) -> None:
    """Change the password (the current one is asked again); every other session ends. The
    current password is limited like a login's."""
    attempt = await _attempt(app, request, account.name)
    try:
        await app.accounts.change_password(
            account, body.password, body.new_password, keep=session_token(request) or ""
        )
    except Refusal as refusal:
        await _refused(app, attempt, refusal)
        raise
    device = await app.devices.passed(attempt, account.id, request.cookies.get(DEVICE_COOKIE))
    _set_device_cookie(request, response, device)


@router.delete("/me", status_code=204, responses=error_responses(401, 403, 413, 429))
async def delete_account(
    body: AccountDeletion, account: LoggedIn, app: App, request: Request, response: Response
) -> None:
    """Delete the account (the password is asked again, limited like a login's). Its games
    stay, its seats in them under a neutral name; its devices go with it."""
    attempt = await _attempt(app, request, account.name)
    try:
        renamed = await app.accounts.delete_own(account, body.password)
    except Refusal as refusal:
        await _refused(app, attempt, refusal)
        raise
    await app.devices.right_password(attempt)
    await app.master.seats_stored(renamed)
    _clear_cookie(request, response)
