"""The metric-DP page's prepared state, apart from its figures: the embeddings checked and
loaded, each sampled word's draws as envelopes (once per setting, shared by every figure,
session and server process), the per-word statistics at any ε, a sweep's table, the
nearest-neighbour distances and the try-it box's rewrites. Every cache is declared in
:mod:`dpviz.caches`; figures.py holds only specs and renders and reads its tables from here.

Caching, deepest first: the disk table ``metric-word-state`` (shared by the server's processes),
the process cache ``metric.states`` (the same word states as objects, shared by every figure of
the page), then each figure's table and chart in the page's view cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from dpviz import caches, uploads
from dpviz import tables as table_cache
from dpviz.data import embeddings as E
from dpviz.data.embeddings import resolve
from dpviz.errors import InputError
from dpviz.papers.metric import mechanism as mdp
from dpviz.papers.metric import neighbours
from dpviz.papers.metric import sweep as S
from dpviz.papers.metric.params import WORD_PARAMS
from dpviz.params import format_value, text_items
from dpviz.registry import hosted_mode


def _embedding_key(name: str) -> str:
    """Cache key part for an embedding: its name, plus size and mtime for files."""
    if name in E.NAMED:
        return name
    emb = resolve(name)
    return f"{emb.name}:{emb.size}:{emb.dim}:{float(np.asarray(emb.vectors[:50]).sum()):.6g}"


def word_ids(emb: E.Embedding, v: Mapping[str, Any]) -> np.ndarray:
    """The vocabulary ids of the page's words: the typed word list (each must be in the
    vocabulary; InputError naming the missing ones) or a seeded sample of ``words`` from the top ``vocab``."""
    if v["word_list"].strip():
        words = text_items(v["word_list"])
        if len(words) > 200:
            raise InputError(f"At most 200 explicit words, got {len(words)}.")
        unknown = [w for w in words if w not in emb.index]
        if unknown:
            raise InputError(
                f"Not in the {emb.name} vocabulary: {', '.join(unknown[:10])}. Use words it has, or sample words "
                "instead."
            )
        return np.array(sorted({emb.index[w] for w in words}))
    return mdp.sample_word_ids(emb, v["words"], v["vocab"], v["seed"])


STATE_PARAMS = ("words", "word_list", "vocab", "samples", "seed")
"""What a word's draws depend on; ε (listed or on the slider) and η only evaluate them."""
_STATES = caches.memo("metric.states")


def check_embeddings(v: Mapping[str, Any]) -> bool:
    """Check the embedding and the comparison (if any) without loading either, so that a bad
    choice is said before minutes are spent on the other; returns whether a comparison is drawn."""
    compare = v.get("compare", "none").strip()
    E.check_source(v["embedding"])
    if compare not in ("", "none") and compare != v["embedding"].strip():
        E.check_source(compare)
        return True
    return False


def word_state(v: Mapping[str, Any], which: str = "embedding", progress=None) -> dict[int, mdp.Envelopes]:
    """The ε-free state of one embedding's sampled words: every draw's output at every ε
    (mechanism.Envelopes), computed once per (embedding, words, draws, seed) in this process.
    Before computing, every embedding the figure uses is checked (not on a memo hit: the slider
    path reads no file)."""
    name = v[which]
    canonical = {p.name: format_value(p, v[p.name]) for p in WORD_PARAMS if p.name in STATE_PARAMS}
    key = (_embedding_key(name),) + tuple(canonical.values())

    def compute() -> dict[int, mdp.Envelopes]:
        check_embeddings(v)
        emb = resolve(name, progress)

        def envelopes() -> pd.DataFrame:
            return mdp.envelopes_table(mdp.word_envelopes(emb, word_ids(emb, v), v["samples"], v["seed"], progress))

        # on disk too: every server process reads what one of them computed (and waits for it)
        shared = table_cache.cached_table("metric-word-state", dict(canonical, embedding=key[0]), envelopes)
        return mdp.envelopes_from_table(shared)

    return _STATES.get(key, compute)


def word_table(v: Mapping[str, Any], which: str = "embedding", progress=None, epsilons=None) -> pd.DataFrame:
    """The per-word, per-epsilon statistics (mdp.STAT_COLUMNS) for one embedding, evaluated from
    :func:`word_state` at ``epsilons`` (default: the listed ones) in milliseconds."""
    state = word_state(v, which, progress)
    df = mdp.stats_at(resolve(v[which]), state, v["epsilons"] if epsilons is None else epsilons, v["eta"])
    return df.assign(embedding=v[which])


