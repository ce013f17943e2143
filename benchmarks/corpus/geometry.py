"""Geometry: great-circle distances (arctan2 and haversine forms), pairwise
Euclidean distances (broadcast and Gram forms), polygon areas by the shoelace formula."""

import numpy as np

from benchmarks.corpus import pick, program


def init_points(size, rng):
    n = pick(size, 20, 500_000)
    lat = np.radians(rng.uniform(-90.0, 90.0, (2, n)))
    lon = np.radians(rng.uniform(-180.0, 180.0, (2, n)))
    return lat[0], lon[0], lat[1], lon[1]


@program("geometry", init_points)
def arc_distance(theta_1, phi_1, theta_2, phi_2):
    temp = np.sin((theta_2 - theta_1) / 2) ** 2 + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2) ** 2
    return 2 * np.arctan2(np.sqrt(temp), np.sqrt(1 - temp))


def init_cities(size, rng):
    n, m = pick(size, (5, 4), (2000, 500))
    return (
        rng.uniform(-90.0, 90.0, n),
        rng.uniform(-180.0, 180.0, n),
        rng.uniform(-90.0, 90.0, m),
        rng.uniform(-180.0, 180.0, m),
    )


@program("geometry", init_cities)
def haversine_matrix(lat1, lon1, lat2, lon2):
    # km between every pair of two sets of (degrees) coordinates
    R = 6371.0
    lat1 = np.radians(lat1)[:, None]
    lon1 = np.radians(lon1)[:, None]
    lat2 = np.radians(lat2)[None, :]
    lon2 = np.radians(lon2)[None, :]
    a = np.sin((lat2 - lat1) / 2.0) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2.0) ** 2
    return 2.0 * R * np.arcsin(np.sqrt(a))


def init_cloud(size, rng):
    n, d = pick(size, (7, 3), (1000, 3))
    return (rng.standard_normal((n, d)),)


@program("geometry", init_cloud)
def pairwise_distances(X):
    diff = X[:, None, :] - X[None, :, :]
    return np.sqrt((diff**2).sum(axis=-1))


def init_cloud32(size, rng):
    n, d = pick(size, (7, 5), (3000, 64))
    return (rng.standard_normal((n, d)).astype(np.float32),)


@program("geometry", init_cloud32)
def pairwise_gram(X):
    # squared distances by |x|^2 + |y|^2 - 2 x.y (their square roots near 0 are only
    # as good as the cancellation: float32 rounding noise of ~1e-5 becomes ~3e-3)
    sq = (X * X).sum(axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (X @ X.T)
    np.maximum(d2, 0.0, out=d2)
    return d2


def init_polygons(size, rng):
    m, k = pick(size, (3, 5), (100_000, 16))
    angles = np.sort(rng.uniform(0.0, 2.0 * np.pi, (m, k)), axis=1)
    r = rng.uniform(0.5, 1.5, (m, k))
    return r * np.cos(angles), r * np.sin(angles)


@program("geometry", init_polygons)
def shoelace(x, y):
    # area of each polygon (one per row, vertices in order)
    return 0.5 * np.abs(np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1))


def init_boxes(size, rng):
    n = pick(size, 6, 1500)
    lo = rng.random((n, 2)) * 10.0
    return np.concatenate([lo, lo + rng.random((n, 2)) + 0.1], axis=1)


@program("geometry", lambda size, rng: (init_boxes(size, rng),))
def box_iou(boxes):
    # intersection over union of every pair of axis-aligned boxes (x0, y0, x1, y1)
    x0 = np.maximum(boxes[:, None, 0], boxes[None, :, 0])
    y0 = np.maximum(boxes[:, None, 1], boxes[None, :, 1])
    x1 = np.minimum(boxes[:, None, 2], boxes[None, :, 2])
    y1 = np.minimum(boxes[:, None, 3], boxes[None, :, 3])
    inter = np.clip(x1 - x0, 0.0, None) * np.clip(y1 - y0, 0.0, None)
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return inter / (area[:, None] + area[None, :] - inter)


def init_mesh(size, rng):
    vertices, faces = pick(size, (12, 10), (100_000, 200_000))
    return rng.standard_normal((vertices, 3)), rng.integers(0, vertices, (faces, 3))


@program("geometry", init_mesh)
def mesh_normals(vertices, faces):
    # unit normals and areas of a triangle mesh's faces (np.cross of two edges), and the
    # mesh's total area
    a, b, c = vertices[faces[:, 0]], vertices[faces[:, 1]], vertices[faces[:, 2]]
    n = np.cross(b - a, c - a)
    length = np.sqrt(np.sum(n * n, axis=1))
    return n / np.maximum(length, 1e-30)[:, None], 0.5 * length, 0.5 * length.sum()
