/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_T: control variables are rmp's parameters (run with RMP_RNDV_THRESHOLD=48k:
 * the cvar reads 49152 before and after MPI_Init), performance variables count
 * the messages sent and received and the unexpected queue, the error classes of
 * bad indices, names, sessions and handles, and threads calling at once. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check.h"

#define CHECK_T(call, want)                                                            \
    do {                                                                               \
        int rc_ = (call);                                                              \
        CHECK(rc_ == (want), "%s returned %d, expected %d", #call, rc_, (int)(want));  \
    } while (0)

static int cvar_index_of(const char *name)
{
    int idx = -1;
    CHECK_OK(MPI_T_cvar_get_index(name, &idx));
    char got[128];
    int len = sizeof(got);
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    int bind = 0, scope = 0;
    CHECK_OK(MPI_T_cvar_get_info(idx, got, &len, NULL, &dt, NULL, NULL, NULL, &bind, &scope));
    CHECK(strcmp(got, name) == 0 && len == (int)strlen(name) + 1, "cvar %d is '%s' (%d)", idx,
          got, len);
    CHECK(bind == MPI_T_BIND_NO_OBJECT && scope == MPI_T_SCOPE_READONLY, "bind %d scope %d",
          bind, scope);
    return idx;
}

static unsigned long read_threshold(void)
{
    int idx = cvar_index_of("RMP_RNDV_THRESHOLD");
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    CHECK_OK(MPI_T_cvar_get_info(idx, NULL, NULL, NULL, &dt, NULL, NULL, NULL, NULL, NULL));
    CHECK(dt == MPI_UNSIGNED_LONG, "RMP_RNDV_THRESHOLD is not MPI_UNSIGNED_LONG");
    MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
    int count = 0;
    CHECK_OK(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count));
    CHECK(count == 1, "count %d", count);
    unsigned long v = 7;
    CHECK_OK(MPI_T_cvar_read(h, &v));
    CHECK_T(MPI_T_cvar_write(h, &v), MPI_T_ERR_CVAR_SET_NEVER);
    CHECK_OK(MPI_T_cvar_handle_free(&h));
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "handle not cleared");
    return v;
}

static unsigned long expected_threshold(void)
{
    const char *e = getenv("RMP_RNDV_THRESHOLD");
    if (!e)
        return 0; /* the default */
    CHECK(strcmp(e, "48k") == 0, "run with RMP_RNDV_THRESHOLD=48k, not %s", e);
    return 48 * 1024;
}

