"""OME and the HoHo attack: encoding, probabilities, attack statistics, exact bound."""

import itertools

import numpy as np
import pytest

from dpviz.errors import InputError
from dpviz.papers.hoho import ome


def reference_bits(x: float) -> str:
    """The reference code's float_to_binary (m = 6, n = 5), as a string."""
    return "{:0{}b}".format(round(x * 2**5), 11).replace("-", "1")


@pytest.mark.parametrize(
    "x",
    list(np.random.default_rng(0).uniform(-31.9, 63.9, 300)) + [0.0, 0.015625, -0.015625, 0.03125 / 2, 32.0, -31.96875],
)
def test_encoding_matches_the_reference_formatter(x):
    assert "".join(map(str, ome.encode_values(x))) == reference_bits(float(x))


def test_round_trip_negative_values_and_the_overflow_quirk():
    x = np.arange(-1023, 1024) / 32
    assert np.array_equal(ome.decode_values(ome.encode_values(x)), x)
    # positive values from 32 up set the leading bit and read back as negative
    assert ome.decode_values(ome.encode_values(40.0)) == -8.0
    for bad in (64.0, -32.0, 1e6):
        with pytest.raises(ValueError, match="does not fit"):
            ome.encode_values(bad)


def test_sentence_vector_is_550_bits():
    assert ome.encode(np.zeros((3, 50))).shape == (3, 550)


@pytest.mark.parametrize("lam, eps", [(1.0, 1.0), (10.0, 0.001), (100.0, 5.0)])
def test_perturbation_frequencies_match_p1_p2_q(lam, eps):
    bits = np.zeros((4000, 550), dtype=np.uint8)
    bits[:2000] = 1
    out = ome.perturb_ome(bits, lam, eps, np.random.default_rng(1))
    p1, p2, q = ome.ome_probabilities(lam, eps, 550)
    for est, p, n in [
        (out[:2000, ::2].mean(), p1, 2000 * 275),
        (out[:2000, 1::2].mean(), p2, 2000 * 275),
        (out[2000:].mean(), q, 2000 * 550),
    ]:
        assert abs(est - p) < 5 * np.sqrt(p * (1 - p) / n) + 1e-12
    assert p1 == pytest.approx(lam / (1 + lam)) and p2 == pytest.approx(1 / (1 + lam**3))
    assert q == pytest.approx(1 / (1 + lam * np.exp(eps / 550)))


def test_vectorised_perturbation_agrees_with_the_per_bit_loop():
    bits = ome.encode(np.random.default_rng(2).uniform(-1, 1, (40, 50)))
    a = ome.perturb_ome(np.repeat(bits, 25, 0), 10.0, 1.0, np.random.default_rng(3))
    b = ome.perturb_ome_loop(np.repeat(bits, 25, 0), 10.0, 1.0, np.random.default_rng(4))
    # same per-position frequencies within sampling error
    fa, fb = a.mean(0), b.mean(0)
    se = np.sqrt(np.maximum(fa * (1 - fa), 1e-4) * 2 / len(a))
    assert (np.abs(fa - fb) < 5 * se + 1e-9).all()


@pytest.mark.parametrize("scheme", ["sue", "oue"])
def test_unary_baselines_formulas_and_ldp_ratio(scheme):
    eps, r = 2.0, 50
    p, q = ome.unary_probabilities(scheme, eps, r)
    e = eps / r
    if scheme == "sue":
        assert p / q == pytest.approx(np.exp(e / 2)) and (1 - q) / (1 - p) == pytest.approx(np.exp(e / 2))
    else:
        assert p == 0.5 and q == pytest.approx(1 / (1 + np.exp(e)))
    # unary encoding: two inputs differ in two bits; the worst ratio over both equals e^eps'
    worst = (
        np.log(max(p / q, (1 - q) / (1 - p))) + np.log(max(p / q, (1 - q) / (1 - p)))
        if scheme == "sue"
        else np.log(p * (1 - q) / (q * (1 - p)))
    )
    assert worst == pytest.approx(e)
    bits = ome.unary_encode(np.array([[0.0, -1.0, 0.99]]), 8, -1, 1)
    assert bits.shape == (1, 24) and bits.reshape(3, 8).sum(1).tolist() == [1, 1, 1]


def test_hoho_score_on_hand_made_bits():
    t = np.array([1, 0, 1, 1, 0, 0, 1, 0], dtype=np.uint8)
    s = np.array([[1, 1, 1, 1, 0, 1, 1, 1], [0, 0, 0, 1, 1, 0, 0, 0]], dtype=np.uint8)
    assert ome.hoho_score(s, t).tolist() == [1.0, 0.0]  # only even positions count


