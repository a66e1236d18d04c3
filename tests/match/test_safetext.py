"""safe_text over every code point: no control, format, separator or blank-letter character
survives, everything else is kept as it is; safe_json keeps the JSON value; SafeFormatter and
safe_console make log lines and rich output safe."""

from __future__ import annotations

import io
import json
import logging
import sys
import unicodedata

from rich.table import Table
from rich.text import Text

from arena.cli.console import safe_console
from arena.match.safetext import SafeFormatter, dumps, safe_json, safe_text, unsafe

EVERY_CHARACTER = "".join(chr(code) for code in range(sys.maxunicode + 1)
                          if not 0xD800 <= code < 0xE000)
"""Every Unicode scalar value."""

DANGEROUS = frozenset({"Cc", "Cf", "Zl", "Zp"})


def test_no_dangerous_character_survives_and_the_rest_is_kept() -> None:
    shown = safe_text(EVERY_CHARACTER)
    survivors = {char for char in shown if unicodedata.category(char) in DANGEROUS}
    assert not survivors
    for char in "\u115f\u1160\u3164\uffa0":
        assert char not in shown
    kept = "".join(char for char in EVERY_CHARACTER if not unsafe(char))
    assert safe_text(kept) == kept
    assert safe_text("é♥μ漢🂡") == "é♥μ漢🂡"


def test_escapes_read_as_python_writes_them() -> None:
    assert safe_text("\x1b]0;t\x07\x9b\x7f\u202e\U000e0041\r") == \
        "\\x1b]0;t\\x07\\x9b\\x7f\\u202e\\U000e0041\\r"
    assert safe_text("a\nb\tc") == "a\\nb\\tc"
    assert safe_text("a\nb\tc\rd", multiline=True) == "a\nb\tc\\rd"
    assert safe_text(3) == "3"


def test_lone_surrogates_are_escaped() -> None:
    broken = b"ok \xff\xfe".decode("utf-8", errors="surrogateescape")
    assert safe_text(broken) == "ok \\udcff\\udcfe"


def test_safe_json_keeps_the_value_and_shows_nothing_raw() -> None:
    value = {"text": EVERY_CHARACTER[:0x3000] + "\U000e0001\U0001f600", "n": [1, 2]}
    text = dumps(value, indent=2)
    assert json.loads(text) == value
    assert not any(unsafe(char) for char in text.replace("\n", "").replace(" ", ""))
    assert safe_json('{"a": "\u202e"}') == '{"a": "\\u202e"}'


def test_the_safe_formatter_escapes_messages_and_tracebacks() -> None:
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "bot said %s", ("\x1b[2J",),
                               None)
    try:
        raise ValueError("\u202eboom")
    except ValueError:
        record.exc_info = sys.exc_info()
    text = SafeFormatter().format(record)
    assert "bot said \\x1b[2J" in text and "ValueError: \\u202eboom" in text
    assert "\x1b" not in text and "\u202e" not in text


def test_the_safe_console_escapes_text_and_reads_no_markup() -> None:
    out = io.StringIO()
    console = safe_console(file=out, force_terminal=True, color_system="standard", width=100)
    table = Table(title="t")
    table.add_column("name")
    table.add_row("[red]x[/red]\x1b]52;c;AA\x07")
    table.add_row(Text("\u202eevil", style="bold"))
    console.print(table)
    console.print("[link=https://evil.example]y[/link] \x9b31m")
    printed = out.getvalue()
    assert "[red]x[/red]\\x1b]52;c;AA" in printed and "\\u202eevil" in printed
    assert "[link=https://evil.example]y[/link] \\x9b31m" in printed
    assert "\x1b]" not in printed and "\x9b" not in printed and "\u202e" not in printed
