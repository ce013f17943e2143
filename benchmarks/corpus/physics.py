"""Physics: an n-body step, the flow solvers of "12 steps to Navier-Stokes" (Burgers,
2-D convection, cavity and channel flow), the wave equation, Lennard-Jones forces."""

import numpy as np

from benchmarks.corpus import pick, program


def init_nbody(size, rng):
    n, steps = pick(size, (6, 2), (600, 5))
    pos = rng.standard_normal((n, 3))
    vel = rng.standard_normal((n, 3)) * 0.1
    mass = rng.random(n) + 0.5
    return pos, vel, mass, 0.01, 0.1, steps


@program("physics", init_nbody)
def nbody(pos, vel, mass, dt, softening, steps):
    G = 1.0
    for _ in range(steps):
        x = pos[:, 0:1]
        y = pos[:, 1:2]
        z = pos[:, 2:3]
        dx = x.T - x
        dy = y.T - y
        dz = z.T - z
        inv_r3 = (dx**2 + dy**2 + dz**2 + softening**2) ** (-1.5)
        ax = G * (dx * inv_r3) @ mass
        ay = G * (dy * inv_r3) @ mass
        az = G * (dz * inv_r3) @ mass
        vel[:, 0] += ax * dt
        vel[:, 1] += ay * dt
        vel[:, 2] += az * dt
        pos += vel * dt
    kinetic = 0.5 * np.sum(mass * np.sum(vel**2, axis=1))
    return kinetic


def init_burgers(size, rng):
    nx, nt = pick(size, (16, 3), (200_000, 20))
    x = np.linspace(0.0, 2.0 * np.pi, nx)
    u = 4.0 - 2.0 * 0.07 * np.sin(x) / (np.cos(x) + 4.5)
    dx = 2.0 * np.pi / (nx - 1)
    return u, nt, dx, 0.07 * dx


@program("physics", init_burgers, name="burgers_1d")
def burgers_1d(u, nt, dx, nu):
    dt = dx * nu
    for _ in range(nt):
        un = u.copy()
        u[1:-1] = (
            un[1:-1] - un[1:-1] * dt / dx * (un[1:-1] - un[:-2]) + nu * dt / dx**2 * (un[2:] - 2.0 * un[1:-1] + un[:-2])
        )
        u[0] = un[0] - un[0] * dt / dx * (un[0] - un[-2]) + nu * dt / dx**2 * (un[1] - 2.0 * un[0] + un[-2])
        u[-1] = u[0]
    return u


def init_convection(size, rng):
    n, nt = pick(size, (10, 3), (400, 20))
    u = np.ones((n, n))
    v = np.ones((n, n))
    u[n // 4 : n // 2, n // 4 : n // 2] = 2.0
    v[n // 4 : n // 2, n // 4 : n // 2] = 2.0
    dx = 2.0 / (n - 1)
    return u, v, nt, dx, 0.2 * dx


@program("physics", init_convection, name="convection_2d")
def convection_2d(u, v, nt, dx, dt):
    # nonlinear 2-D convection, upwind differences, boundaries held at 1
    for _ in range(nt):
        un = u.copy()
        vn = v.copy()
        u[1:, 1:] = (
            un[1:, 1:]
            - un[1:, 1:] * dt / dx * (un[1:, 1:] - un[1:, :-1])
            - vn[1:, 1:] * dt / dx * (un[1:, 1:] - un[:-1, 1:])
        )
        v[1:, 1:] = (
            vn[1:, 1:]
            - un[1:, 1:] * dt / dx * (vn[1:, 1:] - vn[1:, :-1])
            - vn[1:, 1:] * dt / dx * (vn[1:, 1:] - vn[:-1, 1:])
        )
        u[0, :] = 1.0
        u[-1, :] = 1.0
        u[:, 0] = 1.0
        u[:, -1] = 1.0
        v[0, :] = 1.0
        v[-1, :] = 1.0
        v[:, 0] = 1.0
        v[:, -1] = 1.0


def init_cavity(size, rng):
    n, nt, nit = pick(size, (9, 2, 3), (201, 5, 20))
    dx = 2.0 / (n - 1)
    return np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n)), nt, nit, dx, dx, 0.001, 1.0, 0.1


