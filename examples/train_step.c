/* SPDX-License-Identifier: BSD-3-Clause */
/* One step of data-parallel training.
 *
 * Every rank holds the same model: a float32 parameter tensor and a bfloat16 one (as a
 * mixed-precision model would). Each rank computes gradients on its own shard of the
 * data -- here a deterministic fake, standing in for the backward pass -- then:
 *
 *   1. rmp_allreduce(RMP_IN_PLACE, grad, ..., RMP_SUM): every rank gets the sum;
 *   2. divides by the number of ranks (the mean gradient);
 *   3. applies an SGD update to its copy of the parameters.
 *
 * Data parallelism only works if the replicas stay identical, so the program checks that
 * every rank ends up with bitwise-identical parameters (rmp guarantees bitwise-identical
 * allreduce results on all ranks), and that the summed gradients are close to a serial
 * sum (reduction order may differ, so a tolerance, not equality).
 *
 * bfloat16 is the upper half of an IEEE float32; rmp takes it as uint16_t and reduces in
 * float, rounding once per step. The conversions are written out below.
 *
 *   rrun -n 4 build/examples/train_step
 *
 * Exits 0 when the replicas agree and the gradients are right, 1 otherwise. */
#include <float.h>
#include <math.h>
#include <rmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NF (1 << 18) /* float32 parameters: 1 MiB of gradient */
#define NB (1 << 16) /* bfloat16 parameters: 128 KiB of gradient */
#define LR 0.01f     /* learning rate */

static void check(int rc, const char *what)
{
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "train_step: %s failed: %s\n", what, rmp_strerror(rc));
        rmp_abort(rmp_comm_world(), 1);
    }
}

/* bfloat16 -> float: the 16 bits become the top half of the float, exactly. */
static float bf16_to_float(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* float -> bfloat16, round to nearest, ties to even (what ML frameworks do). */
static uint16_t float_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep it a (quiet) NaN */
        return (uint16_t)((u >> 16) | 0x0040u);
    u += 0x7fffu + ((u >> 16) & 1u); /* add half an ulp of bf16, ties to even */
    return (uint16_t)(u >> 16);
}

/* A well-mixed 32-bit hash (lowbias32), the source of every fake number. */
static uint32_t mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* A value in [-1, 1) with 24 significant bits: exact in float. */
static float fake(uint32_t seed, uint32_t i)
{
    return (float)(mix(seed * 0x9e3779b9u + i) >> 8) * 0x1p-23f - 1.0f;
}

/* The "backward pass" of rank r: its gradient for parameter i of tensor t. */
static float fake_grad(int r, int t, uint32_t i)
{
    return 0.01f * fake((uint32_t)(1000 + 2 * r + t), i);
}