def test_auc_against_pair_counting():
    rng = np.random.default_rng(5)
    pos, neg = rng.integers(0, 5, 30).astype(float), rng.integers(0, 5, 40).astype(float)
    pairs = [(1.0 if a > b else 0.5 if a == b else 0.0) for a, b in itertools.product(pos, neg)]
    assert ome.auc(pos, neg) == pytest.approx(np.mean(pairs))


def test_reconstruction_limits():
    x = ome.encode(np.random.default_rng(6).uniform(-2, 2, (200, 50)))
    rng = np.random.default_rng(7)
    for lam, want in [(1.0, 0.5), (10.0, 10 / 11), (100.0, 100 / 101)]:
        acc = ome.reconstruction_accuracy(ome.perturb_ome(x, lam, 0.001, rng), x).mean()
        assert acc == pytest.approx(ome.expected_reconstruction(x, lam, 0.001), abs=0.005)
        assert acc == pytest.approx(want, abs=0.01)


def test_exact_worst_case_against_enumerating_every_output():
    """On a small domain, enumerate all 2^11 outputs and all input pairs: max log-ratio."""
    domain = np.array([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 2.0])
    for lam, eps in [(1.0, 1.0), (10.0, 0.001), (3.0, 2.0)]:
        enc = ome.encode_values(domain).astype(np.int64)
        p1, p2, q = ome.ome_probabilities(lam, eps, 11)
        keep = np.where(np.arange(11) % 2 == 0, p1, p2)
        outs = np.array(list(itertools.product([0, 1], repeat=11)))
        prob1 = np.where(enc[:, None, :] == 1, keep, q)  # (D, 1, 11)
        logp = np.where(outs[None] == 1, np.log(prob1), np.log(1 - prob1)).sum(-1)  # (D, 2^11)
        brute = (logp[:, None, :] - logp[None, :, :]).max()
        assert ome.exact_worst_case(lam, eps, domain) == pytest.approx(brute)


def _brute_force_vector_loss(lam, eps, domain, r, m, n):
    """Largest log-ratio over every output of every ordered pair of r-float inputs, by
    enumerating all 2^(r l) outputs; keep probabilities by global bit index, as OME does."""
    enc = ome.encode_values(np.asarray(domain), m, n).astype(np.int64)  # (D, l)
    l = enc.shape[1]
    inputs = np.array([np.concatenate(c) for c in itertools.product(enc, repeat=r)])  # (D^r, r l)
    p1, p2, q = ome.ome_probabilities(lam, eps, r * l)
    keep = np.where(np.arange(r * l) % 2 == 0, p1, p2)
    prob1 = np.where(inputs == 1, keep, q)  # (D^r, r l)
    log1, log0 = np.log(prob1).T, np.log(1 - prob1).T
    best = -np.inf
    bits = r * l
    step = 1 << min(bits, 18)
    for start in range(0, 1 << bits, step):
        codes = np.arange(start, start + step)
        outs = ((codes[:, None] >> np.arange(bits)) & 1).astype(np.float64)
        ll = outs @ log1 + (1 - outs) @ log0  # (outputs, D^r)
        best = max(best, float((ll.max(1) - ll.min(1)).max()))
    return best


@pytest.mark.parametrize(
    "r, m, n, domain",
    [
        (2, 2, 1, [-1.5, 0.0, 1.0, 3.5]),  # l = 3 (odd): the second float starts on an odd bit
        (3, 2, 1, [-1.5, -0.5, 0.0, 2.5, 3.5]),  # l = 3, r = 3: two even starts, one odd
        (3, 2, 2, [-0.75, 0.0, 0.5, 1.75]),  # l = 4 (even): every float starts on an even bit
        (2, 6, 5, [-10.0, 0.03125, 9.96875]),  # OME's own l = 11
    ],
)
@pytest.mark.parametrize("lam, eps", [(2.0, 3.0), (10.0, 0.5), (0.5, 1.0)])
def test_exact_vector_loss_equals_enumeration_of_every_output(r, m, n, domain, lam, eps):
    brute = _brute_force_vector_loss(lam, eps, domain, r, m, n)
    assert ome.exact_worst_case(lam, eps, np.array(domain), r, m=m, n=n) == pytest.approx(brute, rel=1e-10)


