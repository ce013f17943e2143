"""Machine learning: softmax, an MLP, conv2d by slicing, layernorm, attention, a
k-means assignment step, logistic regression by gradient descent, cross-entropy,
an Adam update; with advanced indexing: an embedding bag (a gather), a cross-entropy
with ignored labels (take_along_axis, a masked mean), a k-means update step (masked
sums); a confusion matrix (np.bincount), an embedding's gradient (np.add.at)."""

import numpy as np

from benchmarks.corpus import pick, program


def init_rows32(size, rng):
    rows, cols = pick(size, (4, 10), (4096, 1000))
    return (rng.standard_normal((rows, cols)).astype(np.float32),)


@program("ml", init_rows32)
def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def init_mlp(size, rng):
    b, d, h, o = pick(size, (4, 6, 8, 3), (512, 784, 1024, 10))
    f = np.float32
    return (
        rng.standard_normal((b, d)).astype(f),
        (rng.standard_normal((d, h)) / np.sqrt(d)).astype(f),
        np.zeros(h, f),
        (rng.standard_normal((h, o)) / np.sqrt(h)).astype(f),
        np.zeros(o, f),
    )


@program("ml", init_mlp)
def mlp(x, W1, b1, W2, b2):
    hidden = np.maximum(x @ W1 + b1, 0.0)
    logits = hidden @ W2 + b2
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    return p


def init_conv(size, rng):
    n, c, h, w, co, k = pick(size, (1, 2, 7, 6, 3, 3), (8, 16, 64, 64, 32, 3))
    f = np.float32
    return rng.standard_normal((n, c, h, w)).astype(f), rng.standard_normal((co, c, k, k)).astype(f), np.zeros(co, f)


@program("ml", init_conv)
def conv2d(x, weights, bias):
    # valid cross-correlation, NCHW, as a sum of shifted products over the kernel window
    N, C, H, W = x.shape
    K, _, R, S = weights.shape
    Ho = H - R + 1
    Wo = W - S + 1
    out = np.zeros((N, Ho, Wo, K), dtype=np.float32)
    for r in range(R):
        for s in range(S):
            patch = x[:, :, r : r + Ho, s : s + Wo].transpose(0, 2, 3, 1)  # N, Ho, Wo, C
            out += patch @ weights[:, :, r, s].T
    out += bias
    return out.transpose(0, 3, 1, 2)


def init_layernorm(size, rng):
    (x,) = init_rows32(size, rng)
    d = x.shape[1]
    return x, (1.0 + 0.1 * rng.standard_normal(d)).astype(np.float32), np.zeros(d, np.float32)


@program("ml", init_layernorm)
def layernorm(x, gamma, beta):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * gamma + beta


def init_attention(size, rng):
    b, h, t, d = pick(size, (1, 2, 5, 4), (4, 8, 256, 64))
    # float64: with float32 inputs the result is float64 (np.sqrt(d) is a strong NumPy
    # float64) but only float32-accurate, and BLAS's float32 summation order is not Ember's
    q, k, v = (rng.standard_normal((b, h, t, d)) for _ in range(3))
    return q, k, v


