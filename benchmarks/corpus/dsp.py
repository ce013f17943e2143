"""Signal processing: a radix-2 FFT with complex butterflies, a DFT by matrix,
CRC-32 (table-driven over one message; bitwise over a batch), moving averages, an FIR
filter, autocorrelation; a power spectrum in decibels (float32 log10), an
exponentially weighted moving average (a loop carrying its value) and a level meter's
peak hold (np.maximum.accumulate, a long argmax)."""

import numpy as np

from benchmarks.corpus import pick, program


def _bit_reversal(n):
    bits = n.bit_length() - 1
    return np.array([int(format(i, f"0{bits}b")[::-1], 2) for i in range(n)], dtype=np.int64)


def init_fft(size, rng):
    n = pick(size, 16, 1 << 16)
    return rng.standard_normal(n), _bit_reversal(n)


@program("signal", init_fft, name="fft_radix2")
def fft_radix2(x, bitrev):
    # iterative decimation in time: bit-reversed input, log2(n) butterfly stages
    n = x.shape[0]
    X = x[bitrev].astype(np.complex128)
    half = 1
    while half < n:
        w = np.exp(-1j * np.pi * np.arange(half) / half)
        X = X.reshape(-1, 2 * half)
        even = X[:, :half].copy()
        odd = X[:, half:] * w
        X[:, :half] = even + odd
        X[:, half:] = even - odd
        X = X.reshape(n)
        half *= 2
    return X


def init_dft(size, rng):
    n, m = pick(size, (8, 3), (512, 64))
    return (rng.standard_normal((m, n)),)


@program("signal", init_dft)
def dft(signals):
    # the DFT of each row as one complex matrix product
    n = signals.shape[1]
    k = np.arange(n)
    W = np.exp(-2j * np.pi * np.outer(k, k) / n)
    spectrum = signals @ W.T
    power = np.abs(spectrum) ** 2 / n
    return spectrum, power


def _crc_table():
    table = np.zeros(256, dtype=np.uint32)
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table[i] = c
    return table


def init_crc(size, rng):
    n = pick(size, 16, 4096)
    return rng.integers(0, 256, n, dtype=np.uint8), _crc_table()


@program("signal", init_crc)
def crc32(data, table):
    crc = np.uint32(0xFFFFFFFF)
    for byte in data:
        crc = table[(crc ^ byte) & np.uint32(0xFF)] ^ (crc >> np.uint32(8))
    return crc ^ np.uint32(0xFFFFFFFF)


def init_crc_batch(size, rng):
    m, n = pick(size, (4, 3), (20_000, 12))
    return (rng.integers(0, 256, (m, n), dtype=np.uint8),)


@program("signal", init_crc_batch)
def crc32_batch(packets):
    # bitwise CRC-32 of every row (packet) at once, one byte column at a time
    crc = np.full(packets.shape[0], 0xFFFFFFFF, dtype=np.uint32)
    for j in range(packets.shape[1]):
        crc ^= packets[:, j].astype(np.uint32)
        for _ in range(8):
            mask = -(crc & 1)
            crc = (crc >> 1) ^ (np.uint32(0xEDB88320) & mask)
    return crc ^ np.uint32(0xFFFFFFFF)


def init_signal(size, rng):
    n = pick(size, 40, 2_000_000)
    t = np.linspace(0.0, 1.0, n)
    return (np.sin(2 * np.pi * 5 * t) + 0.3 * rng.standard_normal(n),)


def init_moving_average(size, rng):
    return init_signal(size, rng) + (pick(size, 5, 25),)


@program("signal", init_moving_average)
def moving_average(x, w):
    c = np.cumsum(x)
    c[w:] = c[w:] - c[:-w]
    return c[w - 1 :] / w


@program("signal", init_moving_average)
def moving_average_loop(x, w):
    n = x.shape[0] - w + 1
    acc = np.zeros(n)
    for k in range(w):
        acc += x[k : k + n]
    return acc / w


def init_fir(size, rng):
    (x,) = init_signal(size, rng)
    taps = pick(size, 5, 31)
    h = np.sinc(np.linspace(-2.0, 2.0, taps)) * np.hamming(taps)
    return x.astype(np.float32), (h / h.sum()).astype(np.float32)


@program("signal", init_fir)
def fir_filter(x, h):
    # y[n] = sum_k h[k] x[n - k], valid part only
    taps = h.shape[0]
    n = x.shape[0] - taps + 1
    y = np.zeros(n, dtype=np.float32)
    for k in range(taps):
        y += h[k] * x[taps - 1 - k : taps - 1 - k + n]
    return y


def init_autocorr(size, rng):
    (x,) = init_signal(size, rng)
    return x[: pick(size, 40, 200_000)].copy(), pick(size, 4, 32)


@program("signal", init_autocorr)
def autocorrelation(x, maxlag):
    x = x - x.mean()
    n = x.shape[0]
    r = np.empty(maxlag)
    for k in range(maxlag):
        r[k] = x[: n - k] @ x[k:]
    return r / r[0]


def init_spectrum(size, rng):
    n = pick(size, 50, 1_000_000)
    return (rng.standard_normal(n).astype(np.float32),)


@program("signal", init_spectrum)
def decibels(x):
    power = np.abs(x) ** 2
    return 10.0 * np.log10(power + 1e-12)


def init_ewma(size, rng):
    n = pick(size, 30, 100_000)
    return rng.standard_normal(n), 0.05


@program("signal", init_ewma)
def ewma(x, alpha):
    out = np.empty_like(x)
    acc = x[0]
    for i in range(x.shape[0]):
        acc = alpha * x[i] + (1.0 - alpha) * acc
        out[i] = acc
    return out


def init_peak_hold(size, rng):
    channels, n = pick(size, (3, 50), (8, 250_000))
    return ((np.abs(rng.standard_normal((channels, n))) * np.linspace(1, 0.2, n)).astype(np.float32),)


@program("signal", init_peak_hold)
def peak_hold(levels):
    # a level meter's peak hold: the running maximum of each channel, the loudest sample
    # of each (a long argmax) and its distance from the held peak at the end
    held = np.maximum.accumulate(levels, axis=1)
    loudest = np.argmax(levels.ravel())
    return held, loudest, held[:, -1] - levels[:, -1]


def init_calibration(size, rng):
    n = pick(size, 40, 1_000_000)
    volts = np.linspace(0.0, 3.3, 33)
    table = 25.0 * volts + 4.0 * np.sin(volts)  # a sensor's measured response, 33 points
    return rng.uniform(-0.1, 3.4, n), volts, table, np.array([1e-4, -0.01, 1.0, 0.0])


@program("signal", init_calibration)
def calibrate_readings(raw, volts, table, drift):
    # raw ADC volts to degrees through a measured calibration table (np.interp, held at the
    # table's ends), a polynomial drift correction, and the readings outside the table
    degrees = np.interp(raw, volts, table)
    corrected = np.polyval(drift, degrees)
    return corrected, np.count_nonzero((raw < volts[0]) | (raw > volts[-1]))
