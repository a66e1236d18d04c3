"""How pages are rendered: the templates, their helpers, and the error page."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import HTMLResponse, Response
from fastapi.templating import Jinja2Templates

HERE = Path(__file__).parent
"""Where the templates and static files are."""

STATUS_TITLES = {400: "Bad request", 404: "Not found", 405: "Method not allowed",
                 500: "Server error"}
"""The heading of each error page."""


class BadRequest(ValueError):
    """A query parameter a page cannot use; its text is the one line the page shows."""


def url_part(text: object) -> str:
    """A name or id made safe inside a URL path (slashes kept for match ids)."""
    return quote(str(text), safe="/:")


def signed(value: float) -> str:
    """A number with its sign (zero has none), without needless decimals."""
    return f"{value:+.4g}" if value else "0"


def make_templates() -> Jinja2Templates:
    """The page templates, with the helpers they use."""
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.filters["signed"] = signed
    templates.env.filters["url_part"] = url_part
    return templates


def page(request: Request, template: str, **context: Any) -> HTMLResponse:
    """Render a page template."""
    templates: Jinja2Templates = request.app.state.templates
    response: HTMLResponse = templates.TemplateResponse(request, template, context)
    return response


def error_page(request: Request, status: int, message: str) -> Response:
    """The error page of a status, with one line saying what went wrong."""
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(
        request, "error.html",
        {"status": status, "title": STATUS_TITLES.get(status, "Error"), "message": message},
        status_code=status)
