"""The browser front end: HTML pages (Jinja2), the page scripts and styles, the translations.

`dicepoker.web.pages.router` holds the pages; the server mounts `pages.STATIC_DIR` at `/static`.
"""
