"""The HTML pages of the web app: the lobby, the table, the replay viewer and the rules.

Pages are Jinja2 templates (autoescaped) rendered in the visitor's language; each page loads one
plain ES module from `/static/js/` that talks to the REST API and the WebSocket of
`docs/api.md`. The server includes `router` and mounts `STATIC_DIR` at `/static`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markdown_it import MarkdownIt

from dicepoker.web import i18n

HERE: Final = Path(__file__).resolve().parent
STATIC_DIR: Final = HERE / "static"
TEMPLATES_DIR: Final = HERE / "templates"
RULES_DIR: Final = HERE / "rules"
PRESETS: Final = ("school", "yahtzee", "yahtzee15", "poker-dice")
COOKIE_MAX_AGE: Final = 365 * 24 * 3600

_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

router = APIRouter()

templates = Environment(
    loader=FileSystemLoader(TEMPLATES_DIR),
    autoescape=select_autoescape(["html", "xml"], default=True),
    trim_blocks=True,
    lstrip_blocks=True,
)


def _static_version() -> str:
    """A cache-busting token for the static files and catalogs: their newest modification."""
    files = [*STATIC_DIR.rglob("*"), *i18n.LOCALES_DIR.rglob("*.po")]
    times = [path.stat().st_mtime for path in files if path.is_file()]
    return str(int(max(times, default=0)))


STATIC_VERSION: Final = _static_version()


def _lang(request: Request) -> str:
    return i18n.negotiate(
        request.headers.get("accept-language"),
        request.cookies.get("lang"),
        request.query_params.get("lang"),
    )


def _render(request: Request, name: str, title: str, **context: Any) -> HTMLResponse:
    lang = _lang(request)

    def translate(msgid: str, **values: Any) -> str:
        text = i18n.gettext(lang, msgid)
        return text.format(**values) if values else text

    page = templates.get_template(name).render(
        lang=lang,
        html_lang=i18n.HTML_LANG[lang],
        langs=[(code, i18n.LANG_NAMES[code]) for code in i18n.LANGS],
        path=request.url.path,
        title=translate(title),
        _=translate,
        version=STATIC_VERSION,
        **context,
    )
    response = HTMLResponse(page)
    response.headers["Content-Language"] = i18n.HTML_LANG[lang]
    response.headers["Vary"] = "Accept-Language, Cookie"
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    if i18n.lang_of(request.query_params.get("lang")) == lang:
        response.set_cookie("lang", lang, max_age=COOKIE_MAX_AGE, samesite="lax", path="/")
    return response


def _check_id(value: str) -> str:
    if not _ID.match(value):
        raise HTTPException(status_code=404, detail="not found")
    return value


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def lobby(request: Request) -> HTMLResponse:
    """Create a game, join or watch one, import a record."""
    return _render(request, "lobby.html", "Dice poker", page="lobby", presets=PRESETS)


@router.get("/g/{game_id}", response_class=HTMLResponse, include_in_schema=False)
def table(request: Request, game_id: str) -> HTMLResponse:
    """The table of one game: players, spectators and the end screen."""
    return _render(request, "table.html", "Dice poker", page="table", game_id=_check_id(game_id))


@router.get("/replay/{kind}/{item_id}", response_class=HTMLResponse, include_in_schema=False)
def replay(request: Request, kind: str, item_id: str) -> HTMLResponse:
    """Step through a game (`g`) or an imported record (`r`) turn by turn and roll by roll."""
    if kind not in ("g", "r"):
        raise HTTPException(status_code=404, detail="not found")
    source = "games" if kind == "g" else "records"
    return _render(
        request,
        "replay.html",
        "Replay",
        page="replay",
        source=source,
        item_id=_check_id(item_id),
        back_url=f"/g/{item_id}" if kind == "g" else "/",
    )


@lru_cache(maxsize=32)
def _rules_html(lang: str, preset: str) -> str:
    path = RULES_DIR / lang / f"{preset}.md"
    if not path.is_file():
        path = RULES_DIR / i18n.DEFAULT_LANG / f"{preset}.md"
    markdown = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    markdown.enable("table").enable("strikethrough")
    html: str = markdown.render(path.read_text(encoding="utf-8"))
    # Links between the rules pages point at the other pages of this site.
    for other in PRESETS:
        html = html.replace(f'href="{other}.md"', f'href="/rules/{other}"')
    return html.replace("<table>", '<div class="table-wrap"><table>').replace(
        "</table>", "</table></div>"
    )


@router.get("/rules", include_in_schema=False)
def rules_index() -> RedirectResponse:
    return RedirectResponse("/rules/school", status_code=307)


@router.get("/rules/{preset}", response_class=HTMLResponse, include_in_schema=False)
def rules(request: Request, preset: str) -> HTMLResponse:
    """The rules of a preset in the page's language (docs/rules/{lang}/{preset}.md)."""
    if preset not in PRESETS:
        raise HTTPException(status_code=404, detail="unknown preset")
    lang = _lang(request)
    return _render(
        request,
        "rules.html",
        "Rules",
        page="rules",
        preset=preset,
        presets=PRESETS,
        content=_rules_html(lang, preset),
    )


@router.get("/i18n/{lang}.json", include_in_schema=False)
def catalog(lang: str) -> Response:
    """The catalog of a language for the page script."""
    if lang not in i18n.LANGS:
        raise HTTPException(status_code=404, detail="unknown language")
    return JSONResponse(
        i18n.catalog_json(lang),
        headers={"Cache-Control": "public, max-age=300", "Content-Language": i18n.HTML_LANG[lang]},
    )
