"""Shared fixtures: an isolated disk cache for every test session; one warm cache that every server a
test starts gets a copy of; the real browser and a real server for the browser tests.

What a test needs beyond Python is said by its markers (declared in pyproject.toml): ``browser``,
``server``, ``postgres``, ``kernel``, ``chromium``, ``cluster``, ``slow``. The quick tier
(``bash scripts/test.sh quick``) deselects them all. Markers follow from the fixtures a test uses
(:data:`FIXTURE_MARKS`) or are written on the test; and every program a test starts is checked
against them (:func:`_launch_seen`): a test that starts Chromium, a server, PostgreSQL or a kernel
without the marker that says so fails, so the quick tier stays free of them."""

import os
import re
import shutil
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# where a test turns frames on, no sets are computed ahead of a reader's move (webui.live_frames.ask_ahead,
# and ``dpviz build``'s: seconds of work behind every settled page, beside the other tests' servers and
# browsers), for every process the run starts (the warm cache's builders too), except in the tests of
# them (tests/web/test_frames_ahead.py, tests/browser/test_browser_frames.py)
os.environ["DPVIZ_FRAMES_AHEAD"] = "0"


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory):
    cache = tmp_path_factory.mktemp("dpviz-cache")
    os.environ["DPVIZ_CACHE_DIR"] = str(cache)
    shared_models.share_models(cache)  # the fastText stand-in trained once per run (tests/shared_models.py)
    os.environ.pop("DPVIZ_HOSTED", None)
    # charts are drawn by the server on every move, as without frames; the tests of frames turn
    # them on for their own servers (tests/browser/test_browser_frames.py)
    os.environ["DPVIZ_FRAMES"] = "0"
    yield


@pytest.fixture(autouse=True, scope="session")
def _patient_formula_worker():
    """The formula worker's wall clock in the test processes: 180 s, not a server's 20 s. Here two
    test processes, the warm cache's two builders, servers and browsers share two cores, and a
    worker given a quarter of a core ran out of 20 s on the default formula (dpviz.sandbox.Busy).
    The CPU-seconds and memory limits, which bound a costly formula, stay as they are; the tests of
    the wall clock give theirs."""
    from dpviz import sandbox

    sandbox.WALL_SECONDS = 180.0
    yield


