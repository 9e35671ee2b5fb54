/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Comm_spawn: the job spawns 2 children of this same program (argument "child");
 * parent and children exchange over the intercomm, merge it and reduce over the merged
 * communicator, and disconnect. Then MPI_Comm_spawn_multiple of two commands (1 + 1
 * children) and a spawn of a program that does not exist (a clear error, no hang). */
#include <string.h>

#include "check.h"

static int child(MPI_Comm parent)
{
    int rank, size, rsize, v = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_OK(MPI_Comm_remote_size(parent, &rsize));
    /* parent rank 0 sends each child its rank + 100; each child answers to every parent */
    CHECK_OK(MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE));
    CHECK(v == rank + 100, "child %d got %d", rank, v);
    for (int j = 0; j < rsize; j++) {
        int a = rank * 10 + j;
        CHECK_OK(MPI_Send(&a, 1, MPI_INT, j, 2, parent));
    }
    MPI_Comm merged;
    int mrank, msize, sum = 0;
    CHECK_OK(MPI_Intercomm_merge(parent, 1, &merged));
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(mrank == rsize + rank, "child merged rank %d", mrank);
    CHECK_OK(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == msize * (msize - 1) / 2, "child allreduce %d", sum);
    CHECK_OK(MPI_Comm_free(&merged));
    CHECK_OK(MPI_Comm_disconnect(&parent));
    MPI_Comm again;
    CHECK_OK(MPI_Comm_get_parent(&again));
    CHECK(again == MPI_COMM_NULL, "parent still there after disconnect");
    return 0;
}

static void parent_side(MPI_Comm ic, int nchildren)
{
    int rank, size, rsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_OK(MPI_Comm_remote_size(ic, &rsize));
    CHECK(rsize == nchildren, "remote size %d", rsize);
    if (rank == 0)
        for (int c = 0; c < rsize; c++) {
            int v = c + 100;
            CHECK_OK(MPI_Send(&v, 1, MPI_INT, c, 1, ic));
        }
    for (int c = 0; c < rsize; c++) {
        int a = -1;
        MPI_Status st;
        CHECK_OK(MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 2, ic, &st));
        CHECK(a == st.MPI_SOURCE * 10 + rank, "parent %d got %d from %d", rank, a,
              st.MPI_SOURCE);
    }
    MPI_Comm merged;
    int mrank, msize, sum = 0;
    CHECK_OK(MPI_Intercomm_merge(ic, 0, &merged));
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(mrank == rank && msize == size + rsize, "parent merged %d of %d", mrank, msize);
    CHECK_OK(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == msize * (msize - 1) / 2, "parent allreduce %d", sum);
    CHECK_OK(MPI_Comm_free(&merged));
    CHECK_OK(MPI_Comm_disconnect(&ic));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    CHECK_OK(MPI_Comm_get_parent(&parent));
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        CHECK(parent != MPI_COMM_NULL, "a child without a parent");
        child(parent);
        MPI_Finalize();
        return 0;
    }
    CHECK(parent == MPI_COMM_NULL, "a parent in a job nobody spawned");
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char *args[] = {"child", NULL};
    int codes[2] = {-1, -1};
    MPI_Comm ic;
    CHECK_OK(MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, codes));
    CHECK(codes[0] == MPI_SUCCESS && codes[1] == MPI_SUCCESS, "errcodes %d %d", codes[0],
          codes[1]);
    parent_side(ic, 2);

    char *cmds[2] = {argv[0], argv[0]};
    char **argvs[2] = {args, args};
    int np[2] = {1, 1};
    MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
    CHECK_OK(MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD, &ic,
                                     MPI_ERRCODES_IGNORE));
    parent_side(ic, 2);

    int ec = 0;
    MPI_Comm none = MPI_COMM_NULL;
    MPI_Error_class(MPI_Comm_spawn("/nonexistent/rmp-no-such-program", MPI_ARGV_NULL, 1,
                                   MPI_INFO_NULL, 0, MPI_COMM_WORLD, &none, codes),
                    &ec);
    CHECK(ec == MPI_ERR_SPAWN && none == MPI_COMM_NULL, "missing program: class %d", ec);
    MPI_Finalize();
    if (rank == 0)
        printf("dyn_spawn: ok\n");
    return 0;
}
