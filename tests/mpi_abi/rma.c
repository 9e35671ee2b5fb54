/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided: each synchronisation mode with the data checked at the target (fence,
 * lock/unlock exclusive and shared, lock_all + flush, PSCW), accumulate atomicity
 * (concurrent MPI_SUM accumulates from every rank, total exact), fetch_and_op and
 * compare_and_swap as a counter and a lock, get_accumulate, window attributes and group,
 * a shared-memory window, the request-based operations (Rput, Rget, Raccumulate,
 * Rget_accumulate) in a lock_all epoch and refused outside one, a dynamic window
 * (attach, addresses as displacements, detach), and bad input (rank,
 * range, op) through MPI_ERRORS_RETURN. */
#include <string.h>

#include "check.h"

#define N 16
static int rank, size;

static void test_fence(MPI_Win win, int *mem)
{
    int src[N];
    for (int i = 0; i < N; i++)
        src[i] = rank * 100 + i;
    CHECK_OK(MPI_Win_fence(0, win));
    /* rank r writes slot r (2 ints) of rank (r + 1) % size */
    CHECK_OK(MPI_Put(src, 2, MPI_INT, (rank + 1) % size, 2 * rank, 2, MPI_INT, win));
    CHECK_OK(MPI_Win_fence(0, win));
    int from = (rank - 1 + size) % size;
    CHECK(mem[2 * from] == from * 100 && mem[2 * from + 1] == from * 100 + 1,
          "fence put: got %d %d", mem[2 * from], mem[2 * from + 1]);
    int got[2] = {-1, -1};
    CHECK_OK(MPI_Get(got, 2, MPI_INT, (rank + 1) % size, 2 * rank, 2, MPI_INT, win));
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK(got[0] == rank * 100 && got[1] == rank * 100 + 1, "fence get");
}

static void test_lock(MPI_Win win, int *mem)
{
    int target = size - 1, v = rank + 1;
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* exclusive: read-modify-write of slot 0 at the target, serialised by the lock */
    for (int k = 0; k < 5; k++) {
        int cur;
        CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
        CHECK_OK(MPI_Get(&cur, 1, MPI_INT, target, N, 1, MPI_INT, win));
        CHECK_OK(MPI_Win_flush(target, win));
        cur += v;
        CHECK_OK(MPI_Put(&cur, 1, MPI_INT, target, N, 1, MPI_INT, win));
        CHECK_OK(MPI_Win_unlock(target, win));
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == target) {
        CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
        CHECK(mem[N] == 5 * size * (size + 1) / 2, "exclusive lock RMW: %d", mem[N]);
        CHECK_OK(MPI_Win_unlock(target, win));
    }
    /* lock_all + flush: each rank puts its rank into slot N+1+rank of rank 0 */
    CHECK_OK(MPI_Win_lock_all(0, win));
    CHECK_OK(MPI_Put(&rank, 1, MPI_INT, 0, N + 1 + rank, 1, MPI_INT, win));
    CHECK_OK(MPI_Win_flush(0, win));
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        for (int r = 0; r < size; r++)
            CHECK(mem[N + 1 + r] == r, "lock_all put from %d: %d", r, mem[N + 1 + r]);
}

static void test_pscw(MPI_Win win, int *mem)
{
    MPI_Group world, peers;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    /* a ring: expose to the left neighbour, access the right one */
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    CHECK_OK(MPI_Group_incl(world, 1, &left, &peers));
    MPI_Group tgt;
    CHECK_OK(MPI_Group_incl(world, 1, &right, &tgt));
    for (int round = 0; round < 3; round++) {
        int v = 1000 * round + rank;
        CHECK_OK(MPI_Win_post(peers, 0, win));
        CHECK_OK(MPI_Win_start(tgt, 0, win));
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, 3 * N, 1, MPI_INT, win));
        CHECK_OK(MPI_Win_complete(win));
        if (round == 2) {
            int flag = 0;
            while (!flag)
                CHECK_OK(MPI_Win_test(win, &flag));
        } else {
            CHECK_OK(MPI_Win_wait(win));
        }
        CHECK(mem[3 * N] == 1000 * round + left, "pscw round %d: %d", round, mem[3 * N]);
    }
    MPI_Group_free(&peers);
    MPI_Group_free(&tgt);
    MPI_Group_free(&world);
}

