"""The HTML pages of the web app: the lobby, the table, the replay viewer, the rules, the daily
challenge and the account pages (sign up, log in, your account).

Pages are Jinja2 templates (autoescaped) rendered in the visitor's language and knowing the
visitor's account (the session cookie, `optional_account`: the header names it); each page loads
one plain ES module from `/static/js/` that talks to the REST API and the WebSocket of
`docs/api.md`. The server includes `router` and mounts `STATIC_DIR` at `/static`.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

from babel import Locale
from babel.dates import format_date
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markdown_it import MarkdownIt

from dicepoker import i18n
from dicepoker.rules import DEFAULT_VARIANT, variant_names
from dicepoker.server.community.accounts import DELETED_NAME, NAME_MAX, Account, optional_account

HERE: Final = Path(__file__).resolve().parent
STATIC_DIR: Final = HERE / "static"
TEMPLATES_DIR: Final = HERE / "templates"
RULES_DIR: Final = HERE / "rules"
COOKIE_MAX_AGE: Final = 365 * 24 * 3600

_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: Where a page may send the visitor after logging in (`?next=`): a path of this site, never
#: another site's address (`//host`, `https:`) nor the account forms themselves.
_NEXT = re.compile(r"^/(?![/\\])[A-Za-z0-9/_.~-]{0,200}$")
_FORMS = ("/login", "/signup")
#: A rules table cell that is only a throw of dice ("3 3 3 5 5", "10 J Q K A"): kept on one line.
_DICE_CELL = re.compile(r"<td>((?:[1-9JQKA]|10)(?: (?:[1-9JQKA]|10))+)</td>")

router = APIRouter()

templates = Environment(
    loader=FileSystemLoader(TEMPLATES_DIR),
    autoescape=select_autoescape(["html", "xml"], default=True),
    trim_blocks=True,
    lstrip_blocks=True,
)


def _static_version() -> str:
    """The version of the static files and catalogs: a hash of their names and contents, so
    that a URL that carries it always answers the same bytes (and may be kept for ever)."""
    files = sorted(
        path
        for path in [*STATIC_DIR.rglob("*"), *i18n.LOCALES_DIR.rglob(f"{i18n.MESSAGES}.po")]
        if path.is_file()
    )
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


STATIC_VERSION: Final = _static_version()
#: Where the pages load their static files from: a versioned path (server/http/caching.py), so that
#: the page scripts' relative imports carry the version too.
STATIC_PREFIX: Final = f"/static/v/{STATIC_VERSION}"


def _lang(request: Request) -> str:
    return i18n.negotiate(
        request.headers.get("accept-language"),
        request.cookies.get("lang"),
        request.query_params.get("lang"),
    )


def _next_path(value: str | None) -> str | None:
    """`value` if a page may send the visitor there after logging in, else None."""
    if value and _NEXT.match(value) and not value.startswith(_FORMS):
        return value
    return None


async def _render(
    request: Request, name: str, title: str, status_code: int = 200, **context: Any
) -> HTMLResponse:
    """A page in the visitor's language and for the visitor's account (None: anonymous); every
    template knows the variants (in the registry's order) and the one offered first, so none
    writes a variant's name."""
    lang = _lang(request)
    account: Account | None = context.pop("account", None) or await optional_account(request)
    path = request.url.path

    def translate(msgid: str, **values: Any) -> str:
        text = i18n.gettext(lang, msgid)
        return text.format(**values) if values else text

    page = templates.get_template(name).render(
        lang=lang,
        html_lang=i18n.HTML_LANG[lang],
        langs=[(code, i18n.LANG_NAMES[code]) for code in i18n.LANGS],
        path=path,
        account=account,
        # The header's "Log in" brings the visitor back here (the lobby needs no `next`).
        login_next=_next_path(path) if path != "/" else None,
        title=translate(title),
        _=translate,
        version=STATIC_VERSION,
        static=STATIC_PREFIX,
        variants=variant_names(),
        default_variant=DEFAULT_VARIANT,
        **context,
    )
    response = HTMLResponse(page, status_code=status_code)
    response.headers["Content-Language"] = i18n.HTML_LANG[lang]
    response.headers["Vary"] = "Accept-Language, Cookie"
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    if i18n.lang_of(request.query_params.get("lang")) == lang:
        response.set_cookie("lang", lang, max_age=COOKIE_MAX_AGE, samesite="lax", path="/")
    return response


#: For the pages that other modules serve (web/player_pages.py): the visitor's language, and a
#: page rendered in it.
lang_of_request = _lang
render = _render


def _check_id(value: str) -> str:
    if not _ID.match(value):
        raise HTTPException(status_code=404, detail="not found")
    return value


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def lobby(request: Request) -> HTMLResponse:
    """Create a game, join or watch one, import a record."""
    return await _render(request, "lobby.html", "site.name", page="lobby")


@router.get("/daily", response_class=HTMLResponse, include_in_schema=False)
async def daily(request: Request) -> HTMLResponse:
    """Today's challenge of each preset (or a past day's, `?date=`): par, play, leaderboard."""
    return await _render(request, "daily.html", "Daily challenge", page="daily")


@router.get("/g/{game_id}", response_class=HTMLResponse, include_in_schema=False)
async def table(request: Request, game_id: str) -> HTMLResponse:
    """The table of one game: players, spectators and the end screen."""
    game_id = _check_id(game_id)
    return await _render(request, "table.html", "site.name", page="table", game_id=game_id)


@router.get("/replay/{kind}/{item_id}", response_class=HTMLResponse, include_in_schema=False)
async def replay(request: Request, kind: str, item_id: str) -> HTMLResponse:
    """Step through a game (`g`) or an imported record (`r`) turn by turn and roll by roll."""
    if kind not in ("g", "r"):
        raise HTTPException(status_code=404, detail="not found")
    source = "games" if kind == "g" else "records"
    return await _render(
        request,
        "replay.html",
        "Replay",
        page="replay",
        source=source,
        item_id=_check_id(item_id),
        back_url=f"/g/{item_id}" if kind == "g" else "/",
    )


@lru_cache(maxsize=32)
def _rules_html(lang: str, variant: str) -> str:
    path = RULES_DIR / lang / f"{variant}.md"
    if not path.is_file():
        path = RULES_DIR / i18n.DEFAULT_LANG / f"{variant}.md"
    markdown = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    markdown.enable("table").enable("strikethrough")
    html: str = markdown.render(path.read_text(encoding="utf-8"))
    # Links between the rules pages point at the other pages of this site.
    for other in variant_names():
        html = html.replace(f'href="{other}.md"', f'href="/rules/{other}"')
    html = _DICE_CELL.sub(r'<td class="dice-cell">\1</td>', html)
    return html.replace("<table>", '<div class="table-wrap"><table>').replace(
        "</table>", "</table></div>"
    )


@router.get("/rules", include_in_schema=False)
def rules_index() -> RedirectResponse:
    return RedirectResponse(f"/rules/{DEFAULT_VARIANT}", status_code=307)


@router.get("/rules/{variant}", response_class=HTMLResponse, include_in_schema=False)
async def rules(request: Request, variant: str) -> HTMLResponse:
    """The rules of a variant in the page's language (docs/rules/{lang}/{variant}.md)."""
    if variant not in variant_names():
        raise HTTPException(status_code=404, detail="unknown variant")
    lang = _lang(request)
    return await _render(
        request,
        "rules.html",
        "Rules",
        page="rules",
        variant=variant,
        content=_rules_html(lang, variant),
    )


async def not_found_page(request: Request) -> HTMLResponse:
    """The answer to an unknown page: a page of the site, in the visitor's language, that says
    so and leads back to the lobby (the API answers its JSON error instead)."""
    return await _render(
        request, "not_found.html", "Page not found", status_code=404, page="notfound"
    )


# --- the account pages (the API is server/http/routes/accounts.py) ------------------------------


def _redirect(url: str) -> RedirectResponse:
    """See Other (a GET of `url`); never kept by a cache, since it depends on the cookie."""
    response = RedirectResponse(url, status_code=303)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Vary"] = "Cookie"
    return response


async def _account_form(request: Request, template: str, title: str, page: str) -> Response:
    """Sign up or log in; someone logged in already is sent on (to `next`, or their account)."""
    next_path = _next_path(request.query_params.get("next"))
    if await optional_account(request) is not None:
        return _redirect(next_path or "/account")
    query = f"?next={quote(next_path)}" if next_path else ""
    return await _render(
        request,
        template,
        title,
        page=page,
        next_path=next_path or "/",
        next_query=query,
        name_max=NAME_MAX,
    )


@router.get("/signup", response_class=HTMLResponse, include_in_schema=False)
async def sign_up_page(request: Request) -> Response:
    """Choose a name and a password (POST /api/accounts); the account is logged in at once."""
    return await _account_form(request, "signup.html", "Sign up", "signup")


@router.get("/login", response_class=HTMLResponse, include_in_schema=False)
async def log_in_page(request: Request) -> Response:
    """Log in (POST /api/session), then go back where the visitor came from (`next`)."""
    return await _account_form(request, "login.html", "Log in", "login")


def _long_date(moment: datetime, lang: str) -> str:
    """A date as the page's language writes it in full ("29 de novembro de 2025")."""
    return format_date(moment.date(), format="long", locale=Locale.parse(i18n.HTML_LANG[lang], "-"))


@router.get("/account", response_class=HTMLResponse, include_in_schema=False)
async def account_page(request: Request) -> Response:
    """Who you are, log out, change the password, delete the account (anonymous: log in)."""
    account = await optional_account(request)
    if account is None:
        return _redirect("/login?next=/account")
    return await _render(
        request,
        "account.html",
        "Your account",
        page="account",
        account=account,
        since=_long_date(account.created_at, _lang(request)),
        deleted_name=DELETED_NAME,
    )


@router.get("/i18n/{lang}.json", include_in_schema=False)
def catalog(request: Request, lang: str) -> Response:
    """The catalog of a language for the page script: kept for ever when asked with this
    server's version (the pages do), briefly otherwise."""
    if lang not in i18n.LANGS:
        raise HTTPException(status_code=404, detail="unknown language")
    versioned = request.query_params.get("v") == STATIC_VERSION
    cache = "public, max-age=31536000, immutable" if versioned else "public, max-age=300"
    return JSONResponse(
        i18n.catalog_json(lang),
        headers={"Cache-Control": cache, "Content-Language": i18n.HTML_LANG[lang]},
    )
