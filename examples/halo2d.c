/* SPDX-License-Identifier: BSD-3-Clause */
/* 2-D halo exchange with one-sided puts.
 *
 * A periodic GX x GY grid is cut into px x py blocks, one per rank. Each rank keeps its
 * block with a one-cell halo in a window made by rmp_win_allocate, and runs STEPS Jacobi
 * sweeps of the 5-point stencil. Before each sweep every rank *puts* its boundary cells
 * straight into its four neighbours' halos:
 *
 *   rows    are contiguous: one rmp_put into the neighbour's halo row;
 *   columns are strided: packed into a buffer, put into an "inbox" behind the grid in the
 *           neighbour's window, and unpacked by the neighbour into its halo column.
 *
 * One-sided synchronisation, per sweep:
 *   barrier   every rank has finished reading its halos in the previous sweep, so they
 *             may be overwritten;
 *   put       rmp_put returns when the source buffer may be reused (local completion);
 *   flush     rmp_win_flush(target) returns when the data is in the target's memory;
 *   barrier   every rank has flushed, so every halo is complete.
 *
 * Every rank also computes the whole grid serially and checks its block against it, bit
 * for bit (the same operations in the same order give the same doubles).
 *
 *   rrun -n 4 build/examples/halo2d [STEPS]
 *
 * Exits 0 when the parallel result equals the serial one, 1 otherwise. */
#include <rmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 16 /* interior columns per rank */
#define NY 12 /* interior rows per rank */
#define W (NX + 2)                /* row length with the west and east halo cells */
#define GRID ((NY + 2) * W)       /* doubles in the grid with its halo */
#define INBOX_WEST GRID           /* column from the west neighbour (its east edge) */
#define INBOX_EAST (GRID + NY)    /* column from the east neighbour (its west edge) */
#define WIN_DOUBLES (GRID + 2 * NY)
#define AT(y, x) ((y) * W + (x))  /* index of local cell (row y, column x) */
#define OFF(i) ((size_t)(i) * sizeof(double)) /* byte offset of index i in the window */

static void check(int rc, const char *what)
{
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "halo2d: %s failed: %s\n", what, rmp_strerror(rc));
        rmp_abort(rmp_comm_world(), 1);
    }
}

/* The one place the stencil is written, so the serial and parallel sweeps round alike. */
static double stencil(double north, double south, double west, double east)
{
    return 0.25 * (north + south + west + east);
}

static double initial(int gx, int gy)
{
    return (double)((gx * 7 + gy * 13) % 17);
}

/* The reference: the whole periodic grid, on one rank. */
static double *serial(int gx_n, int gy_n, int steps)
{
    double *u = malloc(sizeof(double) * (size_t)gx_n * (size_t)gy_n);
    double *v = malloc(sizeof(double) * (size_t)gx_n * (size_t)gy_n);
    if (!u || !v)
        return NULL;
    for (int y = 0; y < gy_n; y++)
        for (int x = 0; x < gx_n; x++)
            u[y * gx_n + x] = initial(x, y);
    for (int s = 0; s < steps; s++) {
        for (int y = 0; y < gy_n; y++)
            for (int x = 0; x < gx_n; x++)
                v[y * gx_n + x] = stencil(u[((y + gy_n - 1) % gy_n) * gx_n + x],
                                          u[((y + 1) % gy_n) * gx_n + x],
                                          u[y * gx_n + (x + gx_n - 1) % gx_n],
                                          u[y * gx_n + (x + 1) % gx_n]);
        double *t = u;
        u = v;
        v = t;
    }
    free(v);
    return u;
}

