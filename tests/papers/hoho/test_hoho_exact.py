"""The exact HoHo statistics against independent routes: binomial convolutions, the simulated
attack (within its sampling error) and the closed-form reconstruction."""

import numpy as np
import pytest
from scipy import stats

from dpviz.papers.hoho import exact as H
from dpviz.papers.hoho import ome


@pytest.fixture(scope="module")
def corpus():
    from dpviz.papers.hoho.pipeline import corpus_vectors

    return corpus_vectors("movie-reviews")[0]


@pytest.mark.parametrize(
    "counts, agree",
    [
        ([30, 5, 7, 100], [0.7, 0.2, 0.3, 0.8]),
        ([0, 0, 0, 142], [0.5, 0.5, 0.5, 0.5]),  # one class only; p = 1/2 puts a zero at z = -1
        ([71, 0, 0, 71], [1.0, 0.1, 0.0, 0.9]),  # a certain class
        ([1, 1, 1, 0], [0.5, 0.5, 0.5, 0.5]),  # odd support length
    ],
)
def test_score_pmf_equals_a_convolution_of_binomials(counts, agree):
    positions = sum(counts)
    got = H.score_pmfs(np.array([counts]), np.array(agree), positions)[0]
    ref = np.array([1.0])
    for n, p in zip(counts, agree):
        ref = np.convolve(ref, stats.binom.pmf(np.arange(n + 1), n, p))
    assert np.allclose(got, np.pad(ref, (0, positions + 1 - len(ref))), atol=1e-13)


def _simulated_auc(X, mechanism, lam, eps, targets, rng, repeats=100):
    """The paper's procedure, as dpviz.papers.hoho.ome.attack_corpus runs it, with given targets."""
    if mechanism == "ome":
        full, perturb, sl = ome.encode(X), (lambda b: ome.perturb_ome(b, lam, eps, rng)), slice(0, None, 2)
    else:
        full = ome.unary_encode(X, ome.UNARY_BINS, float(X.min()), float(X.max()) + 1e-9)
        p, q = ome.unary_probabilities(mechanism, eps, X.shape[1])
        perturb, sl = (lambda b: ome.perturb_unary(b, p, q, rng)), slice(None)
    one = perturb(full)
    aucs = []
    for t in targets:
        pos = (perturb(np.repeat(full[t : t + 1], repeats, axis=0))[:, sl] == full[t, sl]).sum(1)
        others = np.delete(np.arange(len(X)), t)
        aucs.append(ome.auc(pos, (one[others][:, sl] == full[t, sl]).sum(1)))
    return np.mean(aucs), (one[:, sl] == full[:, sl]).mean(1).mean()


@pytest.mark.parametrize(
    "mechanism, lam, eps",
    [("ome", 1.2, 1.0), ("ome", 1.05, 0.001), ("ome", 10.0, 1.0), ("oue", 1.0, 5.0), ("sue", 1.0, 20.0)],
)
def test_exact_attack_matches_the_simulated_attack(corpus, mechanism, lam, eps):
    """The simulated mean AUC over the same targets is an unbiased estimate of the exact one;
    12 independent runs give its standard error."""
    targets = H.choose_targets(len(corpus), 0.05, 0)
    exact = H.exact_attack(H.attack_counts(corpus, mechanism, targets), lam, eps)
    rng = np.random.default_rng(11)
    sims = np.array([_simulated_auc(corpus, mechanism, lam, eps, targets, rng) for _ in range(12)])
    se_auc = max(sims[:, 0].std(ddof=1) / np.sqrt(len(sims)), 1e-6)
    se_rec = max(sims[:, 1].std(ddof=1) / np.sqrt(len(sims)), 1e-6)
    assert abs(sims[:, 0].mean() - exact["auc"].mean()) < 4.5 * se_auc
    assert abs(sims[:, 1].mean() - exact["reconstruction"].mean()) < 4.5 * se_rec


