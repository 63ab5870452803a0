"""Every relative link between the docs (README.md, docker/README.md, docs/*.md) leads somewhere: the file
exists and, into Markdown, the anchor is one GitHub makes for a heading there (or an explicit ``<a id>``).

A renamed heading silently breaks every link to its old anchor: the page still opens, at its top.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .docs_markdown import anchors, broken_links, docs_files, slug


def test_every_relative_link_and_anchor_resolves() -> None:
    checked, broken = broken_links(docs_files())
    assert checked > 0, "no relative link found in the docs: the link pattern no longer matches"
    assert not broken, f"{len(broken)} of {checked} links lead nowhere:\n" + "\n".join(broken)


@pytest.mark.parametrize(("heading", "anchor"), [
    ("Is my new version better?", "is-my-new-version-better"),
    ("Starting a bot: `arena bot new`", "starting-a-bot-arena-bot-new"),
    ("The output directory (`results/<name>` by default)", "the-output-directory-resultsname-by-default"),
    ("12. Minimal bots", "12-minimal-bots"),
    ("**Bold**, [a link](other.md) and <em>a tag</em>: `snake_case`", "bold-a-link-and-a-tag-snake_case"),
])
def test_headings_get_githubs_anchors(heading: str, anchor: str) -> None:
    assert slug(heading) == anchor


def test_the_checker_reports_each_broken_link_and_nothing_else(tmp_path: Path) -> None:
    """The checker itself: a link it cannot see, or an anchor it computes wrongly, would pass broken docs."""
    (tmp_path / "picture.png").write_bytes(b"")
    (tmp_path / "other.md").write_text("# Setup\n\n## Setup\n\n<a id=\"kept\"></a>\n```sh\n# not a heading\n```\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# A page\n"
        "[ok](other.md#setup) [second](other.md#setup-1) [explicit](other.md#kept) [top](#a-page)\n"
        "![image](picture.png) [web](https://example.org/none.md#x) `[code](gone.md)` `` a ` [code](gone.md) ``\n"
        "```\n[fenced](gone.md)\n```\n"
        "[no file](gone.md) [no anchor](other.md#setup-2)\n"
        "[a link over\ntwo lines](#nowhere)\n"
        "[fenced heading](other.md#not-a-heading)\n")
    assert anchors((tmp_path / "other.md").read_text()) == {"setup", "setup-1", "kept"}
    checked, broken = broken_links([page])
    assert checked == 9
    assert broken == [f"{page}:7: gone.md (no such file)", f"{page}:7: other.md#setup-2 (no such anchor)",
                      f"{page}:9: #nowhere (no such anchor)", f"{page}:10: other.md#not-a-heading (no such anchor)"]
