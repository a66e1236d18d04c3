"""How pages are rendered: the templates, their helpers, and the error page.

Every value a template prints passes through ``shown`` (``arena.league.report_page``, Jinja's
``finalize``): text has its control and format characters escaped (``safe_text``: a bot's name
may hold a bidi override) before autoescaping makes it HTML.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import HTMLResponse, Response
from fastapi.templating import Jinja2Templates
from jinja2 import ChoiceLoader, FileSystemLoader

from arena.league import numbers, report_page
from arena.league.compare import CORRECTIONS, MIN_SETS

HERE = Path(__file__).parent
"""Where the templates and static files are (the report's template is the league's:
``arena.league.report_page``, which ``arena report`` writes its page with)."""

STATUS_TITLES = {400: "Bad request", 403: "Forbidden", 404: "Not found",
                 405: "Method not allowed", 500: "Server error"}
"""The heading of each error page."""


class BadRequest(ValueError):
    """A query parameter a page cannot use; its text is the one line the page shows."""


def url_part(text: object) -> str:
    """A name or id made safe inside a URL path (slashes kept for match ids)."""
    return quote(str(text), safe="/:")


def signed(value: float) -> str:
    """A game's return with its sign (zero has none), without needless decimals (statistics
    use the report's formatter: the ``estimate``, ``rate``, ``fixed``, ``p_value`` and
    ``verdict`` filters)."""
    return f"{value:+.4g}" if value else "0"


def make_templates() -> Jinja2Templates:
    """The page templates and the report's, with the helpers they use; what they print goes
    through ``shown`` (``report_page.shown``)."""
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.loader = ChoiceLoader([FileSystemLoader(HERE / "templates"),
                                         FileSystemLoader(report_page.TEMPLATES)])
    report_page.configure(templates.env)
    templates.env.filters["signed"] = signed
    templates.env.filters["fixed"] = numbers.fixed
    templates.env.filters["estimate"] = numbers.estimate
    templates.env.filters["rate"] = numbers.rate
    templates.env.filters["percent"] = numbers.percent
    templates.env.filters["p_value"] = numbers.p_value
    templates.env.filters["verdict"] = numbers.verdict
    templates.env.globals["corrections"] = CORRECTIONS
    templates.env.globals["min_sets"] = MIN_SETS
    templates.env.filters["url_part"] = url_part
    return templates


def page(request: Request, template: str, **context: Any) -> HTMLResponse:
    """Render a page template, with the signed-in user (``viewer``) for the header; a page
    made for a signed-in user is not cached."""
    templates: Jinja2Templates = request.app.state.templates
    viewer = getattr(request.state, "viewer", None)
    response: HTMLResponse = templates.TemplateResponse(
        request, template, {"viewer": viewer, **context})
    if viewer is not None:
        response.headers["Cache-Control"] = "private, no-store"
    return response


def error_page(request: Request, status: int, message: str) -> Response:
    """The error page of a status, with one line saying what went wrong."""
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(
        request, "error.html",
        {"status": status, "title": STATUS_TITLES.get(status, "Error"), "message": message,
         "viewer": getattr(request.state, "viewer", None)},
        status_code=status)