@pytest.mark.parametrize(
    "r, m, n, domain",
    [(2, 2, 1, [-1.5, 0.0, 1.0, 3.5]), (3, 2, 2, [-0.75, 0.0, 0.5, 1.75])],  # l odd (3), l even (4)
)
def test_many_settings_at_once_equal_the_enumeration_of_every_output(r, m, n, domain):
    """exact_worst_cases (the bounds chart's route: every λ of a frame in one product) at a grid of
    (λ, ε) broadcast together, including λ < 1 and λ = 1 (p1 = p2 = 1/2, a tie of the two ratios),
    against the enumeration of every output, setting by setting; its shape follows the inputs."""
    patterns = ome.loss_patterns(np.array(domain), m, n)
    lams = np.array([0.5, 1.0, 2.0, 10.0])[:, None]
    epss = np.array([0.001, 0.5, 3.0])[None, :]
    got = ome.exact_worst_cases(lams, epss, patterns, r)
    assert got.shape == (4, 3)
    for i, lam in enumerate(lams[:, 0]):
        for j, eps in enumerate(epss[0]):
            assert got[i, j] == pytest.approx(_brute_force_vector_loss(lam, eps, domain, r, m, n), rel=1e-10)
    assert ome.exact_worst_cases(2.0, 3.0, patterns, r).shape == ()
    with pytest.raises(InputError, match="lambda and epsilon must be > 0, got lambda=2, epsilon=0"):
        ome.exact_worst_cases([1.0, 2.0], [1.0, 0.0], patterns, r)
    with pytest.raises(InputError, match="r must be a whole number"):
        ome.exact_worst_cases(2.0, 1.0, patterns, 1.5)


@pytest.mark.parametrize(
    "m, n, domain",
    [
        (6, 5, np.arange(-320, 321) / 32),  # the page's default range: 37,941 distinct rows
        (2, 1, [-1.5, 0.0, 1.0, 3.5]),  # l = 3 (odd)
        (2, 2, [-0.75, 0.0, 0.5, 1.75]),  # l = 4 (even)
        (6, 5, [0.5]),  # one value: the only row is all zeros
    ],
)
def test_the_rows_that_can_be_worst_give_every_rows_worst_case(m, n, domain):
    """loss_patterns keeps only the rows whose four counts no other row's dominate; over random
    (λ, ε), λ below, at and above 1, and r of both parities, their worst case is every row's (the
    full product) to rounding, and they are rows of the full set."""
    domain = np.asarray(domain, dtype=float)
    every = ome.loss_patterns(domain, m, n, every=True)
    kept = ome.loss_patterns(domain, m, n)
    assert 1 <= len(kept) <= len(every)
    assert {tuple(r) for r in kept} <= {tuple(r) for r in every}
    rng = np.random.default_rng(11)
    lams = np.r_[10 ** rng.uniform(-2, 3, 60), 1.0, 0.5, 2.0]
    epss = np.r_[10 ** rng.uniform(-3, 1.3, 60), 1.0, 1.0, 1.0]
    for r in (1, 2, 3):
        full = ome.exact_worst_cases(lams, epss, every, r)
        assert np.allclose(ome.exact_worst_cases(lams, epss, kept, r), full, rtol=1e-13, atol=1e-13)


def test_sentence_vector_loss_matches_an_independent_figure():
    """r = 50 floats in [-10, 10], lambda = 2, eps = 3: 427.666612 (independent computation
    reported in the issue); r times the even-start worst case, 427.939339, was the old error."""
    domain = np.arange(-320, 321) / 32
    assert ome.exact_worst_case(2.0, 3.0, domain, 50) == pytest.approx(427.666612, abs=1e-6)


def test_exact_loss_exceeds_hohos_bound_for_large_lambda_but_not_lambda_one():
    domain = np.arange(-320, 321) / 32  # one float in [-10, 10]
    assert ome.exact_worst_case(1.0, 1.0, domain) < ome.hoho_bound(1.0, 1.0, 1)
    for lam in (10.0, 100.0):
        assert ome.exact_worst_case(lam, 1.0, domain) > ome.hoho_bound(lam, 1.0, 1)  # odd bits: ~2 ln(lambda) each


