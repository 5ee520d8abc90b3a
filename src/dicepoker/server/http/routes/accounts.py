"""Accounts: sign up, log in and out, who am I, change the password, delete the account
(docs/api.md, "Accounts"). Every answer is a model of `dicepoker.protocol.accounts`."""

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
from dicepoker.server.runtime.limits import RateLimited
from dicepoker.server.services import LOGGING_IN, Services, services

router = APIRouter(prefix="/api", tags=["accounts"])

App = Annotated[Services, Depends(services)]
LoggedIn = Annotated[Account, Depends(required_account)]


def me(account: Account) -> Me:
    return Me.build(name=account.name, created_at=account.created_at.isoformat())


def _set_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=SESSION_DAYS * 24 * 3600,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )


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
    return me(account)


@router.post(
    "/session",
    dependencies=LOGGING_IN,
    response_model=Me,
    responses=error_responses(400, 401, 403, 413, 429),
)
async def log_in(body: Credentials, app: App, request: Request, response: Response) -> Me:
    """Log in: the session cookie (HttpOnly, SameSite=Lax, Secure over https) is set. A wrong
    name and a wrong password get the same answer; failures are limited per name too."""
    key = name_key(body.name[: NAME_MAX + 1])
    wait = await app.failed_logins.waiting(key)
    if wait is not None:
        raise RateLimited(wait)
    try:
        account, token = await app.accounts.login(body.name, body.password)
    except Refusal as refusal:
        if refusal.code == "bad_login":
            await app.failed_logins.spend(key)
        raise
    _set_cookie(request, response, token)
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
    body: PasswordChange, account: LoggedIn, app: App, request: Request
) -> None:
    """Change the password (the current one is asked again); every other session ends."""
    wait = await app.failed_logins.waiting(name_key(account.name))
    if wait is not None:
        raise RateLimited(wait)
    try:
        await app.accounts.change_password(
            account, body.password, body.new_password, keep=session_token(request) or ""
        )
    except Refusal as refusal:
        if refusal.code == "bad_login":
            await app.failed_logins.spend(name_key(account.name))
        raise


@router.delete("/me", status_code=204, responses=error_responses(401, 403, 413, 429))
async def delete_account(
    body: AccountDeletion, account: LoggedIn, app: App, request: Request, response: Response
) -> None:
    """Delete the account (the password is asked again). Its games stay, its seats in them
    under a neutral name."""
    wait = await app.failed_logins.waiting(name_key(account.name))
    if wait is not None:
        raise RateLimited(wait)
    try:
        renamed = await app.accounts.delete_own(account, body.password)
    except Refusal as refusal:
        if refusal.code == "bad_login":
            await app.failed_logins.spend(name_key(account.name))
        raise
    await app.master.seats_stored(renamed)
    _clear_cookie(request, response)
