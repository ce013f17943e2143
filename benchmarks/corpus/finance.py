"""Finance: Black-Scholes (the closed form with the normal CDF written with an erf
approximation, and with scipy's erf), Monte-Carlo payoffs over pre-drawn normals,
net present value, the maximum drawdown of a price path (a running maximum)."""

import numpy as np

from benchmarks.corpus import pick, program


def init_options(size, rng):
    n = pick(size, 20, 250_000)
    price = rng.uniform(10.0, 100.0, n)
    strike = price * rng.uniform(0.8, 1.2, n)
    t = rng.uniform(0.1, 2.0, n)
    return price, strike, t, 0.02, 0.3, np.zeros(n), np.zeros(n)


@program("finance", init_options)
def black_scholes(S, K, T, r, sigma, call, put):
    # N(x) = (1 + erf(x / sqrt 2)) / 2, erf by Abramowitz-Stegun 7.1.26 (|error| < 1.5e-7)
    sqrt_t = np.sqrt(T)
    d1 = (np.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * sqrt_t)
    d2 = d1 - sigma * sqrt_t
    z1 = np.abs(d1) / np.sqrt(2.0)
    z2 = np.abs(d2) / np.sqrt(2.0)
    t1 = 1.0 / (1.0 + 0.3275911 * z1)
    t2 = 1.0 / (1.0 + 0.3275911 * z2)
    poly1 = t1 * (0.254829592 + t1 * (-0.284496736 + t1 * (1.421413741 + t1 * (-1.453152027 + t1 * 1.061405429))))
    poly2 = t2 * (0.254829592 + t2 * (-0.284496736 + t2 * (1.421413741 + t2 * (-1.453152027 + t2 * 1.061405429))))
    erf1 = np.sign(d1) * (1.0 - poly1 * np.exp(-z1 * z1))
    erf2 = np.sign(d2) * (1.0 - poly2 * np.exp(-z2 * z2))
    nd1 = 0.5 * (1.0 + erf1)
    nd2 = 0.5 * (1.0 + erf2)
    discount = K * np.exp(-r * T)
    call[:] = S * nd1 - discount * nd2
    put[:] = call - S + discount


@program("finance", init_options, requires=("scipy",))
def black_scholes_erf(S, K, T, r, sigma, call, put):
    from scipy.special import erf

    sqrt_t = np.sqrt(T)
    d1 = (np.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * sqrt_t)
    d2 = d1 - sigma * sqrt_t
    discount = K * np.exp(-r * T)
    call[:] = S * 0.5 * (1.0 + erf(d1 / np.sqrt(2.0))) - discount * 0.5 * (1.0 + erf(d2 / np.sqrt(2.0)))
    put[:] = call - S + discount


def init_paths(size, rng):
    paths, steps = pick(size, (16, 6), (20_000, 64))
    return rng.standard_normal((paths, steps)), 100.0, 105.0, 1.0, 0.02, 0.25


@program("finance", init_paths)
def mc_european(Z, S0, K, T, r, sigma):
    # geometric Brownian motion: only the endpoint matters
    n_steps = Z.shape[1]
    dt = T / n_steps
    log_return = ((r - 0.5 * sigma**2) * dt + sigma * np.sqrt(dt) * Z).sum(axis=1)
    ST = S0 * np.exp(log_return)
    payoff = np.maximum(ST - K, 0.0)
    price = np.exp(-r * T) * payoff.mean()
    stderr = np.exp(-r * T) * payoff.std() / np.sqrt(Z.shape[0])
    return price, stderr


@program("finance", init_paths)
def mc_asian(Z, S0, K, T, r, sigma):
    # arithmetic-average Asian call: the whole path, step by step
    paths, n_steps = Z.shape
    dt = T / n_steps
    drift = (r - 0.5 * sigma**2) * dt
    vol = sigma * np.sqrt(dt)
    S = np.full(paths, S0)
    total = np.zeros(paths)
    for j in range(n_steps):
        S *= np.exp(drift + vol * Z[:, j])
        total += S
    payoff = np.maximum(total / n_steps - K, 0.0)
    return np.exp(-r * T) * np.mean(payoff)


def init_cashflows(size, rng):
    m, n = pick(size, (4, 6), (50_000, 40))
    return rng.uniform(-10.0, 50.0, (m, n)), rng.uniform(0.01, 0.1, m)


@program("finance", init_cashflows)
def npv(cashflows, rates):
    # net present value of every project (row) at its own rate
    t = np.arange(cashflows.shape[1])
    discount = (1.0 + rates[:, None]) ** (-t[None, :])
    return (cashflows * discount).sum(axis=1)


def init_prices(size, rng):
    n = pick(size, 30, 1_000_000)
    return (100.0 * np.cumprod(1.0 + 0.01 * rng.standard_normal(n)),)


@program("finance", init_prices)
def max_drawdown(prices):
    peak = np.maximum.accumulate(prices)
    return ((prices - peak) / peak).min()
