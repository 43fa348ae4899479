"""The little Markdown the papers' declarations use (paragraphs, **bold**, *italic*, `code`,
[links](https://...)) as HTML for a report. The text is escaped first, so nothing in it becomes
markup except these forms; a link is kept only when it is an http(s) address.

>>> markdown_html("**ε√n-DP**, not *ε*: see `sensitivity.py`")
'<p><strong>ε√n-DP</strong>, not <em>ε</em>: see <code>sensitivity.py</code></p>'
>>> markdown_html("<script>x</script>")
'<p>&lt;script&gt;x&lt;/script&gt;</p>'
"""

from __future__ import annotations

import html
import re

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^)\s\"]+)\)")


def inline_html(text: str) -> str:
    """One paragraph's inline Markdown as HTML (the text escaped; code spans left as they are)."""
    parts = _CODE.split(html.escape(text, quote=False))
    out = []
    for k, part in enumerate(parts):
        if k % 2:  # inside backticks
            out.append(f"<code>{part}</code>")
            continue
        part = _LINK.sub(lambda m: f'<a href="{m.group(2)}">{m.group(1)}</a>', part)
        part = _BOLD.sub(r"<strong>\1</strong>", part)
        out.append(_ITALIC.sub(r"<em>\1</em>", part))
    return "".join(out)


def markdown_html(text: str) -> str:
    """Paragraphs (separated by blank lines) of inline Markdown as HTML."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text or "") if p.strip()]
    return "\n".join(f"<p>{inline_html(' '.join(p.split()))}</p>" for p in paragraphs)


def plain_text(text: str) -> str:
    """The Markdown without its marks (for a notebook's or a PDF's plain lines)."""
    text = _LINK.sub(r"\1 (\2)", text or "")
    return _ITALIC.sub(r"\1", _BOLD.sub(r"\1", _CODE.sub(r"\1", text)))