@pytest.fixture(autouse=True)
def _restore_main_module():
    """AppTest installs the script it runs as ``__main__``; multiprocessing's spawn (Dask's local
    cluster, the build-once tests' processes) would re-run that script in every child, whichever
    test runs next. Put the real one back after every test."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


import shared_models  # noqa: E402
from browser_support import CHROMIUM_ARGS, TEST_BROWSER, needs_chromium, start_server, stop_server  # noqa: E402
from warm_cache import WarmCache  # noqa: E402

# what a fixture brings with it, as markers of every test that uses it
FIXTURE_MARKS = {
    "browser": ("browser", "chromium"),
    "page": ("browser", "chromium"),
    "tab": ("browser", "chromium"),
    "server": ("server",),
    "frames_server": ("server",),
    "hosted": ("server",),
    "hosted_on_postgres": ("server", "postgres"),
    "postgres": ("postgres",),
}
SLOW = (
    "core/test_build_once.py::test_two_processes_on_an_empty_cache_train_fasttext_once",
    "lessons/test_lessons.py::test_shipped_lessons_pass_lesson_check[metric-dp]",
    "papers/metric/test_metric_dp.py::test_engine_equals_faiss_brute_force_on_real_glove",
    "auditing/test_audit_mechanisms.py::test_built_in_examples_reach_the_expected_verdict[metric]",
    "auditing/test_audit_mechanisms.py::test_built_in_examples_reach_the_expected_verdict[ome]",
    "auditing/test_mechanisms.py::test_never_above_the_exact_ome_loss_over_seeds",
    "core/test_cli.py::test_json_and_html",
    "core/test_cli.py::test_mdp_stats_csv_and_bad_embedding",
    "core/test_cli.py::test_ps_query_csv_has_the_global_sensitivity_and_maximiser",
    "core/test_embeddings.py::test_fasttext_local_trains_once_and_is_cached",
    "core/test_embeddings.py::test_loaded_embeddings_stay_within_a_memory_budget_measured_in_a_fresh_process",
    "core/test_figures.py::test_every_figure_computes_its_columns_and_renders[metric-live]",
    "core/test_figures.py::test_figures_are_pure_functions_of_their_parameters[hoho-audit]",
    "core/test_figures.py::test_figures_are_pure_functions_of_their_parameters[hoho-frontier]",
    "core/test_figures.py::test_figures_are_pure_functions_of_their_parameters[hoho-utility]",
    "core/test_figures.py::test_figures_are_pure_functions_of_their_parameters[metric-knn-distances]",
    "core/test_figures.py::test_figures_are_pure_functions_of_their_parameters[metric-live]",
    "core/test_figures.py::test_figures_are_pure_functions_of_their_parameters[partial-frontier]",
    "core/test_figures.py::test_figures_are_pure_functions_of_their_parameters[partial-individuals]",
    "core/test_figures.py::test_figures_are_pure_functions_of_their_parameters[partial-query-surface]",
    "core/test_figures.py::test_figures_are_pure_functions_of_their_parameters[partial-query]",
    "core/test_formula_sandbox.py::test_sandbox_limits_each_resource",
    "core/test_frames.py::test_every_frame_equals_the_figure_drawn_at_its_position[hoho-bounds-epsilon]",
    "core/test_frames.py::test_every_frame_equals_the_figure_drawn_at_its_position[hoho-frontier-lambda_]",
    "core/test_frontier.py::test_metric_current_point_is_the_words_own_statistics",
    "core/test_shared_cache.py::test_processes_asking_for_the_same_table_at_once_compute_it_once",
    "core/test_targets.py::test_hoho_auc_against_a_grid_of_the_exact_attack",
    "core/test_targets.py::test_metric_targets_against_a_grid_of_the_words_own_draws[mean_cosine-0.8]",
    "core/test_targets.py::test_metric_targets_against_a_grid_of_the_words_own_draws[n_w-40.0]",
    "core/test_targets.py::test_metric_targets_against_a_grid_of_the_words_own_draws[s_w-30.0]",
    "core/test_targets.py::test_metric_targets_against_a_grid_of_the_words_own_draws[share_kept-0.5]",
    "lessons/test_classroom.py::test_a_locked_sqlite_file_is_waited_out",
    "lessons/test_lessons.py::test_shipped_lessons_pass_lesson_check[partial]",
    "page_report/test_report_html.py",
    "page_report/test_report_notebook.py::test_notebook_cells_name_the_settings",
    "papers/adept/test_adept.py::test_histogram_exceed_probability_vs_exact[25-1.0-0.2]",
    "papers/hoho/test_ome.py::test_exact_vector_loss_equals_enumeration_of_every_output[0.5-1.0-2-6-5-domain3]",
    "papers/hoho/test_ome.py::test_exact_vector_loss_equals_enumeration_of_every_output[10.0-0.5-2-6-5-domain3]",
    "papers/hoho/test_ome.py::test_exact_vector_loss_equals_enumeration_of_every_output[2.0-3.0-2-6-5-domain3]",
    "papers/metric/test_metric_dp.py::test_engine_equals_faiss_brute_force_on_real_glove[default]",
    "papers/metric/test_metric_dp.py::test_engine_equals_faiss_brute_force_on_real_glove[tiny",
    "papers/metric/test_metric_dp.py::test_engine_equals_float64_brute_force[default-1500-20-1-bands]",
    "papers/metric/test_metric_dp.py::test_engine_equals_float64_brute_force[default-1500-20-1-one",
    "papers/metric/test_metric_dp.py::test_envelopes_equal_the_direct_engine_at_any_epsilon_on_glove[default]",
    "papers/metric/test_metric_dp.py::test_envelopes_equal_the_direct_engine_at_any_epsilon_on_glove[tiny",
    "papers/metric/test_metric_dp.py::test_try_it_box_equals_the_direct_computation_and_is_shared[default]",
    "papers/metric/test_metric_dp.py::test_try_it_box_equals_the_direct_computation_and_is_shared[tiny",
    "web/test_app.py::test_a_point_of_omes_epsilon_lambda_curve_moves_both_sliders",
    "web/test_app.py::test_a_target_in_the_link_is_answered_and_one_click_moves_the_slider",
    "web/test_app.py::test_every_paper_page_answers_a_target_and_draws_its_frontier[metric-query1-share_kept-0.5-epsilon]",
    "web/test_app.py::test_hoho_page_draws_its_charts",
    "web/test_app.py::test_live_sliders_carry_the_sessions_value_as_their_default",
    "web/test_app.py::test_metric_page_defaults_draw_all_charts",
    "web/test_app.py::test_the_audit_pages_examples_draw_their_chart[metric]",
    "web/test_app.py::test_the_gallery_settings_draw_every_chart[adept-changed]",
    "web/test_app.py::test_the_gallery_settings_draw_every_chart[hoho-changed]",
    "web/test_app.py::test_the_gallery_settings_draw_every_chart[metric-changed]",
    "web/test_app.py::test_the_gallery_settings_draw_every_chart[metric-default]",
    "web/test_app.py::test_the_report_box_makes_a_report_of_the_settings_on_screen",
    "web/test_lessons_page.py::test_a_lesson_and_a_comparison_as_one_report",
)
"""Tests (or whole modules) that took 2.5 s or more of a core in a run of the quick tier on the
2-core machine (``--durations``, two workers), marked ``slow``: the full run has them, the quick
tier does not. A test made faster leaves the list; a new slow one joins it."""
TIERS = ("browser", "server", "postgres", "kernel", "chromium", "cluster", "slow")
"""The markers the quick tier deselects: ``-m "not (browser or server or ...)"``."""


def pytest_collection_modifyitems(config, items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        under_tests = item.nodeid.split("tests/", 1)[-1]
        if any(under_tests == s or under_tests.startswith(s + "::") or under_tests.startswith(s + "[") for s in SLOW):
            item.add_marker(pytest.mark.slow)
        if "browser" in Path(str(item.fspath)).parts[-2:-1]:  # tests/browser/: a browser against a server
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.server)
        for fixture, marks in FIXTURE_MARKS.items():
            if fixture in names:
                for mark in marks:
                    item.add_marker(getattr(pytest.mark, mark))
        callspec = getattr(item, "callspec", None)
        if callspec is not None and any(isinstance(v, str) and v == "postgresql" for v in callspec.params.values()):
            item.add_marker(pytest.mark.postgres)
        if "browser" in names:
            item.add_marker(needs_chromium)
        for skip in item.iter_markers("skipif"):  # a test that runs only where a program is needs it
            reason = str(skip.kwargs.get("reason", ""))
            for word, mark in (("Chromium", "chromium"), ("PostgreSQL", "postgres")):
                if word in reason:
                    item.add_marker(getattr(pytest.mark, mark))
    # the tests that need no server, browser, database or kernel first (the quick tier's answer
    # comes early, and the warm cache is made meanwhile), then the rest, each group in file order
    items.sort(key=lambda item: any(item.get_closest_marker(m) for m in TIERS))


# --- every program a test starts, held against its markers -----------------------------------

_KINDS = (  # (marker, what the command line of a program of that kind holds)
    ("browser", re.compile(r"run-driver")),  # Playwright's driver, which starts the browser
    ("chromium", re.compile(r"(^|/)(chromium|chrome|headless_shell)(\s|$)")),  # the program, not a word of a path
    ("server", re.compile(r"scripts/serve\.sh|streamlit run|supervisord|haproxy (?!-c )")),  # not a config check
    ("postgres", re.compile(r"\binitdb\b|\bpg_ctl\b")),
    ("kernel", re.compile(r"ipykernel|jupyter")),
)
_CURRENT: dict = {"item": None, "seen": []}
_LOCK = threading.Lock()


def _kind_of(argv) -> str | None:
    line = " ".join(str(a) for a in argv) if isinstance(argv, (list, tuple)) else str(argv)
    for kind, pattern in _KINDS:
        if pattern.search(line):
            return kind
    return None


def _launch_seen(event, args):
    if event != "subprocess.Popen":
        return
    kind = _kind_of(args[1] if len(args) > 1 and args[1] else args[0])
    if kind is None:
        return
    with _LOCK:
        item = _CURRENT["item"]
        if item is not None and item.get_closest_marker(kind) is None:
            _CURRENT["seen"].append((kind, " ".join(map(str, args[1]))[:160] if args[1] else str(args[0])))


sys.addaudithook(_launch_seen)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    with _LOCK:
        _CURRENT["item"], _CURRENT["seen"] = item, []
    yield
    with _LOCK:
        _CURRENT["item"] = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield
    with _LOCK:
        seen = list(_CURRENT["seen"])
        _CURRENT["seen"] = []
    if seen:
        kinds = sorted({k for k, _ in seen})
        pytest.fail(
            f"{item.nodeid} starts {', '.join(kinds)} without the marker that says so (the quick tier would "
            f"run it): mark it @pytest.mark.{kinds[0]}. Started: {seen[0][1]}",
            pytrace=False,
        )


# --- one warm cache for the servers the tests start -------------------------------------------

_WARM: dict = {}


def _needs_warm_cache(item) -> bool:
    return "warm_cache" in getattr(item, "fixturenames", ())


def pytest_collection_finish(session):
    """When the run has a test whose server starts warm, the warm cache is made in the background
    from now on, while the tests that need none run first (see the ordering above)."""
    if any(_needs_warm_cache(item) for item in session.items):
        _warm(session.config).start()


def _run_root(config) -> Path:
    """The folder of the whole run: pytest's temporary folder, or with pytest-xdist the run's folder
    that holds each worker's."""
    base = config._tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _warm_root(config) -> Path:
    """Where this run's warm cache lives, one for all of a run's processes."""
    return _run_root(config) / "warm-cache"