static void test_atomics(MPI_Win win, int *mem)
{
    long long *ctr = (long long *)(mem + 4 * N); /* 8-byte aligned: 4N ints from the base */
    (void)ctr;
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* concurrent accumulates of 1..rank+1 into 4 ints of every rank, 50 times */
    int add[4];
    for (int i = 0; i < 4; i++)
        add[i] = rank + 1 + i;
    CHECK_OK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < 50; k++)
        for (int t = 0; t < size; t++)
            CHECK_OK(MPI_Accumulate(add, 4, MPI_INT, t, 2 * N, 4, MPI_INT, MPI_SUM, win));
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++)
        CHECK(mem[2 * N + i] == 50 * (size * (size + 1) / 2 + size * i),
              "accumulate total %d: %d", i, mem[2 * N + i]);
    /* fetch_and_op as a ticket counter at rank 0: every ticket handed out once */
    long long one = 1, ticket, tickets[20];
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    for (int k = 0; k < 20; k++) {
        CHECK_OK(MPI_Fetch_and_op(&one, &ticket, MPI_LONG_LONG, 0, 2 * N + 4, MPI_SUM, win));
        CHECK_OK(MPI_Win_flush(0, win));
        tickets[k] = ticket;
    }
    CHECK_OK(MPI_Win_unlock(0, win));
    for (int k = 1; k < 20; k++)
        CHECK(tickets[k] > tickets[k - 1], "tickets increase");
    long long sum = 0, all = 0;
    for (int k = 0; k < 20; k++)
        sum += tickets[k];
    CHECK_OK(MPI_Allreduce(&sum, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    long long n = 20LL * size;
    CHECK(all == n * (n - 1) / 2, "every ticket once: %lld", all);
    /* compare_and_swap as a spin lock around a non-atomic increment at rank size-1 */
    int t = size - 1;
    CHECK_OK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < 10; k++) {
        int zero = 0, me = rank + 1, old = -1;
        do {
            CHECK_OK(MPI_Compare_and_swap(&me, &zero, &old, MPI_INT, t, 2 * N + 8, win));
            CHECK_OK(MPI_Win_flush(t, win));
        } while (old != 0);
        int v;
        CHECK_OK(MPI_Get(&v, 1, MPI_INT, t, 2 * N + 9, 1, MPI_INT, win));
        CHECK_OK(MPI_Win_flush(t, win));
        v++;
        CHECK_OK(MPI_Put(&v, 1, MPI_INT, t, 2 * N + 9, 1, MPI_INT, win));
        CHECK_OK(MPI_Win_flush(t, win));
        CHECK_OK(MPI_Compare_and_swap(&zero, &me, &old, MPI_INT, t, 2 * N + 8, win));
        CHECK_OK(MPI_Win_flush(t, win));
        CHECK(old == me, "cas unlock saw %d", old);
    }
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == t)
        CHECK(mem[2 * N + 9] == 10 * size, "cas-locked counter %d", mem[2 * N + 9]);
    /* get_accumulate with MPI_NO_OP reads atomically; with MPI_REPLACE swaps */
    int res[4] = {0}, rep[4] = {7, 7, 7, 7};
    CHECK_OK(MPI_Win_fence(0, win));
    if (rank == 0)
        CHECK_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, res, 4, MPI_INT, size - 1, 2 * N, 4,
                                    MPI_INT, MPI_NO_OP, win));
    CHECK_OK(MPI_Win_fence(0, win));
    if (rank == 0)
        CHECK(res[0] == 50 * size * (size + 1) / 2, "get_accumulate no_op: %d", res[0]);
    if (rank == 0)
        CHECK_OK(MPI_Get_accumulate(rep, 4, MPI_INT, res, 4, MPI_INT, size - 1, 2 * N, 4,
                                    MPI_INT, MPI_REPLACE, win));
    CHECK_OK(MPI_Win_fence(0, win));
    if (rank == size - 1)
        CHECK(mem[2 * N] == 7 && mem[2 * N + 3] == 7, "get_accumulate replace");
}

