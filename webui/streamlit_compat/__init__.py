"""The one door to Streamlit's private internals: every use dpviz makes of a name Streamlit does
not document is in this package, and nowhere else (tests/core/test_lint.py checks that no other
module imports one).

- :mod:`~webui.streamlit_compat.guard`: the versions the door was reviewed for (:data:`REVIEWED`;
  a warning once on any other, from the door's import, and a test that fails until the review),
  and :func:`target`, through which each private name is looked up (a missing one is logged and
  its use left out: Streamlit's own behaviour stays);
- :mod:`~webui.streamlit_compat.fixes`: the patches of Streamlit's behaviour (:func:`install`);
- :mod:`~webui.streamlit_compat.plotly`: Streamlit's Plotly element from JSON made once per view,
  and where Streamlit ships plotly.js;
- :mod:`~webui.streamlit_compat.protocol`: Streamlit's browser messages, for dpviz's session client.
"""

from __future__ import annotations

from webui.streamlit_compat.fixes import install as install_fixes
from webui.streamlit_compat.guard import REVIEWED, check_version, target

check_version()  # a warning, once, on a Streamlit the door was not reviewed for

__all__ = ["REVIEWED", "check_version", "install", "target"]


def install() -> None:
    """Install the fixes of :mod:`webui.streamlit_compat.fixes` (idempotent)."""

    install_fixes()
