"""Partial sensitivity in (DP-)SGD: 5x5 bar images, a 25-8-1 sigmoid network
(Mueller et al. 2022, Sec. 5.2; docs/formulas.md, section 4).

Data: a vertical bar (middle column) or a horizontal bar (middle row) of ones on zeros,
plus N(0, noise_sd^2) per pixel, min-max normalised per image (as the reference code);
label 0 = vertical, 1 = horizontal.
Network: h = sigmoid(W1 x + b1) (8 units), o = sigmoid(w2 . h + b2), binary cross-entropy
L = -(y log o + (1 - y) log(1 - o)). Initialisation: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
(The reference notebook adds b1 after the sigmoid and has no b2; dpviz uses the standard
layer, which the paper's text describes.)

Per-example gradient w.r.t. the weights theta = (W1, b1, w2, b2), with d2 = o - y and
d1 = d2 * w2 * h * (1 - h):
    G(x)^2 = ||grad_theta L||^2 = d2^2 (||h||^2 + 1) + ||d1||^2 (||x||^2 + 1).
The partial sensitivity of pixel j is dG/dx_j, derived here exactly (chain rule, see
:func:`partial_sensitivity`) and checked against finite differences in the tests.

DP-SGD (Abadi et al. 2016): per-example gradients clipped to norm C, summed, plus
N(0, (noise_multiplier * C)^2) per coordinate, divided by the batch size (full batch here).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpviz.errors import InputError
from dpviz.progress import Progress
from dpviz.stats import stream

SIDE = 5
HIDDEN = 8


def prototypes() -> tuple[np.ndarray, np.ndarray]:
    """The clean vertical and horizontal bars, as 5x5 arrays."""
    v = np.zeros((SIDE, SIDE))
    v[:, SIDE // 2] = 1.0
    return v, v.T.copy()


def make_bars(per_class: int, noise_sd: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``per_class`` noisy images of each bar, min-max normalised per image.
    Returns X (2*per_class, 25) and y (0 vertical, 1 horizontal)."""
    if per_class < 1:
        raise InputError(f"per_class must be >= 1, got {per_class}")
    if not noise_sd > 0:
        raise InputError(f"noise_sd must be > 0, got {noise_sd}")
    v, h = prototypes()
    base = np.concatenate([np.repeat(v.ravel()[None], per_class, 0), np.repeat(h.ravel()[None], per_class, 0)])
    x = base + rng.normal(0.0, noise_sd, base.shape)
    lo, hi = x.min(1, keepdims=True), x.max(1, keepdims=True)
    x = (x - lo) / (hi - lo)
    y = np.r_[np.zeros(per_class), np.ones(per_class)]
    return x, y


@dataclass
class Params:
    """The 25-8-1 network's weights: hidden layer W1 (8 x 25) and b1, output weights w2 and bias b2."""

    W1: np.ndarray  # (8, 25)
    b1: np.ndarray  # (8,)
    w2: np.ndarray  # (8,)
    b2: float

    def copy(self) -> "Params":
        """An independent copy of the weights."""
        return Params(self.W1.copy(), self.b1.copy(), self.w2.copy(), float(self.b2))


def init_params(rng: np.random.Generator) -> Params:
    """Weights drawn U(-1/sqrt(fan_in), 1/sqrt(fan_in)) per layer (PyTorch's default), from ``rng``."""
    k1, k2 = 1 / np.sqrt(SIDE * SIDE), 1 / np.sqrt(HIDDEN)
    return Params(
        rng.uniform(-k1, k1, (HIDDEN, SIDE * SIDE)),
        rng.uniform(-k1, k1, HIDDEN),
        rng.uniform(-k2, k2, HIDDEN),
        float(rng.uniform(-k2, k2)),
    )


def _sigmoid(z):
    return 0.5 * (1 + np.tanh(0.5 * z))  # stable for large |z|