static void test_attrs_and_errors(MPI_Win win, int *mem)
{
    void *base;
    MPI_Aint *sz;
    int *unit, *flavor, *model, flag;
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
    CHECK(flag && base == mem, "WIN_BASE");
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
    CHECK(flag && *sz == (MPI_Aint)(8 * N * sizeof(int)), "WIN_SIZE");
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
    CHECK(flag && *unit == (int)sizeof(int), "WIN_DISP_UNIT");
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_ALLOCATE, "WIN_CREATE_FLAVOR");
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && *model == MPI_WIN_UNIFIED, "WIN_MODEL");
    MPI_Group g, w;
    int cmp;
    CHECK_OK(MPI_Win_get_group(win, &g));
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    CHECK_OK(MPI_Group_compare(g, w, &cmp));
    CHECK(cmp == MPI_IDENT, "Win_get_group");
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int x = 0, cls;
    CHECK_OK(MPI_Win_lock_all(0, win));
    int rc = MPI_Put(&x, 1, MPI_INT, size, 0, 1, MPI_INT, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "bad target rank: class %d", cls);
    rc = MPI_Put(&x, 1, MPI_INT, 0, 8 * N, 1, MPI_INT, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "out of the window: class %d", cls);
    rc = MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OP, "bad op: class %d", cls);
    float f = 1;
    rc = MPI_Accumulate(&f, 1, MPI_FLOAT, 0, 0, 1, MPI_FLOAT, MPI_BXOR, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OP, "bxor on float: class %d", cls);
    CHECK_OK(MPI_Win_unlock_all(win));
    rc = MPI_Win_unlock(0, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_SYNC, "unlock without lock: class %d", cls);
    MPI_Win bad = (MPI_Win)(void *)&x;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Win_fence(0, bad);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_WIN, "garbage window: class %d", cls);
}