def test_reconstruction_equals_the_closed_form(corpus):
    counts = H.attack_counts(corpus, "ome", H.choose_targets(len(corpus), 0.1, 0))
    r = H.exact_attack(counts, 10.0, 1.0)
    bits = ome.encode(corpus)
    expected = [ome.expected_reconstruction(bits[i : i + 1], 10.0, 1.0) for i in range(len(corpus))]
    assert np.allclose(r["reconstruction"], expected)


@pytest.mark.parametrize("lam", [1.3, 2.0])
def test_roc_curve_runs_from_one_to_zero_and_its_area_is_the_auc(corpus, lam):
    """For one target, the trapezoid area under the exact ROC curve is P[X > Y] + P[X = Y]/2."""
    counts = H.attack_counts(corpus, "ome", np.array([17]))
    r = H.exact_attack(counts, lam, 1.0)
    assert r["tpr"][0] == pytest.approx(1.0) and r["fpr"][0] == pytest.approx(1.0)
    assert np.all(np.diff(r["tpr"]) <= 1e-12) and np.all(np.diff(r["fpr"]) <= 1e-12)
    fpr, tpr = np.r_[r["fpr"], 0.0], np.r_[r["tpr"], 0.0]
    assert -np.trapezoid(tpr, fpr) == pytest.approx(r["auc"][0], abs=1e-9)


def test_edge_cases(corpus):
    # lambda = 1 and a tiny epsilon: both score distributions are Bin(P, ~1/2): chance
    counts = H.attack_counts(corpus, "ome", H.choose_targets(len(corpus), 0.1, 0))
    assert H.exact_attack(counts, 1.0, 1e-4)["auc"].mean() == pytest.approx(0.5, abs=1e-3)
    # every sentence a target
    allc = H.attack_counts(corpus[:12], "ome", H.choose_targets(12, 1.0, 0))
    assert len(allc.targets) == 12 and allc.pair_counts.shape == (12, 11, 4)
    assert (allc.pair_counts.sum(-1) == allc.positions).all()
    with pytest.raises(ValueError, match="at least two"):
        H.attack_counts(corpus[:1], "ome", np.array([0]))
    with pytest.raises(ValueError, match="share"):
        H.choose_targets(10, 0.0, 0)


def test_the_live_roc_is_drawn_in_threshold_order_whatever_the_ties():
    """Many thresholds share FPR = 1 (and, at large λ, rounding noise near 0): the curve is drawn
    in threshold order, so a last-bit change in a tied FPR (another process's rounding) draws the
    same curve."""
    from dpviz import registry
    from dpviz.frames import _plain
    from dpviz.params import validate

    spec = registry.get("hoho-live")
    v, errors = validate(spec.params, {"targets": "0.05", "lambda_": "1400"})
    assert not errors
    df = spec.table(v)
    assert (df.fpr == 1.0).sum() > 1  # ties are there
    roc = {k: _plain(t) for k, t in spec.figure_dict(df, v)["data"][0].items()}
    assert list(roc["customdata"]) == sorted(df.threshold, reverse=True)
    assert np.all(np.diff(np.asarray(roc["x"])) >= -1e-15) and np.all(np.diff(np.asarray(roc["y"])) >= -1e-15)
    nudged = df.copy()
    ties = np.flatnonzero(nudged.fpr.to_numpy() == 1.0)
    nudged.loc[ties[::2], "fpr"] = np.nextafter(1.0, 0.0)  # one ulp below, every other tie
    again = {k: _plain(t) for k, t in spec.figure_dict(nudged, v)["data"][0].items()}
    assert list(again["customdata"]) == list(roc["customdata"])
    assert np.array_equal(np.asarray(again["y"]), np.asarray(roc["y"]))


def _binomial_sum_pmf(counts, agree, positions):
    """A sum of independent binomials' pmf by convolving their pmfs (scipy's), padded to 0..positions."""
    pmf = np.array([1.0])
    for n, p in zip(counts, agree):
        pmf = np.convolve(pmf, stats.binom.pmf(np.arange(n + 1), n, p))
    return np.pad(pmf, (0, positions + 1 - len(pmf)))