@program("physics", init_cavity)
def cavity_flow(u, v, p, nt, nit, dx, dy, dt, rho, nu):
    # lid-driven cavity: pressure Poisson sweeps, then the momentum update
    b = np.zeros_like(p)
    for _ in range(nt):
        un = u.copy()
        vn = v.copy()
        b[1:-1, 1:-1] = rho * (
            1.0 / dt * ((u[1:-1, 2:] - u[1:-1, :-2]) / (2.0 * dx) + (v[2:, 1:-1] - v[:-2, 1:-1]) / (2.0 * dy))
            - ((u[1:-1, 2:] - u[1:-1, :-2]) / (2.0 * dx)) ** 2
            - 2.0 * ((u[2:, 1:-1] - u[:-2, 1:-1]) / (2.0 * dy) * (v[1:-1, 2:] - v[1:-1, :-2]) / (2.0 * dx))
            - ((v[2:, 1:-1] - v[:-2, 1:-1]) / (2.0 * dy)) ** 2
        )
        for _ in range(nit):
            pn = p.copy()
            p[1:-1, 1:-1] = ((pn[1:-1, 2:] + pn[1:-1, :-2]) * dy**2 + (pn[2:, 1:-1] + pn[:-2, 1:-1]) * dx**2) / (
                2.0 * (dx**2 + dy**2)
            ) - dx**2 * dy**2 / (2.0 * (dx**2 + dy**2)) * b[1:-1, 1:-1]
            p[:, -1] = p[:, -2]
            p[0, :] = p[1, :]
            p[:, 0] = p[:, 1]
            p[-1, :] = 0.0
        u[1:-1, 1:-1] = (
            un[1:-1, 1:-1]
            - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, :-2])
            - vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[:-2, 1:-1])
            - dt / (2.0 * rho * dx) * (p[1:-1, 2:] - p[1:-1, :-2])
            + nu
            * (
                dt / dx**2 * (un[1:-1, 2:] - 2.0 * un[1:-1, 1:-1] + un[1:-1, :-2])
                + dt / dy**2 * (un[2:, 1:-1] - 2.0 * un[1:-1, 1:-1] + un[:-2, 1:-1])
            )
        )
        v[1:-1, 1:-1] = (
            vn[1:-1, 1:-1]
            - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, :-2])
            - vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[:-2, 1:-1])
            - dt / (2.0 * rho * dy) * (p[2:, 1:-1] - p[:-2, 1:-1])
            + nu
            * (
                dt / dx**2 * (vn[1:-1, 2:] - 2.0 * vn[1:-1, 1:-1] + vn[1:-1, :-2])
                + dt / dy**2 * (vn[2:, 1:-1] - 2.0 * vn[1:-1, 1:-1] + vn[:-2, 1:-1])
            )
        )
        u[0, :] = 0.0
        u[:, 0] = 0.0
        u[:, -1] = 0.0
        u[-1, :] = 1.0  # the moving lid
        v[0, :] = 0.0
        v[-1, :] = 0.0
        v[:, 0] = 0.0
        v[:, -1] = 0.0


def init_channel(size, rng):
    ny, nx, nt, nit = pick(size, (8, 10, 2, 3), (101, 201, 5, 20))
    dx = 2.0 / (nx - 1)
    dy = 2.0 / (ny - 1)
    return np.zeros((ny, nx)), np.zeros((ny, nx)), np.zeros((ny, nx)), nt, nit, dx, dy, 0.001, 1.0, 0.1, 1.0


