"""Frames the browser fetches by itself, without a run of the page (issue: live from the first second).

A chart whose frames are still being computed used to learn that they were ready only from a run
of the page's live section, which the browser asks for every 2 s (``webui/live_js/chart.js``):
after a key step, the nearest frames were computed within about half a second, and the drag
followed them 2.4-2.6 s after the key. Now, as soon as a set (or its nearest part,
:func:`webui.frames_store.put_near`) is computed, the server process that asked for it writes its
bytes, the very bytes a frames element carries, to a file in the app's static folder, which
Streamlit serves (``server.enableStaticServing``, ``.streamlit/config.toml``) at
``app/static/frames/<name>.bin``. The element that says the frames are pending carries that
address (:func:`addresses`), and the browser asks for the file, a plain HTTP request that runs
nothing (``webui/live_js/fetch_frames.js``: every 150 ms at first, less often as time passes,
one request at a time per tab), until it is there. The 2-s asks stay, for what the files do not
carry (a server whose static folder cannot be written, a set computed by another server's
process).

- **Names.** A file's name is a keyed hash of the frames' key (HMAC-SHA-256 with a secret kept in
  the cache directory, shared by the server processes of a hosted demo): only a page that was
  told the name can fetch it, so the frames of an audit of someone's own samples stay theirs.
- **Where.** ``static/frames/`` beside the app's entry script (``sys.argv[0]``, which Streamlit
  sets to it). Nothing is written when Streamlit does not serve the folder, when the folder is
  not there (a read-only installation: the page asks by runs alone), or with
  ``DPVIZ_FRAMES_FETCH=0`` (an operator's switch, and the benchmarks' baseline).
- **News.** A tab waits for several sets at once after a key step (HoHo: five charts follow the
  other slider, each with a nearest part and a whole set), and asking for each file in turn, one
  request at a time, found a part some 0.8 s after it was written. So each tab also has a *news*
  file (its name a keyed hash of the session's asker token, :func:`news_name`): every file
  published for a set the session asked for is added to it (:func:`tell`, the last
  :data:`NEWS_KEPT` names), and the tab reads that one file at each turn and fetches at once,
  side by side, the files it names (``fetch_frames.js``). One small request a turn tells the tab
  of every set; the files themselves are asked for once they are there. The news file is written
  empty when its address is first handed out, so that the tab's reads find it from the first. ``DPVIZ_FRAMES_NEWS=0``
  writes none (the tab then asks for each file in turn: the benchmarks' baseline).
- **Sets one key step ahead** (:func:`webui.live_frames.ahead_for_browser`) are published too, from
  the disk cache, by :func:`publish_soon` in a thread of this module's: the chart's element names
  them, and the tab fetches one at a key step (and, locally, before it) rather than waiting for
  the step's run.
- **Not there yet.** Every address handed out is a file from then on: an empty one (created only
  if no file is there, :func:`_reserve`) until the frames' bytes are renamed over it. The tab
  takes an empty file as "not yet" and asks again; it asked for files not yet written before, and
  each ask was a 404, a red line in the browser's console (about four a key step).
- **How much.** At most :data:`MAX_FILES` files; every :data:`SWEEP_EVERY` writes the oldest
  beyond it are deleted (a deleted file is a 404, and the page's 2-s ask finds the frames in the
  disk cache).
"""

from __future__ import annotations

import collections
import functools
import hashlib
import hmac
import json
import logging
import os
import threading
from pathlib import Path

from dpviz import caches
from dpviz.storage import cache_dir
from webui.static_folder import served

ROUTE = "app/static/frames"
"""Where Streamlit serves the folder's files, relative to the app's address."""
MAX_FILES = 4000
"""Files kept at most (a chart's frames are 3-60 kB: some 100 MB at most)."""
SWEEP_EVERY = 64
"""Writes between two sweeps of the folder."""
SECRET_FILE = "frames-fetch.secret"
NEWS_KEPT = 64
"""Names a tab's news file lists at most (the newest: a step asks for about ten files)."""
log = logging.getLogger("dpviz.frames")
_LOCK = threading.Lock()
_WRITES = [0]


def enabled() -> bool:
    """Unless ``DPVIZ_FRAMES_FETCH=0``."""
    return os.environ.get("DPVIZ_FRAMES_FETCH", "1").strip() != "0"


@functools.cache
def folder() -> Path | None:
    """``static/frames`` beside the app's entry script, made if need be, when Streamlit serves the
    static folder and it can be written; else None (the page then asks by runs alone)."""
    static = served() if enabled() else None
    if static is None:
        return None
    out = static / "frames"
    try:
        out.mkdir(exist_ok=True)
        probe = out / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        log.warning("frames are not published for the browser to fetch (%s): the page asks by runs alone", err)
        return None
    return out


@functools.cache
def _secret() -> bytes:
    """32 random bytes kept in the cache directory (the same for every process that shares it)."""
    path = cache_dir() / SECRET_FILE
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{SECRET_FILE}.{os.getpid()}.{threading.get_ident()}")
    tmp.write_bytes(os.urandom(32))
    os.chmod(tmp, 0o600)
    try:
        os.link(tmp, path)  # the first process's secret wins; the others read it
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    return path.read_bytes()


def name(key: str) -> str:
    """The file name of frames ``key``: a keyed hash, not guessable from the settings."""
    return hmac.new(_secret(), key.encode(), hashlib.sha256).hexdigest()[:32] + ".bin"


