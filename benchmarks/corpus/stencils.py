"""Stencils: PolyBench's (jacobi-1d/2d, heat-3d, fdtd-2d, seidel-2d) and the weather
stencils NPBench describes (horizontal diffusion with a flux limiter, vertical
advection by a tridiagonal solve along the column)."""

import numpy as np

from benchmarks.corpus import pick, program


def init_jacobi_1d(size, rng):
    n, steps = pick(size, (12, 2), (200_000, 20))
    return rng.random(n), rng.random(n), steps


@program("stencil", init_jacobi_1d, name="jacobi_1d")
def jacobi_1d(A, B, tsteps):
    for _ in range(tsteps):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])


def init_jacobi_2d(size, rng):
    n, steps = pick(size, (10, 2), (700, 10))
    return rng.random((n, n)), rng.random((n, n)), steps


@program("stencil", init_jacobi_2d, name="jacobi_2d")
def jacobi_2d(A, B, tsteps):
    for _ in range(tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


def init_heat_3d(size, rng):
    n, steps = pick(size, (6, 2), (64, 8))
    return rng.random((n, n, n)), rng.random((n, n, n)), steps


@program("stencil", init_heat_3d, name="heat_3d")
def heat_3d(A, B, tsteps):
    for _ in range(tsteps):
        B[1:-1, 1:-1, 1:-1] = (
            0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1])
            + 0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, :-2, 1:-1])
            + 0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, 1:-1, :-2])
            + A[1:-1, 1:-1, 1:-1]
        )
        A[1:-1, 1:-1, 1:-1] = (
            0.125 * (B[2:, 1:-1, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[:-2, 1:-1, 1:-1])
            + 0.125 * (B[1:-1, 2:, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, :-2, 1:-1])
            + 0.125 * (B[1:-1, 1:-1, 2:] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, 1:-1, :-2])
            + B[1:-1, 1:-1, 1:-1]
        )


def init_fdtd_2d(size, rng):
    nx, ny, steps = pick(size, (8, 9, 2), (600, 700, 10))
    ex, ey, hz = (rng.random((nx, ny)) for _ in range(3))
    return ex, ey, hz, rng.random(steps)