@program("ml", init_attention)
def attention(q, k, v):
    d = q.shape[-1]
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d)
    t = scores.shape[-1]
    causal = np.arange(t)[:, None] >= np.arange(t)[None, :]
    scores = np.where(causal, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    return w @ v


def init_attention_heads(size, rng):
    h, t, d = pick(size, (3, 5, 4), (96, 64, 32))
    return tuple(rng.standard_normal((h, t, d)) for _ in range(3))


@program("ml", init_attention_heads)
def attention_heads(q, k, v):
    # many small heads (a vision transformer's windows): per head a 64 x 64 score
    # matrix, a softmax over its rows, and the weighted values
    scores = q @ k.transpose(0, 2, 1) * (1.0 / np.sqrt(q.shape[-1]))
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    return w @ v


def init_kmeans(size, rng):
    n, d, k = pick(size, (12, 3, 4), (20_000, 8, 16))
    X = rng.standard_normal((n, d))
    return X, X[rng.choice(n, k, replace=False)].copy()


@program("ml", init_kmeans)
def kmeans_assign(X, centroids):
    d2 = ((X[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
    labels = d2.argmin(axis=1)
    inertia = d2.min(axis=1).sum()
    return labels, inertia


@program("ml", init_kmeans)
def kmeans_step(X, centroids):
    # one Lloyd iteration: assign by the |x|^2 - 2 x.c + |c|^2 expansion, then re-average
    k = centroids.shape[0]
    d2 = (X * X).sum(axis=1)[:, None] - 2.0 * X @ centroids.T + (centroids * centroids).sum(axis=1)[None, :]
    labels = np.argmin(d2, axis=1)
    for j in range(k):
        members = labels == j
        count = members.sum()
        if count > 0:
            centroids[j] = (X * members[:, None]).sum(axis=0) / count
    return labels


def init_logreg(size, rng):
    n, d, iters = pick(size, (10, 3, 3), (20_000, 32, 10))
    X = rng.standard_normal((n, d))
    y = (X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0).astype(np.float64)
    return X, y, np.zeros(d), 0.1, iters


@program("ml", init_logreg)
def logreg(X, y, w, lr, iters):
    n = X.shape[0]
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(X @ w)))
        grad = X.T @ (p - y) / n
        w -= lr * grad
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def init_xent(size, rng):
    n, c = pick(size, (6, 5), (8192, 1000))
    logits = rng.standard_normal((n, c)).astype(np.float32)
    return logits, rng.integers(0, c, n)


@program("ml", init_xent)
def cross_entropy(logits, labels):
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    onehot = labels[:, None] == np.arange(logits.shape[1])[None, :]
    picked = np.where(onehot, logits, 0.0).sum(axis=1)
    return np.mean(lse - picked)


def init_bce(size, rng):
    n, c = pick(size, (7, 3), (4096, 256))
    return rng.standard_normal((n, c)) * 3, (rng.random((n, c)) < 0.3).astype(np.float64)


@program("ml", init_bce)
def bce_with_logits(z, y):
    # multi-label binary cross-entropy on logits, the stable form: no exp overflow,
    # log1p keeping the digits of exp(-|z|) for large |z|; and its gradient
    loss = np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))
    grad = 1.0 / (1.0 + np.exp(-z)) - y
    return loss.mean(axis=0), grad / z.shape[0]


def init_adam(size, rng):
    n = pick(size, 20, 1_000_000)
    f = np.float32
    return (
        rng.standard_normal(n).astype(f),
        rng.standard_normal(n).astype(f),
        np.zeros(n, f),
        np.zeros(n, f),
        3,
    )


@program("ml", init_adam)
def adam(param, grad, m, v, t):
    lr, b1, b2, eps = 1e-3, 0.9, 0.999, 1e-8
    m *= b1
    m += (1 - b1) * grad
    v *= b2
    v += (1 - b2) * grad * grad
    m_hat = m / (1 - b1**t)
    v_hat = v / (1 - b2**t)
    param -= lr * m_hat / (np.sqrt(v_hat) + eps)


def init_gelu(size, rng):
    n = pick(size, 30, 1_000_000)
    return (rng.standard_normal(n).astype(np.float32),)


@program("ml", init_gelu)
def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def init_embedding(size, rng):
    vocab, dim, batch, bag = pick(size, (20, 6, 4, 3), (50_000, 128, 4096, 16))
    table = rng.standard_normal((vocab, dim)).astype(np.float32)
    ids = rng.integers(0, vocab, (batch, bag))
    ids[:, -1] = -1  # the last token of each bag: counted from the end of the table
    return table, ids


@program("ml", init_embedding)
def embedding_bag(table, ids):
    # mean of the embeddings of each bag of token ids (a gather), then L2-normalized
    vectors = table[ids].mean(axis=1)
    return vectors / np.sqrt((vectors * vectors).sum(axis=1, keepdims=True))


def init_mask_loss(size, rng):
    n, classes = pick(size, (12, 5), (200_000, 10))
    logits = rng.standard_normal((n, classes))
    labels = rng.integers(0, classes, n)
    labels[rng.random(n) < 0.1] = -100  # ignored samples (PyTorch's ignore_index)
    return logits, labels


