"""The report's pages come from Jinja2 templates with autoescaping on: what the results directory gave is
escaped wherever a template writes it, as ``html.escape`` does, and only HTML the code made stays as it is."""

from __future__ import annotations

import re
from pathlib import Path

from arena.site import pages
from arena.site.templating import render

HOSTILE = "<script>alert(\"x\")</script>&'"
TEMPLATES = Path(pages.__file__).with_name("templates")


def test_a_value_is_escaped_wherever_a_template_writes_it() -> None:
    page = render("waiting.html", title=HOSTILE, running=False, file=HOSTILE)
    assert "<script>" not in page
    assert page.count("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#x27;") == 3  # the title, the heading, the file to run


def test_only_html_the_code_made_is_written_as_it_is() -> None:
    summary = {"name": HOSTILE, "ladder": False, "preset": "standard", "matches": 1, "total": None, "voided": 0,
               "bots": 1}
    matrix = {"bots": [HOSTILE, "b"], "pages": ["h", "b"], "cells": [[None, {"shared": 1, "ahead": 1, "behind": 0, "level": 0}],
                                                   [{"shared": 1, "ahead": 0, "behind": 1, "level": 0}, None]],
              "omitted": 0}
    page = pages.headtohead_page(matrix, summary, "v1")
    assert "<svg" in page and "<script>" not in page  # the chart was Markup, the names were not
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#x27;" in page


def test_every_page_frame_is_the_base_template() -> None:
    """No page writes its own head: the doctype is in ``base.html`` (and the ladder's waiting page) only, and
    every template a page names exists."""
    source = Path(pages.__file__).read_text()
    assert "<!DOCTYPE" not in source and "<html" not in source
    named = set(re.findall(r'"(\w+\.html)"', source))
    assert named and named <= {p.name for p in TEMPLATES.glob("*.html")}
    doctypes = sorted(p.name for p in TEMPLATES.glob("*.html") if "<!DOCTYPE" in p.read_text())
    assert doctypes == ["base.html", "waiting.html"]