/* The choice parameter RMP_LOG: an MPI_INT with an enum naming its value. */
static void check_enum(void)
{
    int idx = cvar_index_of("RMP_LOG");
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    MPI_T_enum e = MPI_T_ENUM_NULL;
    CHECK_OK(MPI_T_cvar_get_info(idx, NULL, NULL, NULL, &dt, &e, NULL, NULL, NULL, NULL));
    CHECK(dt == MPI_INT && e != MPI_T_ENUM_NULL, "RMP_LOG: not an enum");
    int n = 0, v = -1, ev = -1;
    char name[64];
    int len = sizeof(name);
    CHECK_OK(MPI_T_enum_get_info(e, &n, name, &len));
    CHECK(n == 5, "RMP_LOG has %d choices", n);
    MPI_T_cvar_handle h;
    int count;
    CHECK_OK(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count));
    CHECK_OK(MPI_T_cvar_read(h, &v));
    CHECK_OK(MPI_T_cvar_handle_free(&h));
    len = sizeof(name);
    CHECK_OK(MPI_T_enum_get_item(e, v, &ev, name, &len));
    const char *want = getenv("RMP_LOG") ? getenv("RMP_LOG") : "warn";
    CHECK(ev == v && strcasecmp(name, want) == 0, "RMP_LOG=%d '%s', expected '%s'", v, name, want);
    CHECK_T(MPI_T_enum_get_item(e, n, &ev, name, &len), MPI_T_ERR_INVALID_ITEM);
    CHECK_T(MPI_T_enum_get_info((MPI_T_enum)&n, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
}

static int pvar_index_of(const char *name, int cls)
{
    int idx = -1;
    CHECK_OK(MPI_T_pvar_get_index(name, cls, &idx));
    return idx;
}

static unsigned long long pvar_read(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    CHECK_OK(MPI_T_pvar_read(s, h, &v));
    return v;
}

static void check_errors(int ncvar, int npvar)
{
    char name[64];
    int len = sizeof(name), idx, n;
    CHECK_T(MPI_T_cvar_get_info(-1, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_cvar_get_info(ncvar, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_pvar_get_info(npvar, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_cvar_get_index("RMP_NO_SUCH_VARIABLE", &idx), MPI_T_ERR_INVALID_NAME);
    CHECK_T(MPI_T_pvar_get_index("rmp_msgs_sent", MPI_T_PVAR_CLASS_LEVEL, &idx),
            MPI_T_ERR_INVALID_NAME);
    CHECK_T(MPI_T_cvar_get_num(NULL), MPI_T_ERR_INVALID);
    MPI_T_cvar_handle ch;
    CHECK_T(MPI_T_cvar_handle_alloc(ncvar, NULL, &ch, &n), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_cvar_read((MPI_T_cvar_handle)&n, &n), MPI_T_ERR_INVALID_HANDLE);
    int ncat = 0;
    CHECK_OK(MPI_T_category_get_num(&ncat));
    CHECK_T(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_category_get_cvars(-1, 0, NULL), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_category_get_index("no such category", &idx), MPI_T_ERR_INVALID_NAME);
    CHECK_OK(MPI_T_event_get_num(&n));
    CHECK(n == 0, "%d events", n);
    CHECK_T(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                 NULL),
            MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_event_get_index("no such event", &idx), MPI_T_ERR_INVALID_NAME);
    MPI_T_event_registration reg;
    CHECK_T(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
    CHECK_OK(MPI_T_source_get_num(&n));
    CHECK(n == 1, "%d sources", n);
    MPI_Count t1 = 0, t2 = 0, tps = 0;
    CHECK_OK(MPI_T_source_get_timestamp(0, &t1));
    CHECK_OK(MPI_T_source_get_timestamp(0, &t2));
    CHECK_OK(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, &tps, NULL, NULL));
    CHECK(t2 >= t1 && tps == 1000000000, "timestamps %lld %lld, %lld/s", (long long)t1,
          (long long)t2, (long long)tps);
    CHECK_T(MPI_T_source_get_timestamp(1, &t1), MPI_T_ERR_INVALID_INDEX);
    MPI_Info info = MPI_INFO_NULL;
    CHECK_OK(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &info));
    CHECK(info != MPI_INFO_NULL, "source info");
    CHECK_OK(MPI_Info_free(&info));
    CHECK_T(MPI_T_source_get_info(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &info),
            MPI_T_ERR_INVALID_INDEX);

    MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL, s2 = MPI_T_PVAR_SESSION_NULL;
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    CHECK_OK(MPI_T_pvar_session_create(&s));
    CHECK_OK(MPI_T_pvar_session_create(&s2));
    CHECK_T(MPI_T_pvar_handle_alloc(s, npvar, NULL, &h, &n), MPI_T_ERR_INVALID_INDEX);
    int lvl = pvar_index_of("rmp_unexpected_recvq_length", MPI_T_PVAR_CLASS_LEVEL);
    CHECK_OK(MPI_T_pvar_handle_alloc(s, lvl, NULL, &h, &n));
    unsigned long long v = 0;
    CHECK_T(MPI_T_pvar_read(s2, h, &v), MPI_T_ERR_INVALID_HANDLE); /* another session's */
    CHECK_T(MPI_T_pvar_write(s, h, &v), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_T(MPI_T_pvar_reset(s, h), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_T(MPI_T_pvar_start(s, h), MPI_T_ERR_PVAR_NO_STARTSTOP); /* continuous */
    CHECK_OK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK_OK(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));
    MPI_T_pvar_handle freed = h;
    CHECK_OK(MPI_T_pvar_handle_free(s, &h));
    CHECK(h == MPI_T_PVAR_HANDLE_NULL, "pvar handle not cleared");
    CHECK_T(MPI_T_pvar_read(s, freed, &v), MPI_T_ERR_INVALID_HANDLE);
    MPI_T_pvar_session freed_s = s2;
    CHECK_OK(MPI_T_pvar_session_free(&s2));
    CHECK_T(MPI_T_pvar_handle_alloc(freed_s, lvl, NULL, &h, &n), MPI_T_ERR_INVALID_SESSION);
    CHECK_OK(MPI_T_pvar_session_free(&s));
}

/* Messages from rank 0 to rank 1 move the counters of both. */
static void check_counters(int rank)
{
    int sent = pvar_index_of("rmp_msgs_sent", MPI_T_PVAR_CLASS_COUNTER);
    int bsent = pvar_index_of("rmp_bytes_sent", MPI_T_PVAR_CLASS_COUNTER);
    int recvd = pvar_index_of("rmp_msgs_received", MPI_T_PVAR_CLASS_COUNTER);
    int ulen = pvar_index_of("rmp_unexpected_recvq_length", MPI_T_PVAR_CLASS_LEVEL);
    MPI_T_pvar_session s;
    MPI_T_pvar_handle hs, hb, hr, hu;
    int n;
    CHECK_OK(MPI_T_pvar_session_create(&s));
    CHECK_OK(MPI_T_pvar_handle_alloc(s, sent, NULL, &hs, &n));
    CHECK_OK(MPI_T_pvar_handle_alloc(s, bsent, NULL, &hb, &n));
    CHECK_OK(MPI_T_pvar_handle_alloc(s, recvd, NULL, &hr, &n));
    CHECK_OK(MPI_T_pvar_handle_alloc(s, ulen, NULL, &hu, &n));
    /* Read before the barrier: rank 0's messages may arrive while rank 1 leaves it. */
    unsigned long long s0 = pvar_read(s, hs), b0 = pvar_read(s, hb), r0 = pvar_read(s, hr);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    char buf[100] = {0};
    enum { N = 10 };
    if (rank == 0) {
        for (int i = 0; i < N; i++)
            CHECK_OK(MPI_Send(buf, sizeof(buf), MPI_CHAR, 1, i, MPI_COMM_WORLD));
        unsigned long long s1 = pvar_read(s, hs), b1 = pvar_read(s, hb);
        CHECK(s1 >= s0 + N && b1 >= b0 + N * sizeof(buf), "sent %llu -> %llu msgs, %llu -> %llu B",
              s0, s1, b0, b1);
        /* readreset gives the total, then the handle counts from 0 */
        unsigned long long v = 0;
        CHECK_OK(MPI_T_pvar_readreset(s, hs, &v));
        CHECK(v == s1, "readreset %llu, read %llu", v, s1);
        CHECK(pvar_read(s, hs) == 0, "after readreset: %llu", pvar_read(s, hs));
        v = 5;
        CHECK_OK(MPI_T_pvar_write(s, hs, &v));
        CHECK(pvar_read(s, hs) == 5, "after write 5: %llu", pvar_read(s, hs));
        /* nothing more to rank 1 until it has counted its queue */
        CHECK_OK(MPI_Recv(NULL, 0, MPI_CHAR, 1, N, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else if (rank == 1) {
        /* The last one probed: all N wait in the unexpected queue. */
        MPI_Status st;
        CHECK_OK(MPI_Probe(0, N - 1, MPI_COMM_WORLD, &st));
        unsigned long long u1 = pvar_read(s, hu), r1 = pvar_read(s, hr);
        CHECK(u1 >= N, "unexpected queue %llu with %d messages waiting", u1, N);
        CHECK(r1 >= r0 + N, "received %llu -> %llu", r0, r1);
        for (int i = 0; i < N; i++)
            CHECK_OK(MPI_Recv(buf, sizeof(buf), MPI_CHAR, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        unsigned long long u2 = pvar_read(s, hu);
        CHECK(u2 + N <= u1, "unexpected queue %llu after receiving, %llu before", u2, u1);
        CHECK_OK(MPI_Send(NULL, 0, MPI_CHAR, 0, N, MPI_COMM_WORLD));
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_T_pvar_session_free(&s)); /* frees its handles */
}

/* Threads enumerate and read at once (MPI_T provides MULTIPLE). */
static void *thread_body(void *arg)
{
    unsigned long want = *(const unsigned long *)arg;
    for (int k = 0; k < 50; k++) {
        CHECK(read_threshold() == want, "threshold read in a thread");
        MPI_T_pvar_session s;
        MPI_T_pvar_handle h;
        int n;
        CHECK_OK(MPI_T_pvar_session_create(&s));
        CHECK_OK(MPI_T_pvar_handle_alloc(s, 0, NULL, &h, &n));
        unsigned long long v;
        CHECK_OK(MPI_T_pvar_read(s, h, &v));
        CHECK_OK(MPI_T_pvar_session_free(&s));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1, n = 0;
    CHECK_T(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_T(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_T provided %d", provided);
    unsigned long want = expected_threshold();
    CHECK(read_threshold() == want, "before MPI_Init: %lu, expected %lu", read_threshold(), want);

    CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    int rank, size;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)); /* nested */

    int ncvar = 0, npvar = 0, ncat = 0;
    CHECK_OK(MPI_T_cvar_get_num(&ncvar));
    CHECK_OK(MPI_T_pvar_get_num(&npvar));
    CHECK_OK(MPI_T_category_get_num(&ncat));
    CHECK(ncvar >= 10 && npvar >= 8 && ncat >= 2, "%d cvars, %d pvars, %d categories", ncvar,
          npvar, ncat);
    unsigned long got = read_threshold();
    CHECK(got == want, "RMP_RNDV_THRESHOLD reads %lu, expected %lu", got, want);
    check_enum();

    /* Every cvar is in exactly one category; the core's holds the threshold. */
    int thr = cvar_index_of("RMP_RNDV_THRESHOLD"), core = -1, total = 0, found = 0;
    CHECK_OK(MPI_T_category_get_index("rmp_core", &core));
    for (int c = 0; c < ncat; c++) {
        int nc = 0, np = 0, nsub = -1;
        CHECK_OK(MPI_T_category_get_info(c, NULL, NULL, NULL, NULL, &nc, &np, &nsub));
        int idx[256];
        CHECK(nc <= 256 && nsub == 0, "category %d: %d cvars, %d subcategories", c, nc, nsub);
        CHECK_OK(MPI_T_category_get_cvars(c, nc, idx));
        for (int i = 0; i < nc; i++)
            found += c == core && idx[i] == thr;
        total += nc;
    }
    CHECK(total == ncvar && found == 1, "categories hold %d of %d cvars (threshold: %d)", total,
          ncvar, found);

    check_errors(ncvar, npvar);
    if (size >= 2)
        check_counters(rank);

    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&th[i], NULL, thread_body, &want) == 0, "pthread_create");
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);

    CHECK_OK(MPI_T_finalize());
    CHECK_OK(MPI_Finalize());
    /* MPI_T outlives MPI: the first MPI_T_init_thread still holds. */
    CHECK(read_threshold() == want, "after MPI_Finalize");
    CHECK_OK(MPI_T_finalize());
    CHECK_T(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    if (rank == 0)
        printf("mpit: %d cvars, %d pvars, %d categories: ok\n", ncvar, npvar, ncat);
    return 0;
}