@pytest.mark.parametrize(
    "mechanism, lam, eps",
    # OME: K = 276 scores (even: the transforms' Nyquist term counts once; it matters where p is far
    # from 1/2, λ = 100), an AUC far from 1/2 and 1 (λ = 1.5); SUE and OUE: K = 801 (odd)
    [("ome", 1.5, 0.3), ("ome", 100.0, 0.01), ("ome", 1.0, 0.05), ("sue", 1.0, 2.0), ("oue", 1.0, 0.3)],
)
def test_the_attack_equals_its_pair_by_pair_sums_over_convolved_binomials(corpus, mechanism, lam, eps):
    """exact_attack and exact_auc (which take the AUC's dot products between Fourier transforms and
    the ROC's false positives from one weighted mean pmf) against the definitions, pair by pair: each
    score's pmf by convolving binomials, AUC = mean_j sum_y P[Y_j = y] (P[X > y] + P[X = y]/2),
    FPR(θ) = mean over targets and pairs of P[Y_j >= θ], TPR(θ) = mean over targets of P[X >= θ]."""
    counts = H.attack_counts(corpus, mechanism, np.array([3, 17, 40]))
    p, q = H.flip_probabilities(mechanism, lam, eps, counts.r)
    agree = (p, q, 1 - p, 1 - q)
    positions = counts.positions
    aucs, fprs, tprs = [], [], []
    for t, ones in enumerate(counts.target_ones):
        px = _binomial_sum_pmf((ones, 0, 0, positions - ones), agree, positions)
        above = np.cumsum(px[::-1])[::-1] - px  # P[X > y]
        pys = np.array([_binomial_sum_pmf(c, agree, positions) for c in counts.pair_counts[t]])
        aucs.append(np.mean(pys @ (above + 0.5 * px)))
        fprs.append(np.cumsum(pys[:, ::-1], axis=1)[:, ::-1].mean(axis=0))
        tprs.append(np.cumsum(px[::-1])[::-1])
    got = H.exact_attack(counts, lam, eps)
    assert np.allclose(got["auc"], aucs, rtol=0, atol=1e-13)
    assert np.allclose(H.exact_auc(counts, lam, eps), aucs, rtol=0, atol=1e-13)
    assert np.allclose(got["fpr"], np.mean(fprs, axis=0), rtol=0, atol=1e-13)
    assert np.allclose(got["tpr"], np.mean(tprs, axis=0), rtol=0, atol=1e-13)


def _auc_by_definition(counts, mechanism, lam, eps):
    """Each target's AUC pair by pair: mean_j sum_y P[Y_j = y] (P[X > y] + P[X = y]/2), every pmf
    by convolving binomials."""
    p, q = H.flip_probabilities(mechanism, lam, eps, counts.r)
    agree, positions = (p, q, 1 - p, 1 - q), counts.positions
    want = []
    for t, ones in enumerate(counts.target_ones):
        px = _binomial_sum_pmf((ones, 0, 0, positions - ones), agree, positions)
        above = np.cumsum(px[::-1])[::-1] - px
        pys = np.array([_binomial_sum_pmf(c, agree, positions) for c in counts.pair_counts[t]])
        want.append(np.mean(pys @ (above + 0.5 * px)))
    return want


