"""The views of declared panels (:mod:`dpviz.panels`), one module per panel kind."""
