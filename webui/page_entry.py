"""What a page file calls (``pages/*.py``): the loader sent first (:func:`webui.page_start.start`),
then the page's code imported and the page drawn from its declaration. It imports nothing heavy
at its top, so that a fresh server process sends the loader before it imports the page's code.
"""

from __future__ import annotations

from webui.page_start import start


def show_paper(key: str) -> None:
    """The page of paper ``key`` (:func:`webui.paper_page.show`), its loader sent first."""
    start()
    from webui.paper_page import show  # (after start: the page's code takes a second to import)

    show(key)


def show_tool(key: str) -> None:
    """The page of tool ``key`` (:func:`webui.tool_page.show`), its loader sent first."""
    start()
    from webui.tool_page import show  # (after start: as above)

    show(key)