@pytest.mark.parametrize(
    "rows, targets",
    [([0, 1], [0]), ([0, 1], [0, 1]), ([0, 0, 1, 1, 2, 0], [0, 2, 4]), ([5, 5, 5], [1])],
    ids=["two sentences", "both targets", "repeated sentences", "all the same"],
)
def test_the_attack_on_small_and_repeated_corpora_equals_its_pair_by_pair_sums(corpus, rows, targets):
    """Two sentences, every sentence a target, sentences repeated (a target's pairs of halves
    counted more than once; a target's copy among its pairs) and a corpus of one sentence thrice:
    the AUC against the definition, pair by pair over convolved binomials."""
    counts = H.attack_counts(corpus[rows], "ome", np.array(targets))
    if len(set(rows)) < len(rows) - 1:  # (repeated sentences: some pair of halves stands for several)
        assert counts.sum_plan().weight.max() > 1
    for lam, eps in ((1.5, 0.3), (100.0, 2.0)):
        want = _auc_by_definition(counts, "ome", lam, eps)
        assert np.allclose(H.exact_auc(counts, lam, eps), want, rtol=0, atol=1e-13)
        assert np.allclose(H.exact_attack(counts, lam, eps)["auc"], want, rtol=0, atol=1e-13)


@pytest.mark.parametrize(
    "mechanism, lam, epsilons",
    [
        # OME keeps its p along ε, so the compiled pass keeps classes 11's and 10's powers from one
        # setting to the next; the settings go up, repeat (a tie) and come back down
        ("ome", 2.0, (0.05, 0.3, 0.3, 4.0, 0.3)),
        ("ome", 1.0, (0.01, 100.0)),  # q near 1/2 (a zero factor at z = -1, K = 276) and near 0
        ("sue", 1.0, (0.3, 2.0)),  # every class's probability moves (K = 801, odd)
    ],
)
def test_the_auc_at_many_settings_at_once_is_each_settings_own(corpus, mechanism, lam, epsilons):
    """exact_auc_many (one compiled pass over the settings, keeping a class's powers where its
    probability did not move) gives, to the last bit, what one setting at a time gives, and both
    equal the definition pair by pair at every setting of the pass, not only the first."""
    counts = H.attack_counts(corpus, mechanism, np.array([3, 17, 40]))
    many = H.exact_auc_many(counts, lam, epsilons)
    assert many.shape == (len(epsilons), 3)
    for row, eps in zip(many, epsilons):
        assert np.array_equal(row, H.exact_auc(counts, lam, eps))
        assert np.allclose(row, _auc_by_definition(counts, mechanism, lam, eps), rtol=0, atol=1e-13)
    assert H.exact_auc_many(counts, lam, ()).shape == (0, 3)


def _numpy_transforms(pair_counts, target_ones, agree, positions):
    """S_t and X_t by NumPy: every distinct count vector's transform as the product of its four rows
    of class_tables (complex exponentials, classes in order), gathered and summed per target."""
    uniq, which = H._unique_rows(pair_counts)
    values = H.score_transforms(uniq, agree, positions)
    zeros = np.zeros_like(target_ones)
    own = np.stack([target_ones, zeros, zeros, positions - target_ones], axis=-1)
    return values[which].sum(axis=1), H.score_transforms(own, agree, positions)