def _models_root(config) -> Path:
    """Where this run's trained models live, one for all its caches (tests/shared_models.py)."""
    return _run_root(config) / "models"


@pytest.hookimpl(trylast=True)  # after pytest's own, which gives the run its temporary folder
def pytest_configure(config):
    # every process of the run, and the warm cache's builders it starts, share the run's models
    os.environ[shared_models.ENV] = str(_models_root(config))
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # the run's first process: models kept by the last quick run
        shared_models.bring_kept(_models_root(config))


def _warm(config) -> WarmCache:
    if "cache" not in _WARM:
        _WARM["cache"] = WarmCache(_warm_root(config))
    return _WARM["cache"]


def pytest_sessionfinish(session, exitstatus):
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # the run's last process: its warm cache goes (a GB)
        if _warm_root(session.config).exists():
            WarmCache(_warm_root(session.config)).stop()  # builders still running, started by any process
        shutil.rmtree(_warm_root(session.config), ignore_errors=True)
        shared_models.keep(_models_root(session.config))
        shutil.rmtree(_models_root(session.config), ignore_errors=True)


@pytest.fixture(scope="session")
def warm_cache(pytestconfig) -> Path:
    """A cache folder with every page's defaults computed (charts, panels, lessons, the fastText
    stand-in: tests/warm_cache.py), made once per run in the background; a server gets a copy
    (``start_server(..., cache_from=warm_cache)``)."""
    return _warm(pytestconfig).start().wait("charts")


