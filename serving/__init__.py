"""Operations: how dpviz is served, apart from what it computes (:mod:`dpviz`) and how it draws
(:mod:`webui`). :mod:`serving.supervision` runs the hosted start command's processes under
supervisord (restarts, rolling restarts, no process outliving its supervisor) and
:mod:`serving.proxy_config` writes HAProxy's configuration for several server processes.

The dependency points one way: this package starts the server processes (``streamlit run
app.py``) and wakes them (``python -m webui.session_client``), and nothing in :mod:`dpviz` or
:mod:`webui` imports it."""