def _compiled_transforms(pair_counts, target_ones, agree, positions):
    from dpviz.papers.hoho import kernels

    plan = H.sum_plan(pair_counts, target_ones, positions)
    k = positions + 1
    z = np.exp(-2j * np.pi * np.arange(k // 2 + 1) / k)
    return kernels.attack_transforms(
        np.asarray(agree, dtype=float), z, plan.counts, plan.starts, plan.first, plan.second,
        plan.halves, plan.weight, plan.bounds, plan.own,
    )  # fmt: skip


@pytest.mark.parametrize(
    "mechanism, agree",
    [
        ("ome", (0.9, 0.2, 0.1, 0.8)),
        ("ome", (0.5, 0.5, 0.5, 0.5)),  # a zero factor at z = -1 (K = 276, even), every class
        ("ome", (1.0, 0.0, 0.0, 1.0)),  # certain agreement: f = z, powers on the unit circle
        ("sue", (0.73, 0.27, 0.27, 0.73)),  # K = 801 (odd), pairs on a handful of count vectors
    ],
)
def test_the_compiled_transforms_equal_numpys_exponentials(corpus, mechanism, agree):
    """kernels.attack_transforms (powers by repeated products, each pair as two halves, summed per
    target) against NumPy's complex exponentials gathered pair by pair, on the real corpus."""
    counts = H.attack_counts(corpus, mechanism, np.array([0, 3, 17, 40, 41]))
    agree = np.array(agree)
    want_s, want_x = _numpy_transforms(counts.pair_counts, counts.target_ones, agree, counts.positions)
    got_s, got_x = _compiled_transforms(counts.pair_counts, counts.target_ones, agree, counts.positions)
    pairs = counts.pair_counts.shape[1]
    assert got_s.shape == want_s.shape and got_x.shape == want_x.shape
    # each pair's transform is at most 1 in modulus and a power's rounding grows with its count
    # (either route's: against an extended-precision product on the same roots of unity, NumPy's
    # sums were off by 0.9-6.8·10⁻¹², the compiled ones by 0.9-6.9·10⁻¹²), so a sum of N − 1 of
    # them is good to a few (N − 1)·positions·10⁻¹⁶
    assert np.abs(got_s - want_s).max() <= 4e-16 * pairs * counts.positions
    assert np.abs(got_x - want_x).max() <= 1e-13


@pytest.mark.parametrize(
    "pair_counts, target_ones, positions",
    [
        ([[[0, 0, 0, 5]]], [0], 5),  # one target, one pair, one class
        ([[[2, 1, 0, 0], [3, 0, 0, 0]], [[0, 0, 3, 0], [1, 0, 2, 0]]], [3, 0], 3),  # shared levels, all-zero classes
        ([[[7, 0, 0, 0]]], [7], 7),  # K = 8: the Nyquist term
    ],
)
def test_the_compiled_transforms_on_small_cases(pair_counts, target_ones, positions):
    """Edge cases of the plan: a count of 0 (f⁰ = 1), counts shared by the pairs and the targets,
    a count equal to the positions; against NumPy at random agreements."""
    pair_counts, target_ones = np.array(pair_counts), np.array(target_ones)
    for seed in range(3):
        agree = np.random.default_rng(seed).uniform(size=4)
        want_s, want_x = _numpy_transforms(pair_counts, target_ones, agree, positions)
        got_s, got_x = _compiled_transforms(pair_counts, target_ones, agree, positions)
        assert np.allclose(got_s, want_s, rtol=0, atol=1e-14)
        assert np.allclose(got_x, want_x, rtol=0, atol=1e-14)


def test_the_sum_plan_names_each_pairs_counts(corpus):
    """The plan's rows hold each pair's own counts: a pair's two halves give back its four counts,
    and a target's own rows its ones and zeros."""
    counts = H.attack_counts(corpus, "ome", np.array([3, 17, 40]))
    plan = counts.sum_plan()
    got = np.concatenate(
        [plan.counts[plan.first[plan.halves[:, 0]]], plan.counts[plan.second[plan.halves[:, 1]]]], axis=-1
    )
    for t in range(len(counts.targets)):  # each target's sentences' counts, once each with their number
        at = slice(plan.bounds[t], plan.bounds[t + 1])
        want, times = np.unique(counts.pair_counts[t], axis=0, return_counts=True)
        assert sorted(zip(map(tuple, got[at]), plan.weight[at])) == sorted(zip(map(tuple, want), times))
        assert np.all(np.diff(plan.halves[at, 0]) >= 0)  # in runs of one first half
    assert plan.bounds[0] == 0 and plan.bounds[-1] == len(plan.halves)
    assert np.array_equal(plan.counts[plan.own[:, 0]], counts.target_ones)
    assert np.array_equal(plan.counts[plan.own[:, 1]], counts.positions - counts.target_ones)
    for c in range(4):  # each class's rows in its own range, sorted
        part = plan.counts[plan.starts[c] : plan.starts[c + 1]]
        assert np.all(np.diff(part) > 0)