@program("stencil", init_fdtd_2d, name="fdtd_2d")
def fdtd_2d(ex, ey, hz, fict):
    for t in range(fict.shape[0]):
        ey[0, :] = fict[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


def init_seidel_2d(size, rng):
    n, steps = pick(size, (8, 2), (200, 2))
    return rng.random((n, n)), steps


@program("stencil", init_seidel_2d, name="seidel_2d")
def seidel_2d(A, tsteps):
    # Gauss-Seidel over rows (each row sees the new row above it), Jacobi within a row
    n = A.shape[0]
    for _ in range(tsteps):
        for i in range(1, n - 1):
            A[i, 1:-1] = (
                A[i - 1, :-2]
                + A[i - 1, 1:-1]
                + A[i - 1, 2:]
                + A[i, :-2]
                + A[i, 1:-1]
                + A[i, 2:]
                + A[i + 1, :-2]
                + A[i + 1, 1:-1]
                + A[i + 1, 2:]
            ) / 9.0


def init_hdiff(size, rng):
    ni, nj, nk = pick(size, (6, 7, 3), (128, 128, 40))
    return rng.random((ni + 4, nj + 4, nk)), np.zeros((ni, nj, nk)), rng.random((ni, nj, nk))


@program("stencil", init_hdiff)
def hdiff(in_field, out_field, coeff):
    # fourth-order horizontal diffusion with a flux limiter (COSMO's hdiff)
    ni, nj, _ = out_field.shape
    lap = 4.0 * in_field[1 : ni + 3, 1 : nj + 3, :] - (
        in_field[2 : ni + 4, 1 : nj + 3, :]
        + in_field[0 : ni + 2, 1 : nj + 3, :]
        + in_field[1 : ni + 3, 2 : nj + 4, :]
        + in_field[1 : ni + 3, 0 : nj + 2, :]
    )
    flx = lap[1 : ni + 2, 1 : nj + 1, :] - lap[0 : ni + 1, 1 : nj + 1, :]
    flx = np.where(flx * (in_field[2 : ni + 3, 2 : nj + 2, :] - in_field[1 : ni + 2, 2 : nj + 2, :]) > 0, 0, flx)
    fly = lap[1 : ni + 1, 1 : nj + 2, :] - lap[1 : ni + 1, 0 : nj + 1, :]
    fly = np.where(fly * (in_field[2 : ni + 2, 2 : nj + 3, :] - in_field[2 : ni + 2, 1 : nj + 2, :]) > 0, 0, fly)
    out_field[:] = in_field[2 : ni + 2, 2 : nj + 2, :] - coeff * (
        flx[1 : ni + 1, :, :] - flx[0:ni, :, :] + fly[:, 1 : nj + 1, :] - fly[:, 0:nj, :]
    )


def init_vadv(size, rng):
    ni, nj, nk = pick(size, (4, 5, 5), (128, 128, 24))
    utens_stage = rng.random((ni, nj, nk))
    u_stage = rng.random((ni, nj, nk))
    wcon = rng.random((ni + 1, nj, nk))
    u_pos = rng.random((ni, nj, nk))
    utens = rng.random((ni, nj, nk))
    return utens_stage, u_stage, wcon, u_pos, utens, 0.3


@program("stencil", init_vadv)
def vadv(utens_stage, u_stage, wcon, u_pos, utens, dtr_stage):
    # implicit vertical advection: a tridiagonal system per column, Thomas algorithm
    ni, nj, nk = utens_stage.shape
    BET_M = 0.5
    BET_P = 0.5
    ccol = np.empty((ni, nj, nk))
    dcol = np.empty((ni, nj, nk))
    data_col = np.empty((ni, nj))

    gcv = 0.25 * (wcon[1:, :, 1] + wcon[:-1, :, 1])
    cs = gcv * BET_M
    ccol[:, :, 0] = gcv * BET_P
    bcol = dtr_stage - ccol[:, :, 0]
    correction_term = -cs * (u_stage[:, :, 1] - u_stage[:, :, 0])
    dcol[:, :, 0] = dtr_stage * u_pos[:, :, 0] + utens[:, :, 0] + utens_stage[:, :, 0] + correction_term
    divided = 1.0 / bcol
    ccol[:, :, 0] = ccol[:, :, 0] * divided
    dcol[:, :, 0] = dcol[:, :, 0] * divided

    for k in range(1, nk - 1):
        gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
        gcv = 0.25 * (wcon[1:, :, k + 1] + wcon[:-1, :, k + 1])
        as_ = gav * BET_M
        cs = gcv * BET_M
        acol = gav * BET_P
        ccol[:, :, k] = gcv * BET_P
        bcol = dtr_stage - acol - ccol[:, :, k]
        correction_term = -as_ * (u_stage[:, :, k - 1] - u_stage[:, :, k]) - cs * (
            u_stage[:, :, k + 1] - u_stage[:, :, k]
        )
        dcol[:, :, k] = dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] + correction_term
        divided = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
        ccol[:, :, k] = ccol[:, :, k] * divided
        dcol[:, :, k] = (dcol[:, :, k] - dcol[:, :, k - 1] * acol) * divided

    k = nk - 1
    gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
    as_ = gav * BET_M
    acol = gav * BET_P
    bcol = dtr_stage - acol
    correction_term = -as_ * (u_stage[:, :, k - 1] - u_stage[:, :, k])
    dcol[:, :, k] = dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] + correction_term
    divided = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
    dcol[:, :, k] = (dcol[:, :, k] - dcol[:, :, k - 1] * acol) * divided

    # back substitution, top to bottom of the column
    data_col[:] = dcol[:, :, k]
    utens_stage[:, :, k] = dtr_stage * (data_col - u_pos[:, :, k])
    for k in range(nk - 2, -1, -1):
        data_col[:] = dcol[:, :, k] - ccol[:, :, k] * data_col
        utens_stage[:, :, k] = dtr_stage * (data_col - u_pos[:, :, k])


def init_laplace(size, rng):
    n, steps = pick(size, (10, 3), (500, 30))
    p = np.zeros((n, n))
    return p, np.linspace(0.0, 1.0, n), steps


@program("stencil", init_laplace, name="laplace_2d")
def laplace_2d(p, right_edge, iters):
    # steady heat plate: fixed boundaries (left 0, right a ramp), Jacobi sweeps
    for _ in range(iters):
        pn = p.copy()
        p[1:-1, 1:-1] = 0.25 * (pn[1:-1, 2:] + pn[1:-1, :-2] + pn[2:, 1:-1] + pn[:-2, 1:-1])
        p[:, 0] = 0.0
        p[:, -1] = right_edge
        p[0, :] = p[1, :]
        p[-1, :] = p[-2, :]
    return p