def forward(p: Params, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hidden activations h = sigmoid(X W1^T + b1) and outputs o = sigmoid(h w2 + b2) for images ``X`` (n, 25)."""
    h = _sigmoid(X @ p.W1.T + p.b1)
    o = _sigmoid(h @ p.w2 + p.b2)
    return h, o


def bce(o: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Binary cross-entropy per example, -(y log o + (1 - y) log(1 - o)), with o clipped to [1e-12, 1 - 1e-12]."""
    o = np.clip(o, 1e-12, 1 - 1e-12)
    return -(y * np.log(o) + (1 - y) * np.log(1 - o))


def _deltas(p: Params, X, y):
    h, o = forward(p, X)
    d2 = o - y
    d1 = d2[:, None] * p.w2[None, :] * h * (1 - h)
    return h, o, d1, d2


def per_example_gradients(p: Params, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-example gradients of L w.r.t. (W1, b1, w2, b2), flattened: shape (N, 8*25+8+8+1)."""
    h, o, d1, d2 = _deltas(p, X, y)
    dW1 = d1[:, :, None] * X[:, None, :]
    return np.concatenate([dW1.reshape(len(X), -1), d1, d2[:, None] * h, d2[:, None]], axis=1)


def gradient_norm(p: Params, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """G = ||grad_theta L|| per example, from the closed form (no per-example tensors)."""
    h, o, d1, d2 = _deltas(p, X, y)
    g2 = d2**2 * ((h**2).sum(1) + 1) + (d1**2).sum(1) * ((X**2).sum(1) + 1)
    return np.sqrt(g2)


def partial_sensitivity(p: Params, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """dG/dx for every example and pixel, shape (N, 25), exact.

    With s = h(1 - h) and r = o(1 - o):
      grad d2      = r * ((s * w2) @ W1)
      grad ||h||^2 = 2 (h * s) @ W1
      grad ||d1||^2 = 2 (sum_k d1_k w2_k s_k) grad d2 + 2 d2 ((d1 * w2 * (1 - 2h) * s) @ W1)
      grad G^2 = 2 d2 (||h||^2 + 1) grad d2 + d2^2 grad ||h||^2
                 + (||x||^2 + 1) grad ||d1||^2 + 2 ||d1||^2 x
      grad G = grad G^2 / (2 G).
    """
    h, o, d1, d2 = _deltas(p, X, y)
    s, r = h * (1 - h), o * (1 - o)
    g_d2 = r[:, None] * ((s * p.w2) @ p.W1)
    g_h2 = 2 * (h * s) @ p.W1
    coef = (d1 * p.w2 * s).sum(1)
    g_d1 = 2 * coef[:, None] * g_d2 + 2 * d2[:, None] * ((d1 * p.w2 * (1 - 2 * h) * s) @ p.W1)
    h2, d12, x2 = (h**2).sum(1), (d1**2).sum(1), (X**2).sum(1)
    g_G2 = (
        (2 * d2 * (h2 + 1))[:, None] * g_d2 + (d2**2)[:, None] * g_h2 + (x2 + 1)[:, None] * g_d1 + 2 * d12[:, None] * X
    )
    G = np.sqrt(d2**2 * (h2 + 1) + d12 * (x2 + 1))
    return g_G2 / (2 * np.maximum(G, np.finfo(float).tiny))[:, None]


def _mean_gradient(p: Params, X, y, weights=None) -> Params:
    """(Weighted) mean over examples of the per-example gradients, without per-example tensors."""
    h, o, d1, d2 = _deltas(p, X, y)
    w = np.ones(len(X)) if weights is None else weights
    n = len(X)
    return Params(
        ((w[:, None] * d1).T @ X) / n,
        (w[:, None] * d1).sum(0) / n,
        ((w * d2)[:, None] * h).sum(0) / n,
        float((w * d2).sum() / n),
    )


def _step(p: Params, g: Params, lr: float) -> None:
    p.W1 -= lr * g.W1
    p.b1 -= lr * g.b1
    p.w2 -= lr * g.w2
    p.b2 -= lr * g.b2


def clip_factors(p: Params, X, y, clip: float) -> np.ndarray:
    """min(1, C / G_i): the per-example clipping factors of DP-SGD."""
    return np.minimum(1.0, clip / np.maximum(gradient_norm(p, X, y), np.finfo(float).tiny))


def train(
    X: np.ndarray,
    y: np.ndarray,
    steps: int,
    lr: float,
    rng: np.random.Generator,
    clip: float | None = None,
    noise_multiplier: float = 0.0,
    progress: Progress | None = None,
    label: str = "",
    record_every: int = 10,
) -> tuple[Params, pd.DataFrame]:
    """Full-batch gradient descent; with ``clip`` it is DP-SGD (clip per example, add
    N(0, (noise_multiplier*clip)^2) to the sum, divide by the batch size).
    Returns the final parameters and a history (step, loss, accuracy) of the training set."""
    p = init_params(rng)
    rows = []
    n = len(X)
    for t in range(steps + 1):
        if t % record_every == 0 or t == steps:
            _, o = forward(p, X)
            rows.append((t, float(bce(o, y).mean()), float(((o > 0.5) == (y > 0.5)).mean())))
            if progress and t % (record_every * 10) == 0:
                progress(t / steps, f"{label}: step {t:,} of {steps:,}")
        if t == steps:
            break
        if clip is None:
            g = _mean_gradient(p, X, y)
        else:
            g = _mean_gradient(p, X, y, clip_factors(p, X, y, clip))
            if noise_multiplier > 0:
                s = noise_multiplier * clip / n
                g.W1 += rng.normal(0, s, g.W1.shape)
                g.b1 += rng.normal(0, s, g.b1.shape)
                g.w2 += rng.normal(0, s, g.w2.shape)
                g.b2 += float(rng.normal(0, s))
        _step(p, g, lr)
    return p, pd.DataFrame(rows, columns=["step", "loss", "accuracy"])


@dataclass
class Experiment:
    """SGD and DP-SGD trained on the same bar images: both networks, the training history and the
    evaluation images with their labels."""

    sgd: Params
    dpsgd: Params
    history: pd.DataFrame  # optimizer, step, loss, accuracy
    X_eval: np.ndarray
    y_eval: np.ndarray
    test_accuracy: dict


def run_experiment(
    per_class: int,
    noise_sd: float,
    lr: float,
    sgd_steps: int,
    dpsgd_steps: int,
    clip: float,
    noise_multiplier: float,
    dpsgd_lr: float,
    eval_per_class: int,
    seed: int,
    progress: Progress | None = None,
) -> Experiment:
    """Train with GD and with DP-SGD on the same data and initialisation seed."""
    X, y = make_bars(per_class, noise_sd, stream(seed, 51))
    X_eval, y_eval = make_bars(eval_per_class, noise_sd, stream(seed, 52))
    total = sgd_steps + dpsgd_steps

    def sub(offset, span):
        return (lambda f, m: progress((offset + f * span) / total, m)) if progress else None

    sgd, h1 = train(X, y, sgd_steps, lr, stream(seed, 53), progress=sub(0, sgd_steps), label="SGD")
    dp, h2 = train(
        X,
        y,
        dpsgd_steps,
        dpsgd_lr,
        stream(seed, 53),
        clip=clip,
        noise_multiplier=noise_multiplier,
        progress=sub(sgd_steps, dpsgd_steps),
        label="DP-SGD",
    )
    h1.insert(0, "optimizer", "SGD")
    h2.insert(0, "optimizer", "DP-SGD")
    acc = {
        name: float(((forward(p, X_eval)[1] > 0.5) == (y_eval > 0.5)).mean())
        for name, p in (("SGD", sgd), ("DP-SGD", dp))
    }
    return Experiment(sgd, dp, pd.concat([h1, h2], ignore_index=True), X_eval, y_eval, acc)
