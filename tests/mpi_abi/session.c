/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI Sessions (MPI-4.1 chapter 11). Without argument: a session before MPI_Init, a
 * second one alongside it, the first one's communicator still working after
 * MPI_Finalize, and a session refused once the engine has stopped. With "only": the
 * session model alone, three sessions one after the other (no MPI_Init at all). Both
 * check the psets mpi://WORLD, mpi://SELF and mpix://SHARED (this node's processes: the
 * same members as an MPI_COMM_TYPE_SHARED split of MPI_COMM_WORLD) by real allreduces,
 * and that bad arguments reach the session's error handler with their class. */
#include <string.h>

#include "check.h"

static int calls, last_code;
static MPI_Session last_session;

static void handler(MPI_Session *s, int *code, ...)
{
    calls++;
    last_code = *code;
    last_session = *s;
}

/* The pset's group and a communicator made from it by its members only; an allreduce
 * on it gives the sum of 1..size. Returns the communicator. */
static MPI_Comm pset_comm(MPI_Session s, const char *pset, const char *tag, int want_size)
{
    MPI_Group g;
    MPI_Info info;
    MPI_Comm c;
    int gsize, grank, flag, size, rank;
    char v[32];
    CHECK_OK(MPI_Group_from_session_pset(s, pset, &g));
    CHECK_OK(MPI_Group_size(g, &gsize));
    CHECK_OK(MPI_Group_rank(g, &grank));
    CHECK(want_size < 0 || gsize == want_size, "%s: group size %d, want %d", pset, gsize,
          want_size);
    CHECK(grank >= 0 && grank < gsize, "%s: rank %d not in the group", pset, grank);
    CHECK_OK(MPI_Session_get_pset_info(s, pset, &info));
    CHECK_OK(MPI_Info_get(info, "mpi_size", (int)sizeof(v) - 1, v, &flag));
    CHECK(flag && atoi(v) == gsize, "%s: mpi_size '%s', group size %d", pset, flag ? v : "",
          gsize);
    CHECK_OK(MPI_Info_free(&info));
    CHECK_OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    CHECK_OK(MPI_Group_free(&g));
    CHECK_OK(MPI_Comm_size(c, &size));
    CHECK_OK(MPI_Comm_rank(c, &rank));
    CHECK(size == gsize && rank == grank, "%s: comm %d/%d, group %d/%d", pset, rank, size,
          grank, gsize);
    long mine = rank + 1, sum = 0;
    CHECK_OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, c));
    CHECK(sum == (long)size * (size + 1) / 2, "%s: allreduce %ld, want %ld", pset, sum,
          (long)size * (size + 1) / 2);
    return c;
}

static void check_comm_sum(MPI_Comm c)
{
    int size, rank;
    CHECK_OK(MPI_Comm_size(c, &size));
    CHECK_OK(MPI_Comm_rank(c, &rank));
    long mine = rank + 1, sum = 0;
    CHECK_OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, c));
    CHECK(sum == (long)size * (size + 1) / 2, "allreduce %ld on %d ranks", sum, size);
}