def sweep_table(directory: str) -> pd.DataFrame:
    """A finished (or partly finished) sweep, labelled 'sweep: EMBEDDING (N words)'."""
    import json
    from pathlib import Path

    if hosted_mode():
        raise InputError("Sweep directories are not opened on the hosted demo; run dpviz locally to view a sweep.")
    df = S.load(directory)
    manifest = json.loads((Path(directory) / S.MANIFEST).read_text())
    label = f"sweep: {manifest['parameters']['embedding']} ({df.word_id.nunique():,} words)"
    return df.drop(columns=["word_id"]).assign(embedding=label)


def tables(v, progress=None) -> pd.DataFrame:
    """The main embedding's table, the comparison's when one is chosen, and a sweep's when the
    figure takes a sweep directory and one is given. Every input is checked before any is computed
    (a bad comparison file is said at once, not after the main embedding's minutes)."""
    compare = check_embeddings(v)
    sweep = None
    if v.get("sweep_dir", "").strip():
        sw = sweep_table(v["sweep_dir"].strip())
        sweep = sw[sw.epsilon.isin(v["epsilons"])] if "hist_epsilons" in v else sw
    parts = [word_table(v, "embedding", progress)]
    if compare:
        parts.append(word_table(v, "compare", progress))
    if sweep is not None:
        parts.append(sweep)
    return pd.concat(parts, ignore_index=True)


def tables_along(v, epsilons) -> list[pd.DataFrame]:
    """:func:`tables` with ``epsilons=[ε]`` at each ε of ``epsilons`` (a slider's grid), from one
    ``stats_at`` call per embedding over all of them: each ε's rows are those of a call with it alone
    (word by word), to the last bit. With a sweep directory, position by position (its rows are the
    sweep's own)."""
    if v.get("sweep_dir", "").strip():
        return [tables(dict(v, epsilons=[e])) for e in epsilons]
    compare = check_embeddings(v)
    parts = [word_table(v, "embedding", epsilons=epsilons)]
    if compare:
        parts.append(word_table(v, "compare", epsilons=epsilons))
    split = [mdp.stats_by_epsilon(part, len(epsilons)) for part in parts]
    if len(split) == 1:  # (each ε's table already has its own fresh index: nothing to put together)
        return split[0]
    return [pd.concat(at_one, ignore_index=True) for at_one in zip(*split)]


# nearest-neighbour distances (the paper's Figure 2) ------------------------------------------------

_KNN = caches.memo("metric.knn")
K_MAX = 1000


def knn_distances(v, progress=None) -> np.ndarray:
    """(words, K_MAX) distances from sampled words to their k-th nearest other word (exact, faiss;
    fewer columns where the vocabulary has fewer other words, none for a vocabulary of one word).
    Kept on disk too, as one column in row-major order (every server process reads what `dpviz
    build` or another process searched: 0.4-0.5 s of faiss on the default setting); words with no
    other word are kept as one NaN each, so that their number comes back."""
    key = (_embedding_key(v["embedding"]), v["knn_words"], v["vocab"], v["seed"])

    def search() -> pd.DataFrame:
        emb = resolve(v["embedding"], progress)
        ids = mdp.sample_word_ids(emb, min(v["knn_words"], min(v["vocab"], emb.size)), v["vocab"], v["seed"])
        d = neighbours.kth_neighbour_distances(emb.vectors, ids, K_MAX)
        if d.ndim == 2 and d.shape[1] == 0:  # no other word: a NaN a word keeps their number
            d = np.full((d.shape[0], 1), np.nan, dtype=np.float32)
        rows = np.repeat(np.arange(d.shape[0], dtype=np.int64), d.shape[1] if d.ndim == 2 else 0)
        return pd.DataFrame({"row": rows, "distance": d.ravel().astype(np.float32)})

    def read() -> np.ndarray:
        canonical = {"embedding": key[0], "knn_words": str(key[1]), "vocab": str(key[2]), "seed": str(key[3])}
        df = table_cache.cached_table("metric-knn-distances", canonical, search)
        flat = df["distance"].to_numpy()
        words = int(df["row"].iloc[-1]) + 1 if len(df) else 0
        if not words:
            return np.empty((0, 0), dtype=np.float32)
        d = flat.reshape(words, -1)
        return d[:, :0] if d.shape[1] == 1 and np.isnan(d).all() else d

    return _KNN.get(key, read)


# the try-it box ----------------------------------------------------------------------------------

_TRY = caches.memo("metric.try")
_TRY_AT = caches.memo("metric.try_at")
"""The try-it box's answers at one ε: a class dragging ε asks the same few dozen slider positions."""
TRY_DRAWS = 300