/* FNV-1a over the bytes: a fingerprint of a replica's parameters. */
static uint64_t fnv1a(const void *p, size_t len, uint64_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

int main(int argc, char **argv)
{
    int rc = rmp_init(&argc, &argv);
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "train_step: rmp_init: %s\n", rmp_strerror(rc));
        return 1;
    }
    rmp_comm_t world = rmp_comm_world();
    int me = rmp_comm_rank(world), n = rmp_comm_size(world);

    float *w = malloc(NF * sizeof *w), *gf = malloc(NF * sizeof *gf);
    uint16_t *wb = malloc(NB * sizeof *wb), *gb = malloc(NB * sizeof *gb);
    if (!w || !gf || !wb || !gb) {
        fprintf(stderr, "train_step: out of memory\n");
        rmp_abort(world, 1);
    }
    /* Same initial parameters on every rank (same seed, no rank in it). */
    for (uint32_t i = 0; i < NF; i++)
        w[i] = fake(1, i);
    for (uint32_t i = 0; i < NB; i++)
        wb[i] = float_to_bf16(fake(2, i));

    /* Backward pass: this rank's gradients. */
    for (uint32_t i = 0; i < NF; i++)
        gf[i] = fake_grad(me, 0, i);
    for (uint32_t i = 0; i < NB; i++)
        gb[i] = float_to_bf16(fake_grad(me, 1, i));

    /* The gradient allreduce: in place, every rank gets the same sum. */
    check(rmp_barrier(world), "rmp_barrier");
    double t0 = rmp_wtime();
    check(rmp_allreduce(RMP_IN_PLACE, gf, NF, RMP_FLOAT, RMP_SUM, world), "rmp_allreduce");
    check(rmp_allreduce(RMP_IN_PLACE, gb, NB, RMP_BFLOAT16, RMP_SUM, world), "rmp_allreduce");
    double t_allreduce = rmp_wtime() - t0;

    /* Is the sum right? A serial sum over all ranks' fake gradients, with a tolerance
     * for the order of the additions: n roundings of at most half an ulp of the
     * magnitudes involved (float: 2^-24, bfloat16 rounded every step: 2^-8). */
    int bad = 0;
    for (uint32_t i = 0; i < NF && bad < 5; i++) {
        float ref = 0, mag = 0;
        for (int r = 0; r < n; r++) {
            ref += fake_grad(r, 0, i);
            mag += fabsf(fake_grad(r, 0, i));
        }
        if (fabsf(gf[i] - ref) > 2.0f * (float)n * FLT_EPSILON * mag) {
            fprintf(stderr, "train_step: rank %d: float gradient %u is %g, serial sum %g\n", me,
                    i, gf[i], ref);
            bad++;
        }
    }
    for (uint32_t i = 0; i < NB && bad < 5; i++) {
        float ref = 0, mag = 0;
        for (int r = 0; r < n; r++) {
            float g = bf16_to_float(float_to_bf16(fake_grad(r, 1, i)));
            ref += g;
            mag += fabsf(g);
        }
        if (fabsf(bf16_to_float(gb[i]) - ref) > (float)n * 0x1p-8f * mag) {
            fprintf(stderr, "train_step: rank %d: bf16 gradient %u is %g, serial sum %g\n", me,
                    i, bf16_to_float(gb[i]), ref);
            bad++;
        }
    }

    /* Mean gradient and SGD update. bfloat16: compute in float, round once. */
    for (uint32_t i = 0; i < NF; i++)
        w[i] -= LR * (gf[i] / (float)n);
    for (uint32_t i = 0; i < NB; i++) {
        float g = bf16_to_float(gb[i]) / (float)n;
        wb[i] = float_to_bf16(bf16_to_float(wb[i]) - LR * g);
    }

    /* Are the replicas still identical? Gather every rank's fingerprint. */
    uint64_t mine = fnv1a(wb, NB * sizeof *wb, fnv1a(w, NF * sizeof *w, 0xcbf29ce484222325ull));
    uint64_t *all = malloc((size_t)n * sizeof *all);
    if (!all)
        rmp_abort(world, 1);
    check(rmp_allgather(&mine, all, 1, RMP_UINT64, world), "rmp_allgather");
    for (int r = 0; r < n; r++) {
        if (all[r] != all[0]) {
            if (me == 0)
                fprintf(stderr, "train_step: rank %d's parameters differ from rank 0's "
                                "(%016llx vs %016llx)\n",
                        r, (unsigned long long)all[r], (unsigned long long)all[0]);
            bad++;
        }
    }
    check(rmp_allreduce(RMP_IN_PLACE, &bad, 1, RMP_INT32, RMP_SUM, world), "rmp_allreduce");
    check(rmp_allreduce(RMP_IN_PLACE, &t_allreduce, 1, RMP_DOUBLE, RMP_MAX, world),
          "rmp_allreduce");
    if (me == 0)
        printf("train_step: %d ranks, %d float + %d bfloat16 gradients, allreduce %.3f ms, "
               "parameters %016llx on every rank: %s\n",
               n, NF, NB, t_allreduce * 1e3, (unsigned long long)all[0],
               bad ? "WRONG" : "ok (replicas bitwise identical)");

    free(all);
    free(gb);
    free(wb);
    free(gf);
    free(w);
    rc = rmp_finalize();
    if (rc != RMP_SUCCESS)
        fprintf(stderr, "train_step: rmp_finalize: %s\n", rmp_strerror(rc));
    return bad || rc != RMP_SUCCESS ? 1 : 0;
}