/* Psets, info and error handling of a live session; returns the WORLD communicator. */
static MPI_Comm exercise(MPI_Session s, int world_size)
{
    int n = 0, len = 0, seen_world = 0, seen_self = 0, seen_shared = 0, flag;
    char name[64], v[64];
    CHECK_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK(n >= 2, "%d psets", n);
    for (int i = 0; i < n; i++) {
        len = 0;
        CHECK_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        CHECK(len > 1 && len <= (int)sizeof(name), "pset %d: length %d", i, len);
        CHECK_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        CHECK((int)strlen(name) + 1 == len, "pset %d: '%s' length %d", i, name, len);
        seen_world |= strcmp(name, "mpi://WORLD") == 0;
        seen_self |= strcmp(name, "mpi://SELF") == 0;
        seen_shared |= strcmp(name, "mpix://SHARED") == 0;
    }
    CHECK(seen_world && seen_self && seen_shared,
          "psets lack mpi://WORLD, mpi://SELF or mpix://SHARED");

    MPI_Info info;
    CHECK_OK(MPI_Session_get_info(s, &info));
    CHECK_OK(MPI_Info_get(info, "thread_level", (int)sizeof(v) - 1, v, &flag));
    CHECK(flag && strncmp(v, "MPI_THREAD_", 11) == 0, "thread_level '%s'", flag ? v : "");
    CHECK_OK(MPI_Info_free(&info));

    /* bad arguments: their class, through the session's handler, with the session */
    calls = 0;
    int rc = MPI_Group_from_session_pset(s, "mpi://NO-SUCH-PSET", &(MPI_Group){0});
    CHECK(rc == MPI_ERR_ARG && calls == 1 && last_code == MPI_ERR_ARG && last_session == s,
          "unknown pset: rc %d, %d handler calls, code %d", rc, calls, last_code);
    rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, n, &len, name);
    CHECK(rc == MPI_ERR_ARG && calls == 2, "pset %d of %d: rc %d, %d calls", n, n, rc, calls);
    rc = MPI_Session_get_pset_info(s, "mpi://nowhere", &info);
    CHECK(rc == MPI_ERR_ARG && calls == 3, "pset info of nowhere: rc %d", rc);
    rc = MPI_Session_get_num_psets(s, MPI_INFO_NULL, NULL);
    CHECK(rc == MPI_ERR_ARG && calls == 4, "NULL npset_names: rc %d", rc);
    rc = MPI_Session_call_errhandler(s, MPI_ERR_OTHER);
    CHECK(rc == MPI_SUCCESS && calls == 5 && last_code == MPI_ERR_OTHER,
          "call_errhandler: rc %d, %d calls, code %d", rc, calls, last_code);
    MPI_Errhandler e;
    CHECK_OK(MPI_Session_get_errhandler(s, &e));
    CHECK_OK(MPI_Errhandler_free(&e));
    CHECK(MPI_Session_fromint(MPI_Session_toint(s)) == s, "toint/fromint round trip");

    MPI_Comm self = pset_comm(s, "mpi://SELF", "rmp.test.self", 1);
    CHECK_OK(MPI_Comm_free(&self));
    /* a library's communicator of this node's processes */
    MPI_Comm node = pset_comm(s, "mpix://SHARED", "rmp.test.node", -1);
    CHECK_OK(MPI_Comm_free(&node));
    return pset_comm(s, "mpi://WORLD", "rmp.test.world", world_size);
}

/* A buffered send on a communicator of the session uses the session's buffer (no
 * process buffer is attached: without it the send fails with MPI_ERR_BUFFER). */
static void session_bsend(MPI_Session s, MPI_Comm c)
{
    static char buf[4096];
    int size, rank, in = -1;
    CHECK_OK(MPI_Comm_size(c, &size));
    CHECK_OK(MPI_Comm_rank(c, &rank));
    CHECK_OK(MPI_Session_attach_buffer(s, buf, (int)sizeof(buf)));
    int out = 1000 + rank;
    CHECK_OK(MPI_Bsend(&out, 1, MPI_INT, (rank + 1) % size, 7, c));
    CHECK_OK(MPI_Recv(&in, 1, MPI_INT, (rank + size - 1) % size, 7, c, MPI_STATUS_IGNORE));
    CHECK(in == 1000 + (rank + size - 1) % size, "bsend: got %d", in);
    CHECK_OK(MPI_Session_flush_buffer(s));
    void *back = NULL;
    int bsize = 0;
    CHECK_OK(MPI_Session_detach_buffer(s, &back, &bsize));
    CHECK(back == buf && bsize == (int)sizeof(buf), "detach: %p %d", back, bsize);
}

static MPI_Session start(MPI_Errhandler eh, const char *level)
{
    MPI_Info info;
    MPI_Session s = MPI_SESSION_NULL;
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "thread_level", level));
    CHECK_OK(MPI_Session_init(info, eh, &s));
    CHECK_OK(MPI_Info_free(&info));
    CHECK(s != MPI_SESSION_NULL, "no session");
    return s;
}

static void sessions_only(MPI_Errhandler eh)
{
    for (int round = 0; round < 3; round++) {
        MPI_Session s = start(eh, "MPI_THREAD_SINGLE");
        int flag = 1;
        CHECK_OK(MPI_Initialized(&flag));
        CHECK(!flag, "MPI_Initialized true with a session only");
        MPI_Comm w = exercise(s, -1);
        session_bsend(s, w);
        CHECK_OK(MPI_Comm_free(&w));
        CHECK_OK(MPI_Session_finalize(&s));
        CHECK(s == MPI_SESSION_NULL, "Session_finalize left the handle");
    }
    int flag = 1;
    CHECK_OK(MPI_Finalized(&flag));
    CHECK(!flag, "MPI_Finalized true without MPI_Init");
}