@program("ml", init_mask_loss)
def masked_cross_entropy(logits, labels):
    # cross-entropy over the samples whose label is not ignored: a per-row gather of
    # the label's log-probability (take_along_axis) and a masked mean
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    keep = labels != -100
    safe = np.where(keep, labels, 0)
    picked = np.take_along_axis(log_probs, safe[:, None], axis=1)[:, 0]
    return -picked[keep].mean()


# --- einsum (issue 12)


def init_einsum_attention(size, rng):
    b, h, t, d = pick(size, (2, 2, 5, 4), (8, 8, 256, 64))
    q, k, v = (rng.standard_normal((b, h, t, d)).astype(np.float32) for _ in range(3))
    w = rng.standard_normal((d, d)).astype(np.float32)
    return q, k, v, w


@program("ml", init_einsum_attention)
def einsum_attention(q, k, v, w):
    # multi-head attention written with einsum, plus a bilinear form per token pair
    scores = np.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(np.float32(q.shape[-1]))
    scores = scores - scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p = p / p.sum(axis=-1, keepdims=True)
    out = np.einsum("bhqk,bhkd->bhqd", p, v)
    bilinear = np.einsum("bhqd,de,bhqe->bhq", q, w, k)
    return out, bilinear


def init_kmeans_update(size, rng):
    n, d, k = pick(size, (30, 3, 4), (200_000, 16, 8))
    X = rng.standard_normal((n, d))
    labels = rng.integers(0, k - 1, n)  # the last cluster is empty: it keeps its centroid
    return X, labels, rng.standard_normal((k, d))


@program("ml", init_kmeans_update)
def kmeans_update(X, labels, centroids):
    # the update step of k-means: each centroid becomes the mean of its members (a
    # masked reduction per cluster), in place
    for k in range(centroids.shape[0]):
        members = labels == k
        n = np.count_nonzero(members)
        total = X[members].sum(axis=0)
        centroids[k] = np.where(n > 0, total / np.maximum(n, 1), centroids[k])


def init_confusion(size, rng):
    n, k = pick(size, (40, 3), (1_000_000, 10))
    return rng.integers(0, k, n), rng.integers(0, k, n), k


@program("ml", init_confusion)
def confusion_matrix(truth, predicted, k):
    # counts of each (true, predicted) pair by one bincount, then per-class recall
    counts = np.bincount(truth * k + predicted, minlength=k * k).reshape(k, k)
    recall = np.diag(counts) / np.maximum(counts.sum(axis=1), 1)
    return counts, recall


def init_embedding_grad(size, rng):
    vocab, dim, n = pick(size, (12, 4, 30), (50_000, 64, 200_000))
    return np.zeros((vocab, dim)), rng.integers(0, vocab, n), rng.standard_normal((n, dim))


@program("ml", init_embedding_grad)
def embedding_grad(table_grad, tokens, upstream):
    # the backward pass of an embedding lookup: each token's gradient row added into its
    # row of the table (repeated tokens accumulate), then a global gradient norm
    np.add.at(table_grad, tokens, upstream)
    return np.sqrt((table_grad * table_grad).sum())


def init_binned_target(size, rng):
    n = pick(size, 50, 500_000)
    x = rng.standard_normal(n)
    return x, 2.0 * x + rng.standard_normal(n)


@program("ml", init_binned_target)
def binned_target_mean(x, y):
    # a feature cut at its deciles (np.quantile, np.digitize), the target's mean and the
    # count in each of the ten bins: a binned-regression diagnostic
    edges = np.quantile(x, np.linspace(0.0, 1.0, 11))[1:-1]
    bins = np.digitize(x, edges)
    counts = np.bincount(bins, minlength=10)
    sums = np.bincount(bins, weights=y, minlength=10)
    return sums / np.maximum(counts, 1), counts


def init_labels(size, rng):
    n = pick(size, 40, 1_000_000)
    return rng.integers(0, 20, n), rng.standard_normal(n)


@program("ml", init_labels)
def class_subset_score(labels, scores):
    # the mean score of the samples in a few classes of interest (np.isin against a list),
    # their count, and each sample's rank bucket among fixed score cut points
    chosen = np.isin(labels, [2, 3, 5, 7, 11, 13])
    count = np.count_nonzero(chosen)
    mean = np.sum(np.where(chosen, scores, 0.0)) / max(count, 1)
    return mean, count, np.searchsorted([-1.0, 0.0, 1.0], scores)