@pytest.fixture(scope="session")
def warm_frames(pytestconfig, warm_cache) -> Path:
    """Each live chart's frames along its sliders on the pages' defaults, in a folder of their own
    (made beside :func:`warm_cache`); the frames tests' server gets both."""
    return _warm(pytestconfig).wait("frames")


@pytest.fixture(scope="module")
def server(tmp_path_factory, warm_cache):
    tmp = tmp_path_factory.mktemp("server")
    proc, url, log = start_server(tmp, cache_from=warm_cache)
    yield url
    stop_server(proc, log)


class WatchedBrowser:
    """A Playwright browser whose every context and tab records its uncaught errors (page errors: a
    script's exception, or a promise rejected with no one to catch it) in ``errors``; the rest is
    the browser's own. :func:`uncaught_errors_fail_the_test` fails a test in whose time one came,
    whatever the test looked at: a plotly.js error thrown from dpviz's size watcher now and then on
    opening the Partial page went unseen by every test for weeks."""

    def __init__(self, browser):
        self._browser = browser
        self.errors: list[str] = []

    def __getattr__(self, name):
        return getattr(self._browser, name)

    def new_context(self, **kwargs):
        ctx = self._browser.new_context(**kwargs)
        ctx.on("weberror", lambda e: self.errors.append(f"{e.error} (at {e.page.url if e.page else '?'})"))
        return ctx

    def new_page(self, **kwargs):
        pg = self._browser.new_page(**kwargs)
        pg.on("pageerror", lambda e: self.errors.append(f"{e} (at {pg.url})"))
        return pg


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=TEST_BROWSER, args=CHROMIUM_ARGS)
        yield WatchedBrowser(b)
        b.close()


@pytest.fixture(autouse=True)
def uncaught_errors_fail_the_test(request):
    """A test that used the ``browser`` fixture fails if a tab of it had an uncaught error meanwhile
    (:class:`WatchedBrowser`); a test that expects one takes it from ``browser.errors`` itself."""
    if "browser" not in request.fixturenames:
        yield
        return
    watched = request.getfixturevalue("browser")
    start = len(watched.errors)
    yield
    new = watched.errors[start:]
    assert not new, f"uncaught errors in the page: {new}"


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100}, accept_downloads=True)
    pg = ctx.new_page()
    pg.set_default_timeout(60_000)
    yield pg
    ctx.close()


# --- the run's timeline, for finding where its minutes go ----------------------------------------


def pytest_runtest_logreport(report):
    """With ``DPVIZ_TEST_TIMELINE=<file>``, the run's first process appends one line per test phase:
    worker, start and end (seconds since the epoch), phase, test. ``scripts/test_timeline.py`` reads
    it back: each worker's files in order, its idle tail, the files that cost the most."""
    path = os.environ.get("DPVIZ_TEST_TIMELINE")
    if not path or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    node = getattr(report, "node", None)
    worker = getattr(getattr(node, "gateway", None), "id", "main")
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"{worker}\t{report.start:.3f}\t{report.stop:.3f}\t{report.when}\t{report.nodeid}\n")