static void with_world(MPI_Errhandler eh)
{
    MPI_Session s1 = start(eh, "MPI_THREAD_SINGLE");
    MPI_Comm w1 = exercise(s1, -1);
    int size, rank, flag = 1;
    CHECK_OK(MPI_Initialized(&flag));
    CHECK(!flag, "MPI_Initialized true before MPI_Init");

    CHECK_OK(MPI_Init(NULL, NULL));
    CHECK_OK(MPI_Initialized(&flag));
    CHECK(flag, "MPI_Initialized false after MPI_Init");
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    check_comm_sum(MPI_COMM_WORLD);
    check_comm_sum(w1);
    int wsize;
    CHECK_OK(MPI_Comm_size(w1, &wsize));
    CHECK(wsize == size, "WORLD pset comm size %d, MPI_COMM_WORLD %d", wsize, size);

    /* a second session alongside the world model */
    MPI_Session s2 = start(eh, "MPI_THREAD_MULTIPLE");
    MPI_Comm w2 = exercise(s2, size);
    check_comm_sum(w2);
    /* mpix://SHARED has the members of the world model's split by node */
    MPI_Comm shared;
    MPI_Group gs, gp;
    int cmp = MPI_UNEQUAL;
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                 &shared));
    CHECK_OK(MPI_Comm_group(shared, &gs));
    CHECK_OK(MPI_Group_from_session_pset(s2, "mpix://SHARED", &gp));
    CHECK_OK(MPI_Group_compare(gs, gp, &cmp));
    CHECK(cmp == MPI_IDENT, "mpix://SHARED against the shared split: %d, want MPI_IDENT", cmp);
    CHECK_OK(MPI_Group_free(&gs));
    CHECK_OK(MPI_Group_free(&gp));
    CHECK_OK(MPI_Comm_free(&shared));
    session_bsend(s2, w2);
    CHECK_OK(MPI_Comm_free(&w2));
    CHECK_OK(MPI_Session_finalize(&s2));

    /* an invalid session with no handler of its own: MPI_COMM_WORLD's */
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Info info;
    int rc = MPI_Session_get_info(s2, &info);
    CHECK(rc == MPI_ERR_SESSION, "finalized session: rc %d, want MPI_ERR_SESSION", rc);
    rc = MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &flag);
    CHECK(rc == MPI_ERR_SESSION, "MPI_SESSION_NULL: rc %d, want MPI_ERR_SESSION", rc);

    CHECK_OK(MPI_Finalize());
    CHECK_OK(MPI_Finalized(&flag));
    CHECK(flag, "MPI_Finalized false after MPI_Finalize");
    /* the live session keeps its communicator working after MPI_Finalize */
    check_comm_sum(w1);
    CHECK_OK(MPI_Comm_free(&w1));
    CHECK_OK(MPI_Session_finalize(&s1));

    /* the engine stopped with the last session: rmp cannot restart in this process */
    MPI_Session s3 = MPI_SESSION_NULL;
    rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s3);
    CHECK(rc == MPI_ERR_OTHER && s3 == MPI_SESSION_NULL,
          "Session_init after the engine stopped: rc %d", rc);
    if (rank == 0)
        printf("session: ok on %d ranks\n", size);
}

int main(int argc, char **argv)
{
    MPI_Errhandler eh;
    /* allowed before any initialisation: no session or world yet */
    CHECK_OK(MPI_Session_create_errhandler(handler, &eh));
    MPI_Session bad = MPI_SESSION_NULL;
    MPI_Info info;
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "thread_level", "MPI_THREAD_NONSENSE"));
    int rc = MPI_Session_init(info, MPI_ERRORS_RETURN, &bad);
    CHECK(rc == MPI_ERR_INFO_VALUE && bad == MPI_SESSION_NULL, "bad thread_level: rc %d", rc);
    CHECK_OK(MPI_Info_free(&info));
    if (argc > 1 && strcmp(argv[1], "only") == 0)
        sessions_only(eh);
    else
        with_world(eh);
    CHECK_OK(MPI_Errhandler_free(&eh));
    return 0;
}
