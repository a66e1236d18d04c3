"""A league report as an HTML page, from the one template that serves ``arena report`` and the
web service's report page alike.

``templates/report_page.html`` lays out the report's sections (``arena.league.report.sections``)
and extends a layout: ``report_file.html``, a self-contained page (a viewport for phones, an
inline style, each table in a container that scrolls sideways), or the web service's
``base.html``. Whoever renders it sets up its Jinja environment with ``configure``: every value
printed goes through ``shown`` (text made safe to show, then autoescaped), and the
``plot_url`` filter quotes a plot's file name.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup

from arena.match.safetext import safe_text

TEMPLATES = Path(__file__).parent / "templates"
"""The report's templates: ``report_page.html``, its file layout, its tables and style."""

PAGE = "report_page.html"
"""The report's template."""

FILE_LAYOUT = "report_file.html"
"""The layout of the self-contained page that ``arena report`` writes."""


def shown(value: object) -> object:
    """A value as a template prints it: text made safe to show (``Markup`` is HTML a page made
    itself, and stays as it is)."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return safe_text(value, multiline=True)
    return value


def plot_url(name: str) -> str:
    """A plot's file name quoted for a URL path."""
    return quote(name)


def configure(environment: Environment) -> None:
    """Give an environment what the report's templates use: ``shown`` and ``plot_url``."""
    environment.finalize = shown
    environment.filters["plot_url"] = plot_url


def environment() -> Environment:
    """The report's templates alone, as ``arena report`` renders them."""
    result = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True)
    configure(result)
    return result


def page_context(name: str, sections: Sequence[Any], layout: str, plots: str = "",
                 back: str = "") -> dict[str, Any]:
    """The template's values: the league's name, the report's sections, the layout, the
    prefix of the plots' URLs and the link back to the league (none when empty)."""
    return {"name": name, "sections": sections, "layout": layout, "plots": plots, "back": back}


def render_file_page(name: str, sections: Sequence[Any]) -> str:
    """The self-contained page ``arena report`` writes, plots referenced by relative path."""
    template = environment().get_template(PAGE)
    return template.render(page_context(name, sections, FILE_LAYOUT)).strip() + "\n"
