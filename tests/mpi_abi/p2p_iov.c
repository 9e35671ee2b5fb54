/* SPDX-License-Identifier: BSD-3-Clause */
/* Non-contiguous messages by straight copies (rmp_layout_t.segments, docs/protocols.md
 * "Layouts"): on shm with cross-memory attach, a derived datatype with long blocks moves
 * between the two processes' memory without packing, either side strided or both.
 * Every case checks the receive buffer byte for byte against MPI_Pack/MPI_Unpack of the
 * same data (holes untouched), and the MPI_T counter rmp_direct_bytes on each side: the
 * bytes it must have moved straight ("direct" argument: shm with attach), or none at all
 * (no argument: tcp, shm without attach, where everything is packed). 2 ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "check.h"

static int rank;
static int expect_direct;
static MPI_T_pvar_session pv_session;
static MPI_T_pvar_handle pv_handle;

static unsigned long long direct_bytes(void)
{
    unsigned long long v = 0;
    CHECK(MPI_T_pvar_read(pv_session, pv_handle, &v) == MPI_SUCCESS, "pvar read");
    return v;
}

static void pvar_open(void)
{
    int provided, idx, count;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
    CHECK(MPI_T_pvar_get_index("rmp_direct_bytes", MPI_T_PVAR_CLASS_COUNTER, &idx) ==
              MPI_SUCCESS,
          "no pvar rmp_direct_bytes");
    CHECK(MPI_T_pvar_session_create(&pv_session) == MPI_SUCCESS, "pvar session");
    CHECK(MPI_T_pvar_handle_alloc(pv_session, idx, NULL, &pv_handle, &count) == MPI_SUCCESS,
          "pvar handle");
}

/* One shape: count blocks of blocklen ints every stride ints (vector), or the indexed
 * blocks of lens/disps; NULL type: contiguous ints. */
typedef struct shape {
    const char *name;
    MPI_Datatype t; /* committed; MPI_DATATYPE_NULL: n contiguous ints */
    int n;          /* ints in the message */
    size_t span;    /* ints the buffer needs */
} shape_t;

static shape_t vec(const char *name, int count, int blocklen, int stride)
{
    shape_t s = {name, MPI_DATATYPE_NULL, count * blocklen, (size_t)count * (size_t)stride};
    MPI_Type_vector(count, blocklen, stride, MPI_INT, &s.t);
    MPI_Type_commit(&s.t);
    return s;
}

static shape_t contig(int n)
{
    shape_t s = {"contiguous", MPI_DATATYPE_NULL, n, (size_t)n};
    return s;
}

static shape_t idx(const char *name, int nb, const int *lens, const int *disps)
{
    shape_t s = {name, MPI_DATATYPE_NULL, 0, 0};
    for (int i = 0; i < nb; i++) {
        s.n += lens[i];
        if ((size_t)(disps[i] + lens[i]) > s.span)
            s.span = (size_t)(disps[i] + lens[i]);
    }
    MPI_Type_indexed(nb, lens, disps, MPI_INT, &s.t);
    MPI_Type_commit(&s.t);
    return s;
}

static void shape_free(shape_t *s)
{
    if (s->t != MPI_DATATYPE_NULL)
        MPI_Type_free(&s->t);
}

static MPI_Datatype ty(const shape_t *s, int *count)
{
    *count = s->t == MPI_DATATYPE_NULL ? s->n : 1;
    return s->t == MPI_DATATYPE_NULL ? MPI_INT : s->t;
}

static void fill_src(int *b, size_t span)
{
    for (size_t i = 0; i < span; i++)
        b[i] = (int)(i * 7 + 1);
}

/* What the receive buffer must hold: the sender's stream unpacked by MPI_Unpack into
 * a buffer of -2 (the oracle is rmp's own, separately tested, pack engine). */