def news_enabled() -> bool:
    """Unless ``DPVIZ_FRAMES_NEWS=0``."""
    return os.environ.get("DPVIZ_FRAMES_NEWS", "1").strip() != "0"


def news_name(token: str) -> str:
    """The file name of the news of the session whose asker token is ``token``."""
    return name("news\n" + token)


def addresses(key: str, near_key: str | None, token: str | None = None) -> dict[str, str] | None:
    """Where the browser fetches frames ``key``, their nearest part ``near_key`` and the news of
    the session with asker token ``token`` (relative to the app's address), or None when frames
    are not published here."""
    where = folder()
    if where is None:
        return None
    out = {"whole": f"{ROUTE}/{name(key)}"}
    _reserve(where / name(key))
    if near_key is not None:
        out["near"] = f"{ROUTE}/{name(near_key)}"
        _reserve(where / name(near_key))
    if token is not None and news_enabled():
        out["news"] = f"{ROUTE}/{news_name(token)}"
        _start_news(where / news_name(token))
    return out


def _reserve(path: Path) -> None:
    """An empty file at ``path``, if no file is there (created exclusively: frames another process
    wrote meanwhile are never emptied), which the frames' bytes replace when they are published
    (:func:`_write` renames over it): the tab's asks before then find it empty, not a 404."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except FileExistsError:
        pass
    except OSError as err:  # (a full disk: the tab's ask is a 404, as before)
        log.debug("no empty file for %s: %s", path.name, err)


def _there(path: Path) -> bool:
    """Whether frames are at ``path``: a file with bytes (an empty one is :func:`_reserve`'s)."""
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _start_news(path: Path) -> None:
    """A session's news file ``path``, written empty (``[]``) if it is not there: the tab reads it
    from the moment a pending set names it, and every read before the first set was told was a 404
    in the browser's console (39 on a budget page's first view)."""
    if path.exists():
        return
    with _LOCK:  # (tell writes under it: an empty list never replaces a told one)
        if not path.exists():
            _write(path, b"[]")


def _news():
    return caches.memo("web.news")


def tell(tokens, key: str) -> None:
    """Add the file of frames ``key`` (published) to the news of the sessions ``tokens``
    (:func:`webui.frames_queue.sessions`: those that asked for it)."""
    where = folder()
    if where is None or not news_enabled():
        return
    published = name(key)
    for token in tokens:  # per session, its newest names (the least recently told sessions forgotten)
        names = _news().get(token, lambda: collections.deque(maxlen=NEWS_KEPT))
        with _LOCK:
            if published not in names:
                names.append(published)
            text = json.dumps(list(names)).encode()
            _write(where / news_name(token), text)  # under the lock: the newest list is the last written


def publish(key: str, blob: bytes) -> bool:
    """Write frames ``key``'s bytes where the browser fetches them (whole, then renamed into
    place: a request never reads half a file); False when not published (logged once on a failure)."""
    where = folder()
    if where is None:
        return False
    path = where / name(key)
    if _there(path):
        return True
    if not _write(path, blob):
        return False
    with _LOCK:
        _WRITES[0] += 1
        sweep = _WRITES[0] % SWEEP_EVERY == 0
    if sweep:
        _sweep(where)
    return True


_SOON: dict[str, None] = {}  # keys handed to the publishing thread and not yet written
_SOON_POOL: list = []


def published(key: str) -> bool:
    """Whether frames ``key``'s file is where the browser fetches it."""
    where = folder()
    return where is not None and _there(where / name(key))


def publish_soon(key: str, read) -> None:
    """Publish frames ``key`` (:func:`publish`), their bytes from ``read()`` (the disk cache; None
    when they are not there), in a thread of this module's, not the caller's: a page's run names
    the sets one key step ahead of every chart (16 on the ADePT page), and reading each from the
    disk cache in the run would hold its answer. Nothing when the file is there or on its way."""
    if folder() is None or key in _SOON or published(key):
        return
    with _LOCK:
        if key in _SOON:
            return
        _SOON[key] = None
        if not _SOON_POOL:
            from concurrent.futures import ThreadPoolExecutor

            _SOON_POOL.append(ThreadPoolExecutor(1, thread_name_prefix="dpviz-publish"))

    def job() -> None:
        try:
            blob = read()
            if blob is not None:
                publish(key, blob)
        except Exception as err:  # noqa: BLE001 - a file not published: the page's run brings the set
            log.warning("frames %s not published for the browser to fetch: %s", key, err)
        finally:
            _SOON.pop(key, None)

    _SOON_POOL[0].submit(job)


def _write(path: Path, blob: bytes) -> bool:
    """``blob`` written whole to a file beside ``path``, then renamed into place (a request never
    reads half a file); False on a failure (logged)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        tmp.write_bytes(blob)
        os.replace(tmp, path)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        log.warning("frames not published for the browser to fetch: %s", err)
        return False
    return True


def _sweep(where: Path, keep: int = MAX_FILES) -> None:
    """Delete the oldest files beyond ``keep``."""
    entries = []
    for entry in os.scandir(where):
        try:
            if entry.name.endswith(".bin"):
                entries.append((entry.stat().st_mtime, entry.path))
        except OSError:  # another process's sweep took it
            pass
    entries.sort(reverse=True)
    for _, path in entries[keep:]:
        try:
            os.unlink(path)
        except OSError:
            pass