@program("physics", init_channel)
def channel_flow(u, v, p, nt, nit, dx, dy, dt, rho, nu, F):
    # pressure-driven channel: periodic in x, no-slip walls in y, a body force F
    for _ in range(nt):
        un = u.copy()
        vn = v.copy()
        b = np.zeros_like(p)
        dudx = (u[1:-1, 2:] - u[1:-1, :-2]) / (2.0 * dx)
        dvdy = (v[2:, 1:-1] - v[:-2, 1:-1]) / (2.0 * dy)
        b[1:-1, 1:-1] = rho * (
            (dudx + dvdy) / dt
            - dudx**2
            - 2.0 * ((u[2:, 1:-1] - u[:-2, 1:-1]) / (2.0 * dy) * (v[1:-1, 2:] - v[1:-1, :-2]) / (2.0 * dx))
            - dvdy**2
        )
        # periodic column at x = 2 (wraps to x = 0) and at x = 0 (wraps to the last)
        b[1:-1, -1] = rho * (
            ((u[1:-1, 0] - u[1:-1, -2]) / (2.0 * dx) + (v[2:, -1] - v[:-2, -1]) / (2.0 * dy)) / dt
            - ((u[1:-1, 0] - u[1:-1, -2]) / (2.0 * dx)) ** 2
            - 2.0 * ((u[2:, -1] - u[:-2, -1]) / (2.0 * dy) * (v[1:-1, 0] - v[1:-1, -2]) / (2.0 * dx))
            - ((v[2:, -1] - v[:-2, -1]) / (2.0 * dy)) ** 2
        )
        b[1:-1, 0] = rho * (
            ((u[1:-1, 1] - u[1:-1, -1]) / (2.0 * dx) + (v[2:, 0] - v[:-2, 0]) / (2.0 * dy)) / dt
            - ((u[1:-1, 1] - u[1:-1, -1]) / (2.0 * dx)) ** 2
            - 2.0 * ((u[2:, 0] - u[:-2, 0]) / (2.0 * dy) * (v[1:-1, 1] - v[1:-1, -1]) / (2.0 * dx))
            - ((v[2:, 0] - v[:-2, 0]) / (2.0 * dy)) ** 2
        )
        for _ in range(nit):
            pn = p.copy()
            p[1:-1, 1:-1] = ((pn[1:-1, 2:] + pn[1:-1, :-2]) * dy**2 + (pn[2:, 1:-1] + pn[:-2, 1:-1]) * dx**2) / (
                2.0 * (dx**2 + dy**2)
            ) - dx**2 * dy**2 / (2.0 * (dx**2 + dy**2)) * b[1:-1, 1:-1]
            p[1:-1, -1] = ((pn[1:-1, 0] + pn[1:-1, -2]) * dy**2 + (pn[2:, -1] + pn[:-2, -1]) * dx**2) / (
                2.0 * (dx**2 + dy**2)
            ) - dx**2 * dy**2 / (2.0 * (dx**2 + dy**2)) * b[1:-1, -1]
            p[1:-1, 0] = ((pn[1:-1, 1] + pn[1:-1, -1]) * dy**2 + (pn[2:, 0] + pn[:-2, 0]) * dx**2) / (
                2.0 * (dx**2 + dy**2)
            ) - dx**2 * dy**2 / (2.0 * (dx**2 + dy**2)) * b[1:-1, 0]
            p[-1, :] = p[-2, :]
            p[0, :] = p[1, :]
        u[1:-1, 1:-1] = (
            un[1:-1, 1:-1]
            - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, :-2])
            - vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[:-2, 1:-1])
            - dt / (2.0 * rho * dx) * (p[1:-1, 2:] - p[1:-1, :-2])
            + nu
            * (
                dt / dx**2 * (un[1:-1, 2:] - 2.0 * un[1:-1, 1:-1] + un[1:-1, :-2])
                + dt / dy**2 * (un[2:, 1:-1] - 2.0 * un[1:-1, 1:-1] + un[:-2, 1:-1])
            )
            + F * dt
        )
        v[1:-1, 1:-1] = (
            vn[1:-1, 1:-1]
            - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, :-2])
            - vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[:-2, 1:-1])
            - dt / (2.0 * rho * dy) * (p[2:, 1:-1] - p[:-2, 1:-1])
            + nu
            * (
                dt / dx**2 * (vn[1:-1, 2:] - 2.0 * vn[1:-1, 1:-1] + vn[1:-1, :-2])
                + dt / dy**2 * (vn[2:, 1:-1] - 2.0 * vn[1:-1, 1:-1] + vn[:-2, 1:-1])
            )
        )
        # periodic columns of u, v are left to the next step's differences; walls:
        u[0, :] = 0.0
        u[-1, :] = 0.0
        v[0, :] = 0.0
        v[-1, :] = 0.0
    return np.sum(u) / u.size


def init_wave(size, rng):
    n, steps = pick(size, (10, 3), (600, 20))
    x = np.linspace(-1.0, 1.0, n)
    u = np.exp(-20.0 * (x[:, None] ** 2 + x[None, :] ** 2))
    return u, u.copy(), 0.25, steps


@program("physics", init_wave, name="wave_2d")
def wave_2d(u, u_prev, c2, steps):
    # leapfrog for u_tt = c^2 (u_xx + u_yy), fixed (zero) edges; c2 = (c dt / dx)^2
    u_next = np.zeros_like(u)
    for _ in range(steps):
        u_next[1:-1, 1:-1] = (
            2.0 * u[1:-1, 1:-1]
            - u_prev[1:-1, 1:-1]
            + c2 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * u[1:-1, 1:-1])
        )
        u_prev[...] = u
        u[...] = u_next
    return np.max(np.abs(u))


def init_lj(size, rng):
    n = pick(size, 8, 700)
    side = int(np.ceil(n ** (1.0 / 3.0)))
    grid = np.stack(np.meshgrid(*(np.arange(side),) * 3, indexing="ij"), axis=-1).reshape(-1, 3)[:n]
    return (grid * 1.2 + rng.random((n, 3)) * 0.1).astype(np.float64), 1.0, 1.0


@program("physics", init_lj, name="lennard_jones")
def lennard_jones(pos, epsilon, sigma):
    n = pos.shape[0]
    d = pos[:, None, :] - pos[None, :, :]
    r2 = np.sum(d * d, axis=-1) + np.eye(n)  # the 1 on the diagonal keeps 1/r finite
    inv6 = (sigma**2 / r2) ** 3
    inv6 = inv6 * (1.0 - np.eye(n))
    energy = 2.0 * epsilon * np.sum(inv6 * inv6 - inv6)
    coef = 24.0 * epsilon * (2.0 * inv6 * inv6 - inv6) / r2
    forces = np.sum(coef[:, :, None] * d, axis=1)
    return energy, forces
