/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI reference for rmp_latency / rmp_bw / rmp_bibw: -t latency|bw|bibw, same method and
 * output (OSU style). Ranks other than 0 and 1 only wait in the barriers. */
#include "bench_mpi.h"

#define TAG_DATA 1
#define TAG_ACK 2
#define TAG_CHECK 3
#define NCHECK 2

enum { T_LAT, T_BW, T_BIBW };
static const char *const type_names[] = {"latency", "bw", "bibw"};

static int check_status(MPI_Status *st, size_t size, int source)
{
    int count = -1;
    MPI_Get_count(st, MPI_CHAR, &count);
    return count == (int)size && st->MPI_SOURCE == source;
}

static void validate_lat(bench_mpi_t *b, char *sbuf, char *rbuf, size_t size)
{
    MPI_Status st;
    uint32_t s0 = bench_seed(size, 0), s1 = bench_seed(size, 1);
    long bad;
    memset(rbuf, 0, size);
    if (b->rank == 0) {
        bench_fill(sbuf, size, s0);
        MCK(MPI_Send(sbuf, (int)size, MPI_CHAR, 1, TAG_CHECK, MPI_COMM_WORLD));
        MCK(MPI_Recv(rbuf, (int)size, MPI_CHAR, 1, TAG_CHECK, MPI_COMM_WORLD, &st));
        if (!check_status(&st, size, 1))
            bench_mpi_bad_data("status of echoed message", size, 0);
        if ((bad = bench_check(rbuf, size, s1)) >= 0)
            bench_mpi_bad_data("echoed message", size, bad);
    } else {
        MCK(MPI_Recv(rbuf, (int)size, MPI_CHAR, 0, TAG_CHECK, MPI_COMM_WORLD, &st));
        if (!check_status(&st, size, 0))
            bench_mpi_bad_data("status of ping message", size, 0);
        if ((bad = bench_check(rbuf, size, s0)) >= 0)
            bench_mpi_bad_data("ping message", size, bad);
        bench_fill(sbuf, size, s1);
        MCK(MPI_Send(sbuf, (int)size, MPI_CHAR, 0, TAG_CHECK, MPI_COMM_WORLD));
    }
}

/* Both bw (rank 0 -> 1 only) and bibw (both ways): NCHECK messages with distinct patterns. */
static void validate_bw(bench_mpi_t *b, char *sbuf, char *rbuf, size_t size, int bidir)
{
    MPI_Request req[2 * NCHECK];
    MPI_Status st[2 * NCHECK];
    int peer = 1 - b->rank, n = 0;
    int sends = bidir || b->rank == 0, recvs = bidir || b->rank == 1;
    long bad;
    memset(rbuf, 0, NCHECK * size);
    if (recvs)
        for (int j = 0; j < NCHECK; j++)
            MCK(MPI_Irecv(rbuf + j * size, (int)size, MPI_CHAR, peer, TAG_CHECK, MPI_COMM_WORLD,
                          &req[n++]));
    if (sends)
        for (int j = 0; j < NCHECK; j++) {
            bench_fill(sbuf + j * size, size, bench_seed(size, 16 * b->rank + j));
            MCK(MPI_Isend(sbuf + j * size, (int)size, MPI_CHAR, peer, TAG_CHECK, MPI_COMM_WORLD,
                          &req[n++]));
        }
    MCK(MPI_Waitall(n, req, st));
    if (recvs)
        for (int j = 0; j < NCHECK; j++) {
            if (!check_status(&st[j], size, peer))
                bench_mpi_bad_data("status of windowed message", size, 0);
            if ((bad = bench_check(rbuf + j * size, size, bench_seed(size, 16 * peer + j))) >= 0)
                bench_mpi_bad_data("windowed message (wrong data or order)", size, bad);
        }
}

