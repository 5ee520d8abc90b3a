"""The accounts' bodies and answers (docs/api.md, "Accounts").

The lengths allowed here are only the wire's bounds (an oversized field is `bad_request`); the
rules of a good name and password are the server's (`bad_name`, `bad_password`).
"""

from __future__ import annotations

from pydantic import Field

from dicepoker.protocol.base import Strict, Wire


class Credentials(Strict):
    """`POST /api/accounts` (sign up) and `POST /api/session` (log in)."""

    name: str = Field(max_length=100)
    password: str = Field(max_length=1000)


class PasswordChange(Strict):
    """`POST /api/me/password`: the password again, and the new one."""

    password: str = Field(max_length=1000)
    new_password: str = Field(max_length=1000)


class AccountDeletion(Strict):
    """`DELETE /api/me`: the password again."""

    password: str = Field(max_length=1000)


class Me(Wire):
    """`GET /api/me`, and the answer of signing up and logging in."""

    name: str
    created_at: str