static int *expected(const shape_t *snd, const shape_t *rcv, size_t bytes)
{
    int sc, rc, pos = 0;
    MPI_Datatype st = ty(snd, &sc), rt = ty(rcv, &rc);
    int *src = malloc(snd->span * sizeof(int)), *out = malloc(rcv->span * sizeof(int));
    char *pk = malloc((size_t)snd->n * sizeof(int));
    CHECK(src && out && pk, "no memory");
    fill_src(src, snd->span);
    for (size_t i = 0; i < rcv->span; i++)
        out[i] = -2;
    MPI_Pack(src, sc, st, pk, snd->n * (int)sizeof(int), &pos, MPI_COMM_SELF);
    /* Only the bytes that fit: unpack into a type as long as the receive's prefix. */
    pos = 0;
    if (bytes == (size_t)rcv->n * sizeof(int)) {
        MPI_Unpack(pk, snd->n * (int)sizeof(int), &pos, out, rc, rt, MPI_COMM_SELF);
    } else { /* truncated: the first bytes/4 ints of the receive type, one by one */
        int *tmp = malloc((size_t)rcv->n * sizeof(int));
        int *idxs = malloc(rcv->span * sizeof(int));
        for (size_t i = 0; i < rcv->span; i++)
            idxs[i] = (int)i;
        int q = 0;
        MPI_Pack(idxs, rc, rt, tmp, rcv->n * (int)sizeof(int), &q, MPI_COMM_SELF);
        for (size_t k = 0; k < bytes / sizeof(int); k++)
            memcpy(&out[tmp[k]], pk + k * sizeof(int), sizeof(int));
        free(tmp);
        free(idxs);
    }
    free(src);
    free(pk);
    return out;
}

/* Send snd (rank 0) into rcv (rank 1), the receive posted first or (late) after the
 * message's announcement arrived. want_s/want_r: must the sender / receiver count the
 * message's bytes as moved straight (with "direct"; without it nothing may be). */