def try_it(emb: E.Embedding, v: Mapping[str, Any]) -> tuple[list[str], list[list[str]], list[str], pd.DataFrame | None]:
    """The "try it" box at the slider's ε: the sentence's tokens, ``rewrites`` privatised
    versions, each token's status, and each known word's N_w, S_w and mean cosine over
    TRY_DRAWS releases. The draws (their outputs at every ε) are prepared once per sentence and
    shared by the process's sessions; a new ε is evaluated from them. Raises ValueError on a
    bad sentence."""
    tokens = tuple(mdp.tokenize(v["sentence"]))
    copies, seed = v["rewrites"], v["seed"]

    key = (_embedding_key(v["embedding"]), tokens, copies, seed)

    def prepare():
        return _try_state(emb, key)

    def at_epsilon():
        envs, status, words = _TRY.get(key, prepare)
        rows = mdp.rewrite_at(emb, tokens, envs, v["epsilon"], copies)
        per_word = mdp.stats_at(emb, words, [v["epsilon"]], 0.05) if words else None
        return list(tokens), rows, status, per_word

    return _TRY_AT.get(key + (float(v["epsilon"]),), at_epsilon)


def _try_state(emb: E.Embedding, key: tuple) -> tuple[list[mdp.Envelopes | None], list[str], dict | None]:
    """The try-it box's ε-free state for ``key`` (embedding, tokens, rewrites, seed): each token's
    rewrite envelopes (None for an unknown word), each token's status, and the known words'
    TRY_DRAWS envelopes (None when no word is known). Both sets of envelopes are kept on disk as
    tables (:func:`mechanism.envelopes_table`, which :func:`mechanism.envelopes_from_table` inverts
    exactly): `dpviz build` computes the default sentence's once, and every server process and
    frames worker reads them, where each drew them anew (1.4 s of one core)."""
    embedding, tokens, copies, seed = key
    canonical = {"embedding": embedding, "tokens": "\x1f".join(tokens), "rewrites": str(copies), "seed": str(seed)}

    def rewrites() -> pd.DataFrame:
        envs, _ = mdp.rewrite_envelopes(emb, tokens, copies, seed)
        return mdp.envelopes_table({i: env for i, env in enumerate(envs) if env is not None})

    by_token = mdp.envelopes_from_table(table_cache.cached_table("metric-try-rewrites", canonical, rewrites))
    envs = [by_token.get(i) for i in range(len(tokens))]
    status = mdp.token_status(emb, tokens)
    known = sorted({emb.index[t] for t in tokens if t in emb.index})
    if not known:
        return envs, status, None

    def words() -> pd.DataFrame:
        return mdp.envelopes_table(mdp.word_envelopes(emb, known, TRY_DRAWS, seed))

    words_canonical = {"embedding": embedding, "words": " ".join(map(str, known)), "seed": str(seed)}
    return envs, status, mdp.envelopes_from_table(table_cache.cached_table("metric-try-words", words_canonical, words))


@dataclass(frozen=True)
class TryAnswer:
    """The try-it box at one ε: the tokens, the rewrites, each token's status, each known word's
    N_w, S_w and mean cosine over TRY_DRAWS releases (None when no word is known)."""

    tokens: list[str]
    rewrites: list[list[str]]
    status: list[str]
    per_word: pd.DataFrame | None
    epsilon: float
    draws: int


def try_it_panel(values: Mapping[str, Any], progress=None) -> TryAnswer:
    """The try-it panel's compute (declared in the paper): :func:`try_it` on the page's embedding."""
    emb = resolve(values["embedding"], progress)
    tokens, rows, status, per_word = try_it(emb, values)
    return TryAnswer(tokens, rows, status, per_word, float(values["epsilon"]), TRY_DRAWS)


def describe_embedding_upload(ref: str) -> str:
    """The check of an uploaded embedding file (declared on the embedding parameter): it is read
    (kept within the memory budget) and described; EmbeddingError says why it cannot be used."""
    emb = E.get(str(uploads.existing_upload(ref)))
    return f"Read {emb.size:,} words × {emb.dim} dimensions. 'Use this file' draws every chart with it."


@dataclass(frozen=True)
class Loaded:
    """The page's embedding, loaded: its name, where it comes from, a note, and whether the
    locally trained fastText is in use (its caption says what it is)."""

    name: str
    source: str
    note: str
    fasttext_local: bool


def load_panel(values: Mapping[str, Any], progress=None) -> Loaded:
    """The metric section's lead panel (declared in the paper): the chosen embedding loaded (kept
    within the memory budget), or the InputError saying why it cannot be."""
    emb = resolve(values["embedding"], progress)
    local = "fasttext-local" in (values["compare"].strip(), values["embedding"].strip())
    return Loaded(emb.name, emb.source, emb.note, local)