int main(int argc, char **argv)
{
    int rc = rmp_init(&argc, &argv);
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "halo2d: rmp_init: %s\n", rmp_strerror(rc));
        return 1;
    }
    rmp_comm_t world = rmp_comm_world();
    int me = rmp_comm_rank(world), n = rmp_comm_size(world);
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    if (steps < 0)
        steps = 0;

    /* Process grid: py the largest divisor of n not above sqrt(n). */
    int py = 1;
    for (int d = 1; d * d <= n; d++)
        if (n % d == 0)
            py = d;
    int px = n / py, cx = me % px, cy = me / px;
    int north = ((cy + py - 1) % py) * px + cx, south = ((cy + 1) % py) * px + cx;
    int west = cy * px + (cx + px - 1) % px, east = cy * px + (cx + 1) % px;

    /* Collective: every rank gets WIN_DOUBLES doubles that all ranks can put into. */
    double *u;
    rmp_win_t win;
    check(rmp_win_allocate(OFF(WIN_DOUBLES), world, (void **)&u, &win), "rmp_win_allocate");
    memset(u, 0, OFF(WIN_DOUBLES));
    for (int y = 1; y <= NY; y++)
        for (int x = 1; x <= NX; x++)
            u[AT(y, x)] = initial(cx * NX + x - 1, cy * NY + y - 1);
    double fresh[NY][NX], west_col[NY], east_col[NY];

    for (int s = 0; s < steps; s++) {
        /* Neighbours may still read the halos we are about to overwrite. */
        check(rmp_barrier(world), "rmp_barrier");

        /* First interior row -> north neighbour's south halo row, last -> south's north. */
        check(rmp_put(&u[AT(1, 1)], OFF(NX), north, OFF(AT(NY + 1, 1)), win), "rmp_put");
        check(rmp_put(&u[AT(NY, 1)], OFF(NX), south, OFF(AT(0, 1)), win), "rmp_put");
        /* Edge columns, packed, into the neighbours' inboxes. */
        for (int y = 1; y <= NY; y++) {
            west_col[y - 1] = u[AT(y, 1)];
            east_col[y - 1] = u[AT(y, NX)];
        }
        check(rmp_put(west_col, OFF(NY), west, OFF(INBOX_EAST), win), "rmp_put");
        check(rmp_put(east_col, OFF(NY), east, OFF(INBOX_WEST), win), "rmp_put");

        /* Remote completion: after the flushes our data is in the neighbours' memory. */
        const int targets[4] = {north, south, west, east};
        for (int t = 0; t < 4; t++)
            check(rmp_win_flush(targets[t], win), "rmp_win_flush");
        /* After everybody flushed, every halo and inbox holds this sweep's data. */
        check(rmp_barrier(world), "rmp_barrier");

        for (int y = 1; y <= NY; y++) {
            u[AT(y, 0)] = u[INBOX_WEST + y - 1];
            u[AT(y, NX + 1)] = u[INBOX_EAST + y - 1];
        }
        for (int y = 1; y <= NY; y++)
            for (int x = 1; x <= NX; x++)
                fresh[y - 1][x - 1] = stencil(u[AT(y - 1, x)], u[AT(y + 1, x)],
                                              u[AT(y, x - 1)], u[AT(y, x + 1)]);
        for (int y = 1; y <= NY; y++)
            memcpy(&u[AT(y, 1)], fresh[y - 1], OFF(NX));
    }

    /* Check this rank's block against the serial sweep of the whole grid. */
    int gx_n = px * NX, gy_n = py * NY, bad = 0;
    double *ref = serial(gx_n, gy_n, steps);
    if (!ref) {
        fprintf(stderr, "halo2d: out of memory\n");
        rmp_abort(world, 1);
    }
    for (int y = 1; y <= NY; y++) {
        for (int x = 1; x <= NX; x++) {
            int gx = cx * NX + x - 1, gy = cy * NY + y - 1;
            if (u[AT(y, x)] != ref[gy * gx_n + gx]) {
                if (bad++ < 5)
                    fprintf(stderr, "halo2d: rank %d: cell (%d,%d) is %.17g, expected %.17g\n",
                            me, gx, gy, u[AT(y, x)], ref[gy * gx_n + gx]);
            }
        }
    }
    double local_sum = 0;
    for (int y = 1; y <= NY; y++)
        for (int x = 1; x <= NX; x++)
            local_sum += u[AT(y, x)];
    free(ref);

    /* Everybody learns whether any rank saw a wrong cell, so all ranks exit alike. */
    check(rmp_allreduce(RMP_IN_PLACE, &bad, 1, RMP_INT32, RMP_SUM, world), "rmp_allreduce");
    check(rmp_allreduce(RMP_IN_PLACE, &local_sum, 1, RMP_DOUBLE, RMP_SUM, world),
          "rmp_allreduce");
    if (me == 0)
        printf("halo2d: %d ranks as %dx%d, grid %dx%d, %d sweeps, sum %.6f: %s\n", n, px, py,
               gx_n, gy_n, steps, local_sum, bad ? "WRONG" : "ok (bitwise equal to serial)");

    check(rmp_win_free(&win), "rmp_win_free");
    rc = rmp_finalize();
    if (rc != RMP_SUCCESS)
        fprintf(stderr, "halo2d: rmp_finalize: %s\n", rmp_strerror(rc));
    return bad || rc != RMP_SUCCESS ? 1 : 0;
}
