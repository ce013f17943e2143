"""Images: grayscale conversion, box blur and Sobel edges by slicing, thresholding
without a histogram (global mean, then iterative isodata), contrast stretch; with
advanced indexing: recolouring through a look-up table (a gather), clamping hot
pixels (masked writes); gamma correction to 8 bits (a power); histogram
equalization (a histogram by np.bincount, its cumulative sum as a look-up table)."""

import numpy as np

from benchmarks.corpus import pick, program


def init_rgb(size, rng):
    h, w = pick(size, (6, 7), (1080, 1920))
    return (rng.random((h, w, 3)).astype(np.float32),)


@program("image", init_rgb)
def grayscale(img):
    return 0.299 * img[:, :, 0] + 0.587 * img[:, :, 1] + 0.114 * img[:, :, 2]


@program("image", init_rgb)
def grayscale_dot(img):
    weights = np.array([0.299, 0.587, 0.114], dtype=np.float32)
    return img @ weights


def init_gray(size, rng):
    h, w = pick(size, (8, 9), (1080, 1920))
    return (rng.random((h, w)).astype(np.float32),)


@program("image", init_gray)
def box_blur(img):
    out = img.copy()
    out[1:-1, 1:-1] = (
        img[:-2, :-2]
        + img[:-2, 1:-1]
        + img[:-2, 2:]
        + img[1:-1, :-2]
        + img[1:-1, 1:-1]
        + img[1:-1, 2:]
        + img[2:, :-2]
        + img[2:, 1:-1]
        + img[2:, 2:]
    ) / 9.0
    return out


@program("image", init_gray)
def sobel(img):
    gx = (img[:-2, 2:] + 2.0 * img[1:-1, 2:] + img[2:, 2:]) - (img[:-2, :-2] + 2.0 * img[1:-1, :-2] + img[2:, :-2])
    gy = (img[2:, :-2] + 2.0 * img[2:, 1:-1] + img[2:, 2:]) - (img[:-2, :-2] + 2.0 * img[:-2, 1:-1] + img[:-2, 2:])
    mag = np.sqrt(gx * gx + gy * gy)
    return mag / mag.max()


def init_gray64(size, rng):
    (img,) = init_gray(size, rng)
    return (img.astype(np.float64),)


@program("image", init_gray64)
def threshold_mean(img):
    # float64: with float32, the pixels within rounding of the mean flip with the summation order
    return (img > img.mean()).astype(np.uint8) * 255


def init_isodata(size, rng):
    (img,) = init_gray(size, rng)
    img = img[: pick(size, 8, 540), : pick(size, 9, 960)]
    return img.astype(np.float64) ** 2, pick(size, 3, 4)


@program("image", init_isodata)
def threshold_isodata(img, iters):
    # Ridler-Calvard: t = midpoint of the means above and below t, a fixed number of times
    t = img.mean()
    for _ in range(iters):
        above = img > t
        n_above = above.sum()
        mean_above = np.where(above, img, 0.0).sum() / n_above
        mean_below = np.where(above, 0.0, img).sum() / (img.size - n_above)
        t = 0.5 * (mean_above + mean_below)
    return img > t, t


def init_u8(size, rng):
    h, w = pick(size, (6, 7), (1080, 1920))
    return rng.integers(30, 200, (h, w, 3), dtype=np.uint8), 0.8


@program("image", init_u8)
def contrast_stretch(img, gamma):
    x = img.astype(np.float32)
    lo = x.min()
    hi = x.max()
    y = ((x - lo) / (hi - lo)) ** gamma
    return (y * 255.0 + 0.5).astype(np.uint8)


def init_lut(size, rng):
    h, w = pick(size, (6, 7), (1080, 1920))
    img = rng.integers(0, 256, (h, w)).astype(np.int64)
    levels = np.arange(256, dtype=np.float32) / 255.0
    lut = np.stack([levels**0.5, levels, levels**2.0], axis=1)  # a false-colour map: 256 x RGB
    return img, lut


@program("image", init_lut)
def lut_recolor(img, lut):
    # a gray image through a colour look-up table (a gather), then a gamma tweak
    rgb = lut[img]
    return np.clip(rgb * 1.1, 0.0, 1.0)


def init_outliers(size, rng):
    h, w = pick(size, (6, 7), (1080, 1920))
    img = rng.standard_normal((h, w)).astype(np.float32)
    img[rng.random((h, w)) < 0.01] = 25.0  # hot pixels
    return (img,)


@program("image", init_outliers)
def clip_hot_pixels(img):
    # outliers beyond 3 sigma clamped in place (masked writes); their count returned
    mu = img.mean()
    sigma = img.std()
    hi = mu + 3 * sigma
    lo = mu - 3 * sigma
    hot = img > hi
    count = np.count_nonzero(hot)
    img[hot] = hi
    img[img < lo] = lo
    return count


def init_linear(size, rng):
    h, w = pick(size, (6, 7), (1080, 1920))
    # float64: NumPy's float32 power is an ulp off for some pixels (Ember's is correctly
    # rounded there), and the conversion to 8 bits then rounds a few of them differently
    img = rng.random((h, w)) * 1.1 - 0.05  # a little out of range
    return img, 2.2


@program("image", init_linear)
def gamma_correct(img, gamma):
    # linear light to display values, 8 bits
    out = np.clip(img, 0.0, 1.0) ** (1.0 / gamma)
    return (out * 255.0 + 0.5).astype(np.uint8)


def init_gray_u8(size, rng):
    h, w = pick(size, (6, 7), (1080, 1920))
    return (rng.integers(20, 200, (h, w)).astype(np.uint8),)


@program("image", init_gray_u8)
def intensity_cdf(img):
    # an exposure check: the 256-bin intensity histogram, its cumulative distribution and
    # the fraction of pixels clipped at either end
    hist, edges = np.histogram(img, bins=256, range=(0, 256))
    cdf = np.cumsum(hist) / img.size
    return cdf, (hist[0] + hist[-1]) / img.size, edges


@program("image", init_gray_u8)
def histogram_equalize(img):
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    lo = cdf[cdf > 0].min()
    lut = (cdf - lo) * 255 // max(int(cdf[-1] - lo), 1)
    return lut[img].astype(np.uint8)


@program("image", init_gray)
def brightest_spot(img):
    # the row and column of the brightest pixel after a 3x3 box blur, done separably (rows,
    # then columns; np.unravel_index of the argmax), and the blurred image's mean
    rows = img[:, :-2] + img[:, 1:-1] + img[:, 2:]
    blurred = (rows[:-2] + rows[1:-1] + rows[2:]) / 9.0
    row, col = np.unravel_index(np.argmax(blurred), blurred.shape)
    return row + 1, col + 1, blurred.mean()
