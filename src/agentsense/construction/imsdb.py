"""An IMSDb page as served: the script is the text of its `<pre>`, everything else is the site.

The page is read with the standard library's HTML parser (entities decoded, tags such as the
`<b>` around cues and headings dropped), keeping the page's line numbers, so that the line
account counts the lines of the file the user gave. A page without `<pre>` is read whole.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_HIDDEN = {"head", "script", "style", "title", "noscript"}
_LOOKS_HTML = re.compile(r"<\s*(html|body|pre|head|!doctype)\b", re.I)


def looks_like_html(text: str) -> bool:
    return bool(_LOOKS_HTML.search(text[:20000]))


class _Page(HTMLParser):
    def __init__(self, lines: int, pre_only: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.text = [""] * lines
        self.script = [False] * lines  # whether any of the line's text is script text
        self.pre_only = pre_only
        self.pre = 0
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "pre":
            self.pre += 1
        elif tag in _HIDDEN:
            self.hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self.pre = max(0, self.pre - 1)
        elif tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)

    def handle_data(self, data: str) -> None:
        row = self.getpos()[0] - 1
        shown = not self.hidden and (self.pre or not self.pre_only)
        for offset, piece in enumerate(data.split("\n")):
            at = min(row + offset, len(self.text) - 1)
            if shown:
                self.text[at] += piece
                self.script[at] = self.script[at] or bool(piece.strip())


def page_lines(lines: list[str]) -> tuple[list[str], list[bool]]:
    """Each source line's script text (tags dropped, entities decoded), and whether it has any;
    a line without is page markup. With a `<pre>` on the page, only its text is the script."""
    text = "\n".join(lines)
    page = _Page(len(lines), pre_only=bool(re.search(r"<pre\b", text, re.I)))
    page.feed(text)
    page.close()
    return page.text, page.script