static void test_shared(void)
{
    MPI_Comm node;
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nr, ns;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);
    int *mine;
    MPI_Win win;
    CHECK_OK(MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine,
                                     &win));
    CHECK_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < 4; i++)
        mine[i] = nr * 10 + i;
    CHECK_OK(MPI_Win_sync(win));
    CHECK_OK(MPI_Barrier(node));
    CHECK_OK(MPI_Win_sync(win));
    for (int r = 0; r < ns; r++) {
        MPI_Aint sz;
        int unit, *p;
        CHECK_OK(MPI_Win_shared_query(win, r, &sz, &unit, &p));
        CHECK(sz == 4 * sizeof(int) && unit == sizeof(int), "shared_query size/unit");
        CHECK(p[3] == r * 10 + 3, "load from rank %d's segment: %d", r, p[3]);
        /* MPI's default layout: one block, rank after rank */
        CHECK(p == mine + 4 * (r - nr), "rank %d's segment is not contiguous with mine", r);
    }
    CHECK_OK(MPI_Win_unlock_all(win));
    /* a put to rank r lands in its part of the block */
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK_OK(MPI_Put(&(int){-nr}, 1, MPI_INT, (nr + 1) % ns, 1, 1, MPI_INT, win));
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK(mine[1] == -((nr + ns - 1) % ns) && mine[0] == nr * 10, "put into the shared block");
    /* window hints: accepted, none in use */
    MPI_Info info, used;
    int nkeys = -1;
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "no_locks", "true"));
    CHECK_OK(MPI_Win_set_info(win, info));
    CHECK_OK(MPI_Win_get_info(win, &used));
    CHECK_OK(MPI_Info_get_nkeys(used, &nkeys));
    CHECK(nkeys == 0, "Win_get_info: %d hints in use", nkeys);
    MPI_Info_free(&used);
    MPI_Info_free(&info);
    CHECK_OK(MPI_Win_free(&win));
    /* alloc_shared_noncontig: one segment each, still loadable; empty segments are NULL */
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    CHECK_OK(MPI_Win_allocate_shared(nr % 2 ? 0 : 2 * sizeof(int), sizeof(int), info, node,
                                     &mine, &win));
    MPI_Info_free(&info);
    for (int r = 0; r < ns; r++) {
        MPI_Aint sz;
        int unit, *p;
        CHECK_OK(MPI_Win_shared_query(win, r, &sz, &unit, &p));
        CHECK(r % 2 ? sz == 0 && p == NULL : sz == 2 * sizeof(int) && p != NULL,
              "noncontig shared_query of rank %d: size %ld", r, (long)sz);
    }
    CHECK_OK(MPI_Win_free(&win));
    /* MPI 4: shared_query on an allocated window; mine is mine */
    CHECK_OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine, &win));
    {
        MPI_Aint sz;
        int unit, *p;
        CHECK_OK(MPI_Win_shared_query(win, nr, &sz, &unit, &p));
        CHECK(p == mine && sz == 4 * sizeof(int), "shared_query of an allocated window");
    }
    CHECK_OK(MPI_Win_free(&win));
    /* the large-count forms */
    MPI_Aint unit_c = 0, sz_c = 0;
    double *dmine, *dp;
    CHECK_OK(MPI_Win_allocate_shared_c(3 * sizeof(double), sizeof(double), MPI_INFO_NULL, node,
                                       &dmine, &win));
    CHECK_OK(MPI_Win_lock_all(0, win));
    dmine[2] = nr + 0.5;
    CHECK_OK(MPI_Win_sync(win));
    CHECK_OK(MPI_Barrier(node));
    CHECK_OK(MPI_Win_sync(win));
    CHECK_OK(MPI_Win_shared_query_c(win, ns - 1, &sz_c, &unit_c, &dp));
    CHECK(sz_c == 3 * sizeof(double) && unit_c == sizeof(double) && dp[2] == ns - 1 + 0.5,
          "shared_query_c: size %ld unit %ld value %g", (long)sz_c, (long)unit_c, dp[2]);
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Win_free(&win));
    MPI_Comm_free(&node);
}

/* Slots 6N.. and 7N.. of rank 0's window. */
static void test_request_based(MPI_Win win, int *mem)
{
    int v = rank * 7 + 1, got = -1, one = 1, old = -1, errclass = MPI_SUCCESS;
    MPI_Request r[4];
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int rc = MPI_Rput(&v, 1, MPI_INT, 0, 6 * N + rank, 1, MPI_INT, win, &r[0]);
    MPI_Error_class(rc, &errclass);
    CHECK(errclass == MPI_ERR_RMA_SYNC && r[0] == MPI_REQUEST_NULL,
          "Rput outside a passive-target epoch: class %d", errclass);
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_lock_all(0, win));
    CHECK_OK(MPI_Rput(&v, 1, MPI_INT, 0, 6 * N + rank, 1, MPI_INT, win, &r[0]));
    CHECK_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK(r[0] == MPI_REQUEST_NULL, "Wait frees the Rput request");
    CHECK_OK(MPI_Win_flush(0, win));
    CHECK_OK(MPI_Rget(&got, 1, MPI_INT, 0, 6 * N + rank, 1, MPI_INT, win, &r[1]));
    CHECK_OK(MPI_Raccumulate(&(int){rank + 1}, 1, MPI_INT, 0, 7 * N, 1, MPI_INT, MPI_SUM, win,
                             &r[2]));
    CHECK_OK(MPI_Rget_accumulate(&one, 1, MPI_INT, &old, 1, MPI_INT, 0, 7 * N + 1, 1, MPI_INT,
                                 MPI_SUM, win, &r[3]));
    MPI_Status st[3];
    CHECK_OK(MPI_Waitall(3, &r[1], st));
    CHECK(got == v, "Rget after Rput + flush: %d, want %d", got, v);
    CHECK(old >= 0 && old < size, "Rget_accumulate fetched %d (a count below %d)", old, size);
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        for (int i = 0; i < size; i++)
            CHECK(mem[6 * N + i] == i * 7 + 1, "Rput from %d: %d", i, mem[6 * N + i]);
        CHECK(mem[7 * N] == size * (size + 1) / 2, "Raccumulate total %d", mem[7 * N]);
        CHECK(mem[7 * N + 1] == size, "Rget_accumulate total %d", mem[7 * N + 1]);
    }
}