static void run(const char *what, const shape_t *snd, const shape_t *rcv, int late, int want_s,
                int want_r)
{
    size_t sbytes = (size_t)snd->n * sizeof(int), rbytes = (size_t)rcv->n * sizeof(int);
    size_t bytes = sbytes < rbytes ? sbytes : rbytes;
    int sc, rc;
    MPI_Datatype st = ty(snd, &sc), rt = ty(rcv, &rc);
    unsigned long long before = direct_bytes();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int *src = malloc(snd->span * sizeof(int));
        CHECK(src, "no memory");
        fill_src(src, snd->span);
        int err = MPI_Send(src, sc, st, 1, 7, MPI_COMM_WORLD);
        CHECK(err == MPI_SUCCESS, "%s: send %d", what, err);
        free(src);
    } else if (rank == 1) {
        int *dst = malloc(rcv->span * sizeof(int));
        CHECK(dst, "no memory");
        for (size_t i = 0; i < rcv->span; i++)
            dst[i] = -2;
        MPI_Status s;
        if (late) { /* the RTS is queued as unexpected before the receive is posted */
            int flag = 0;
            while (!flag)
                MPI_Iprobe(0, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        }
        int err = MPI_Recv(dst, rc, rt, 0, 7, MPI_COMM_WORLD, &s);
        int cls = MPI_SUCCESS;
        MPI_Error_class(err, &cls);
        CHECK(cls == (sbytes > rbytes ? MPI_ERR_TRUNCATE : MPI_SUCCESS), "%s: receive %d", what,
              cls);
        int got;
        MPI_Get_count(&s, MPI_BYTE, &got);
        CHECK((size_t)got == bytes, "%s: %d bytes received, not %zu", what, got, bytes);
        int *ref = expected(snd, rcv, bytes);
        for (size_t i = 0; i < rcv->span; i++)
            CHECK(dst[i] == ref[i], "%s: int %zu of the receive buffer is %d, not %d", what, i,
                  dst[i], ref[i]);
        free(ref);
        free(dst);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned long long moved = direct_bytes() - before;
    int want = rank == 0 ? want_s : rank == 1 ? want_r : 0;
    if (expect_direct && want)
        CHECK(moved >= bytes, "%s: rank %d moved %llu of %zu bytes straight", what, rank, moved,
              bytes);
    else
        CHECK(moved == 0, "%s: rank %d moved %llu bytes straight, expected none", what, rank,
              moved);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    expect_direct = argc > 1 && strcmp(argv[1], "direct") == 0;
    pvar_open();

    const int big = 16384; /* ints: 64 KiB blocks */
    shape_t c4m = contig(1 << 20);                           /* 4 MiB */
    shape_t v64 = vec("64 KiB blocks", 64, big, 2 * big);    /* 4 MiB */
    shape_t v32 = vec("32 KiB blocks", 128, big / 2, big);   /* 4 MiB, other gaps */
    shape_t v1k = vec("1 KiB blocks", 4096, 256, 384);       /* 4 MiB */
    shape_t v4 = vec("4-byte blocks", 1 << 20, 1, 2);        /* 4 MiB, OSU's vect */
    shape_t small = vec("64 KiB blocks, 192 KiB", 3, big, 2 * big); /* one piece */
    shape_t c192k = contig(3 * big);
    shape_t half = vec("64 KiB blocks, 2 MiB", 32, big, 3 * big);
    /* Zero-length blocks, and blocks that overlap (a send may read memory twice). */
    const int ol[] = {big, 0, big, 0, 2 * big, big / 2};
    const int od[] = {0, 5000, big / 2, 9, 3 * big, 6 * big};
    shape_t ovl = idx("overlapping and empty blocks", 6, ol, od);
    shape_t c_ovl = contig(ovl.n);
    const int zl[] = {0, big, 0, 2 * big, 0, big + big / 2, 0};
    const int zd[] = {0, 0, 3, 2 * big, 5 * big, 8 * big, 12 * big};
    shape_t zer = idx("empty blocks", 7, zl, zd);
    shape_t c_zer = contig(zer.n);

    for (int late = 0; late < 2; late++) {
        run(late ? "contiguous -> strided, late" : "contiguous -> strided", &c4m, &v64, late, 0,
            1);
        run(late ? "strided -> contiguous, late" : "strided -> contiguous", &v64, &c4m, late, 1,
            0);
        run(late ? "strided -> strided, late" : "strided -> strided", &v64, &v32, late, 1, 1);
    }
    /* The receiver's blocks are too short to be written remotely: the sender copies its
     * segments into the receiver's bounce buffer, which unpacks. */
    run("64 KiB blocks -> 1 KiB blocks", &v64, &v1k, 0, 1, 0);
    /* ... and the other way: the sender's are too short, so it packs, and copies from its
     * bounce buffer straight into the receiver's blocks. */
    run("1 KiB blocks -> 64 KiB blocks", &v1k, &v64, 0, 0, 1);
    /* OSU's vect:8:4 pattern: too short for straight copies, packed on both sides. */
    run("4-byte blocks -> 4-byte blocks", &v4, &v4, 0, 0, 0);
    /* A layout of one piece is packed at once and read as contiguous data. */
    run("192 KiB strided -> strided", &small, &small, 0, 0, 1);
    run("192 KiB contiguous -> strided", &c192k, &small, 0, 0, 1);
    run(ovl.name, &ovl, &c_ovl, 0, 1, 0);
    run("contiguous -> empty blocks", &c_zer, &zer, 0, 0, 1);
    run("empty blocks -> strided", &zer, &zer, 1, 1, 1);
    /* Truncation: only what fits moves, the rest of the buffer stays as it was. */
    run("truncated contiguous -> strided", &c4m, &half, 0, 0, 1);
    run("truncated strided -> strided", &v64, &half, 0, 1, 1);

    shape_t *all[] = {&c4m, &v64, &v32, &v1k, &v4, &small, &c192k, &half, &ovl, &c_ovl,
                      &zer, &c_zer};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        shape_free(all[i]);
    MPI_T_pvar_handle_free(pv_session, &pv_handle);
    MPI_T_pvar_session_free(&pv_session);
    MPI_T_finalize();
    if (rank == 0)
        printf("p2p_iov: all cases passed (%s)\n", expect_direct ? "straight copies" : "packed");
    MPI_Finalize();
    return 0;
}