int main(int argc, char **argv)
{
    bench_mpi_t b;
    bench_opts_t o;
    int type = T_LAT;
    /* Defaults depend on -t, so peek at it before the real parse. */
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-t") && strcmp(argv[i + 1], "latency"))
            type = T_BW;
    bench_defaults(&o, type == T_LAT ? BENCH_P2P_LAT : BENCH_P2P_BW);
    int rc = bench_mpi_start(&b, &argc, &argv, &o, "mpi_p2p", "latency, bw, bibw", 2);
    if (rc >= 0)
        return rc;
    type = bench_mpi_type(&o, type_names, 3, b.rank, "mpi_p2p");
    if (type < 0) {
        MPI_Finalize();
        return 2;
    }

    char *sbuf = bench_alloc(NCHECK * o.max_size), *rbuf = bench_alloc(NCHECK * o.max_size);
    char ack[4] = {0};
    MPI_Request *req = calloc(2 * (size_t)o.window, sizeof(*req));
    /* A real status array: MPICH's MPI_STATUSES_IGNORE trips -Wstringop-overflow. */
    MPI_Status *sts = calloc(2 * (size_t)o.window, sizeof(*sts));
    if (!req || !sts)
        return 1;
    if (b.rank == 0) {
        if (type == T_LAT)
            bench_header("MPI", "Latency Test", "          Latency (us)");
        else
            bench_header("MPI", type == T_BW ? "Bandwidth Test" : "Bi-Directional Bandwidth Test",
                         "      Bandwidth (MB/s)");
    }

    for (size_t size = bench_first_size(&o); size <= o.max_size; size = bench_next_size(size)) {
        int iters = bench_iters(&o, size), warm = bench_warmup(&o, size), w = o.window;
        int isz = (int)size;
        if (b.rank < 2 && o.validate) {
            if (type == T_LAT)
                validate_lat(&b, sbuf, rbuf, size);
            else
                validate_bw(&b, sbuf, rbuf, size, type == T_BIBW);
        }
        MCK(MPI_Barrier(MPI_COMM_WORLD));
        if (b.rank >= 2)
            continue;
        int peer = 1 - b.rank;
        double t0 = 0.0, t;
        for (int i = 0; i < warm + iters; i++) {
            if (i == warm)
                t0 = bench_now();
            if (type == T_LAT && b.rank == 0) {
                MCK(MPI_Send(sbuf, isz, MPI_CHAR, 1, TAG_DATA, MPI_COMM_WORLD));
                MCK(MPI_Recv(rbuf, isz, MPI_CHAR, 1, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            } else if (type == T_LAT) {
                MCK(MPI_Recv(rbuf, isz, MPI_CHAR, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                MCK(MPI_Send(sbuf, isz, MPI_CHAR, 0, TAG_DATA, MPI_COMM_WORLD));
            } else if (type == T_BW && b.rank == 0) {
                for (int j = 0; j < w; j++)
                    MCK(MPI_Isend(sbuf, isz, MPI_CHAR, 1, TAG_DATA, MPI_COMM_WORLD, &req[j]));
                MCK(MPI_Waitall(w, req, sts));
                MCK(MPI_Recv(ack, 4, MPI_CHAR, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            } else if (type == T_BW) {
                for (int j = 0; j < w; j++)
                    MCK(MPI_Irecv(rbuf, isz, MPI_CHAR, 0, TAG_DATA, MPI_COMM_WORLD, &req[j]));
                MCK(MPI_Waitall(w, req, sts));
                MCK(MPI_Send(ack, 4, MPI_CHAR, 0, TAG_ACK, MPI_COMM_WORLD));
            } else {
                for (int j = 0; j < w; j++)
                    MCK(MPI_Irecv(rbuf, isz, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD, &req[j]));
                for (int j = 0; j < w; j++)
                    MCK(MPI_Isend(sbuf, isz, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD, &req[w + j]));
                MCK(MPI_Waitall(2 * w, req, sts));
            }
        }
        t = bench_now() - t0;
        if (b.rank != 0)
            continue;
        if (type == T_LAT)
            bench_row(size, t * 1e6 / (2.0 * iters));
        else
            bench_row(size, (type == T_BIBW ? 2.0 : 1.0) * (double)size * w * iters / t / 1e6);
    }
    MCK(MPI_Barrier(MPI_COMM_WORLD));
    free(req);
    free(sts);
    bench_free(sbuf);
    bench_free(rbuf);
    MPI_Finalize();
    return 0;
}