def test_linking_and_reconstruction_over_the_movie_review_corpus():
    """The paper's shape: AUC = 1 for lambda >= 10, near chance for lambda = 1; recovery ~ lambda/(1+lambda)."""
    from dpviz.papers.hoho import pipeline as hoho

    df = hoho.attack_table(
        {
            "corpus": "movie-reviews",
            "epsilons": (0.001, 1.0),
            "lambdas": (1.0, 10.0, 100.0),
            "mechanisms": ("ome", "oue"),
            "targets": 0.1,
            "seed": 0,
        }
    )
    ome_rows = df[df.mechanism == "ome"].set_index(["lambda", "epsilon"])
    assert (ome_rows.loc[[10.0, 100.0], "auc_mean"] > 0.99).all()
    # lambda = 1 and OUE: chance level, within what 20 targets x 50 encodings can show
    assert (ome_rows.loc[1.0, "auc_mean"].sub(0.5).abs() < 0.1).all()
    assert (df[df.mechanism == "oue"].auc_mean.sub(0.5).abs() < 0.1).all()
    assert ome_rows.loc[(100.0, 1.0), "accuracy_mean"] == pytest.approx(100 / 101, abs=0.01)
    assert ome_rows.loc[(1.0, 1.0), "accuracy_mean"] == pytest.approx(0.5, abs=0.02)
    assert (df.mechanism.isin(["ome", "oue"])).all() and df["lambda"][df.mechanism == "oue"].isna().all()


@pytest.mark.parametrize(
    "data, name, fragment",
    [
        (b"one sentence\n" * 5, "s.txt", "At least 10"),
        (b"\xff\xfe\x00bad", "s.txt", "not UTF-8"),
        (b"text,label\nhello,1\n" * 3, "s.csv", "'sentence' column"),
        (b"sentence,label\n" + b"good film,maybe\n" * 12, "s.csv", "0 or 1"),
        (b"x" * (5 * 1024 * 1024 + 1), "s.txt", "at most 5 MiB"),
    ],
)
def test_corpus_uploads_are_checked(data, name, fragment):
    from dpviz.data import corpora

    with pytest.raises(corpora.CorpusError, match=fragment):
        corpora.parse_upload(data, name)


def test_a_good_csv_upload():
    from dpviz.data import corpora

    sents, labels = corpora.parse_upload(b"sentence,label\n" + b"a fine film,1\nawful,0\n" * 6, "s.csv")
    assert len(sents) == 12 and labels.tolist() == [1, 0] * 6


def test_an_upload_gone_from_the_server_says_so(tmp_path, monkeypatch):
    from dpviz import uploads
    from dpviz.data import corpora
    from dpviz.papers.hoho import pipeline as hoho

    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    ref = uploads.save_upload(b"a fine film\nawful\n", "s.txt")
    uploads.upload_path(ref).unlink()  # what the uploads quota does to old files
    with pytest.raises(corpora.CorpusError, match="not on this server any more: upload it again"):
        hoho.corpus_vectors(ref)


def test_a_single_value_domain_has_no_loss_and_an_empty_one_is_refused():
    """Edge cases: one input value can differ from nothing (loss 0 for any r); an empty range is a
    sentence, on the command line and the page alike."""
    from dpviz import registry
    from dpviz.params import ParamError

    assert ome.exact_worst_case(10.0, 1.0, np.array([0.5]), r=3) == 0.0
    with pytest.raises(ValueError, match="empty"):
        ome.loss_patterns(np.array([]))
    with pytest.raises((ValueError, ParamError), match="holds no value OME can encode"):
        registry.run("hoho-bounds", {"low": "0.01", "high": "0.02"})


def test_classifier_accuracy_tracks_what_the_encodings_keep():
    """The utility numbers against what must hold: the clear encodings separate two well-apart
    classes perfectly; SUE at a tiny ε keeps nothing (chance, within 5-fold sampling error);
    OME with a large λ keeps the even bits whatever ε is, so it stays far above chance."""
    from dpviz.papers.hoho import utility

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 60)
    X = np.where(y[:, None] == 1, 8.0, -8.0) + rng.normal(0, 0.5, (120, 4))
    df = utility.classifier_accuracy(X, y, ["ome", "sue"], [1000.0], [1e-3], seed=0)
    acc = dict(zip(df.mechanism, df.accuracy_mean))
    assert list(df.columns) == list(utility.COLUMNS) and len(df) == 3
    assert acc["none"] == 1.0
    assert acc["ome"] >= 0.95
    assert abs(acc["sue"] - 0.5) <= 3 * 0.5 / np.sqrt(120)  # binomial standard error of chance at n = 120
    again = utility.classifier_accuracy(X, y, ["ome", "sue"], [1000.0], [1e-3], seed=0)
    assert again.equals(df)  # seeded