static void test_dynamic(void)
{
    MPI_Win win;
    int *buf = calloc(16, sizeof(int)), errclass = MPI_SUCCESS, flavor_ok = 0;
    CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_OK(MPI_Win_attach(win, buf, 16 * sizeof(int)));
    int *flavor = NULL, flag = 0;
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    flavor_ok = flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC;
    CHECK(flavor_ok, "WIN_CREATE_FLAVOR of a dynamic window");
    MPI_Aint mine, *addr = calloc((size_t)size, sizeof(MPI_Aint));
    CHECK_OK(MPI_Get_address(buf, &mine));
    CHECK_OK(MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD));
    int t = (rank + 1) % size, from = (rank - 1 + size) % size, v = 500 + rank;
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK_OK(MPI_Put(&v, 1, MPI_INT, t, addr[t] + 2 * (MPI_Aint)sizeof(int), 1, MPI_INT, win));
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK(buf[2] == 500 + from, "dynamic fence put: %d", buf[2]);
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_OK(MPI_Accumulate(&(int){rank + 1}, 1, MPI_INT, 0, addr[0] + (MPI_Aint)sizeof(int), 1,
                            MPI_INT, MPI_SUM, win));
    CHECK_OK(MPI_Win_unlock(0, win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(rank != 0 || buf[1] == size * (size + 1) / 2, "dynamic accumulate: %d", buf[1]);
    /* outside the attached region: refused at the target, reported here */
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    int rc = MPI_Put(&v, 1, MPI_INT, t, addr[t] + 16 * (MPI_Aint)sizeof(int), 1, MPI_INT, win);
    if (rc == MPI_SUCCESS)
        rc = MPI_Win_flush(t, win);
    MPI_Error_class(rc, &errclass);
    CHECK(errclass == MPI_ERR_RMA_RANGE, "put past the attached region: class %d", errclass);
    CHECK_OK(MPI_Win_unlock(t, win));
    rc = MPI_Win_attach(win, buf + 4, sizeof(int));
    MPI_Error_class(rc, &errclass);
    CHECK(errclass == MPI_ERR_RMA_ATTACH, "overlapping attach: class %d", errclass);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_detach(win, buf));
    CHECK_OK(MPI_Win_free(&win));
    free(addr);
    free(buf);
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *mem;
    MPI_Win win;
    CHECK_OK(MPI_Win_allocate(8 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                              &mem, &win));
    memset(mem, 0, 8 * N * sizeof(int));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    test_fence(win, mem);
    test_lock(win, mem);
    test_pscw(win, mem);
    test_atomics(win, mem);
    test_attrs_and_errors(win, mem);
    test_request_based(win, mem);
    CHECK_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "Win_free sets MPI_WIN_NULL");
    /* a window over user memory */
    int user[4] = {0};
    CHECK_OK(MPI_Win_create(user, sizeof(user), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK_OK(MPI_Accumulate(&(int){rank + 1}, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win));
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK(rank != 0 || user[1] == size * (size + 1) / 2, "accumulate on Win_create memory");
    CHECK_OK(MPI_Win_free(&win));
    test_shared();
    test_dynamic();
    CHECK_OK(MPI_Finalize());
    return 0;
}
