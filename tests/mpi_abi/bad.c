/* SPDX-License-Identifier: BSD-3-Clause */
/* Bad input under MPI_ERRORS_RETURN: NULL, freed, foreign and garbage
 * handles and out-of-range ranks give the right class, and nothing crashes. */
#include <string.h>

#include "check.h"

/* GCC reads MPI_UNWEIGHTED ((int *)10) passed for a `const int w[]` parameter as
 * an array of size 0; the standard defines both. */
#pragma GCC diagnostic ignored "-Wstringop-overread"

#define EXPECT(call, cls)                                                              \
    do {                                                                               \
        int rc_ = (call), c_ = -1;                                                     \
        MPI_Error_class(rc_, &c_);                                                     \
        CHECK(c_ == (cls), "%s gave class %d, expected %s", #call, c_, #cls);          \
    } while (0)

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rank, size, r;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

    /* communicators: NULL, freed, a handle of another kind, garbage memory */
    MPI_Comm dup, freed;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    freed = dup;
    CHECK_OK(MPI_Comm_free(&dup));
    uint64_t garbage[16];
    memset(garbage, 0xa5, sizeof(garbage));
    EXPECT(MPI_Comm_rank(MPI_COMM_NULL, &r), MPI_ERR_COMM);
    EXPECT(MPI_Comm_rank(freed, &r), MPI_ERR_COMM);
    EXPECT(MPI_Comm_rank((MPI_Comm)MPI_INT, &r), MPI_ERR_COMM);
    EXPECT(MPI_Comm_rank((MPI_Comm)garbage, &r), MPI_ERR_COMM);
    EXPECT(MPI_Comm_rank((MPI_Comm)((char *)garbage + 3), &r), MPI_ERR_COMM);
    EXPECT(MPI_Comm_size(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_free(&freed), MPI_ERR_COMM);
    MPI_Comm world = MPI_COMM_WORLD;
    EXPECT(MPI_Comm_free(&world), MPI_ERR_COMM);
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &dup), MPI_ERR_ARG);
    EXPECT(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &dup), MPI_ERR_ARG);

    /* groups */
    MPI_Group g, ng, gfreed;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    CHECK_OK(MPI_Group_incl(g, 1, &rank, &gfreed));
    CHECK_OK(MPI_Group_free(&gfreed));
    CHECK(gfreed == MPI_GROUP_NULL, "Group_free did not reset");
    CHECK_OK(MPI_Group_incl(g, 1, &rank, &ng));
    MPI_Group stale = ng;
    CHECK_OK(MPI_Group_free(&ng));
    EXPECT(MPI_Group_size(stale, &r), MPI_ERR_GROUP);
    EXPECT(MPI_Group_size(MPI_GROUP_NULL, &r), MPI_ERR_GROUP);
    EXPECT(MPI_Group_size((MPI_Group)garbage, &r), MPI_ERR_GROUP);
    int ranks[2] = {size, -1};
    EXPECT(MPI_Group_incl(g, 1, &ranks[0], &ng), MPI_ERR_RANK);
    EXPECT(MPI_Group_incl(g, 1, &ranks[1], &ng), MPI_ERR_RANK);
    int twice[2] = {0, 0};
    if (size >= 2)
        EXPECT(MPI_Group_incl(g, 2, twice, &ng), MPI_ERR_RANK);
    EXPECT(MPI_Group_excl(g, -1, twice, &ng), MPI_ERR_ARG);
    int badrange[1][3] = {{0, size, 1}};
    EXPECT(MPI_Group_range_incl(g, 1, badrange, &ng), MPI_ERR_RANK);
    int zerostride[1][3] = {{0, 0, 0}};
    EXPECT(MPI_Group_range_incl(g, 1, zerostride, &ng), MPI_ERR_RANK);
    int out;
    EXPECT(MPI_Group_translate_ranks(g, 1, &ranks[0], g, &out), MPI_ERR_RANK);
    EXPECT(MPI_Comm_create(MPI_COMM_WORLD, stale, &dup), MPI_ERR_GROUP);
    CHECK_OK(MPI_Group_free(&g));

    /* info */
    MPI_Info info, ifreed;
    char v[8];
    int flag;
    CHECK_OK(MPI_Info_create(&info));
    EXPECT(MPI_Info_set(info, "", "x"), MPI_ERR_INFO_KEY);
    char longkey[MPI_MAX_INFO_KEY + 8];
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    EXPECT(MPI_Info_set(info, longkey, "x"), MPI_ERR_INFO_KEY);
    EXPECT(MPI_Info_set(info, "k", NULL), MPI_ERR_INFO_VALUE);
    EXPECT(MPI_Info_delete(info, "absent"), MPI_ERR_INFO_NOKEY);
    EXPECT(MPI_Info_get_nthkey(info, 0, v), MPI_ERR_ARG);
    CHECK_OK(MPI_Info_dup(info, &ifreed));
    CHECK_OK(MPI_Info_free(&ifreed));
    MPI_Info istale;
    CHECK_OK(MPI_Info_dup(info, &istale));
    MPI_Info keep = istale;
    CHECK_OK(MPI_Info_free(&istale));
    EXPECT(MPI_Info_get(keep, "k", 4, v, &flag), MPI_ERR_INFO);
    EXPECT(MPI_Info_free(&keep), MPI_ERR_INFO);
    EXPECT(MPI_Info_get(MPI_INFO_NULL, "k", 4, v, &flag), MPI_ERR_INFO);
    CHECK_OK(MPI_Info_free(&info));

    /* keyvals, error handlers, topology queries */
    int kv = 123456;
    EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, NULL), MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, kv, &dup, &flag), MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_free_keyval(&kv), MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB), MPI_ERR_KEYVAL);
    MPI_Errhandler eh = (MPI_Errhandler)garbage;
    EXPECT(MPI_Errhandler_free(&eh), MPI_ERR_ERRHANDLER);
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ERRHANDLER);
    int c2[2];
    EXPECT(MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, c2), MPI_ERR_TOPOLOGY);
    MPI_Comm cart;
    int dims[1] = {size}, periods[1] = {0};
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    EXPECT(MPI_Cart_coords(cart, size, 1, c2), MPI_ERR_RANK);
    EXPECT(MPI_Cart_coords(cart, -1, 1, c2), MPI_ERR_RANK);
    EXPECT(MPI_Cart_shift(cart, 1, 1, &r, &out), MPI_ERR_DIMS);
    EXPECT(MPI_Cart_rank(cart, (int[]){size}, &r), MPI_ERR_ARG);
    CHECK_OK(MPI_Comm_free(&cart));
    dims[0] = size + 1;
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart), MPI_ERR_TOPOLOGY);
    dims[0] = -1;
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart), MPI_ERR_DIMS);
    int src = size;
    EXPECT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED, 0, NULL,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &cart),
           MPI_ERR_RANK);
    EXPECT(MPI_Error_string(-5, v, &r), MPI_ERR_ARG);
    EXPECT(MPI_Error_class(99999, &r), MPI_ERR_ARG);

    /* a spawn of a program that does not exist under RETURN: the class, no crash, no hang */
    MPI_Comm parent;
    EXPECT(MPI_Comm_spawn("/nonexistent/rmp-bad", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0,
                          MPI_COMM_WORLD, &parent, MPI_ERRCODES_IGNORE),
           MPI_ERR_SPAWN);
    /* a missing file: its class through MPI_FILE_NULL's handler (ERRORS_RETURN) */
    MPI_File fh;
    EXPECT(MPI_File_open(MPI_COMM_WORLD, "/nonexistent", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
           MPI_ERR_NO_SUCH_FILE);
    int nv;
    CHECK(MPI_T_cvar_get_num(&nv) == MPI_T_ERR_NOT_INITIALIZED, "MPI_T before init");
    CHECK_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &r));
    /* MPI_T's own classes for bad indices (tests/mpi_abi/mpit.c has the rest) */
    CHECK_OK(MPI_T_cvar_get_num(&nv));
    CHECK(nv > 0, "MPI_T cvars: %d", nv);
    CHECK(MPI_T_cvar_get_info(nv, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
              MPI_T_ERR_INVALID_INDEX, "MPI_T_cvar_get_info past the last");
    CHECK_OK(MPI_T_pvar_get_num(&nv));
    CHECK(nv > 0, "MPI_T pvars: %d", nv);
    CHECK(MPI_T_pvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                              NULL, NULL) == MPI_T_ERR_INVALID_INDEX, "MPI_T_pvar_get_info(-1)");
    CHECK_OK(MPI_T_finalize());

    CHECK_OK(MPI_Finalize());
    return 0;
}
