/* SPDX-License-Identifier: BSD-3-Clause */
/* Environment: Init/Finalize state, versions, thread level, time, memory,
 * the ABI queries, the handle converters. */
#include <string.h>

#include "check.h"

int main(int argc, char **argv)
{
    int flag = -1, provided = -1;
    CHECK_OK(MPI_Initialized(&flag));
    CHECK(flag == 0, "Initialized before Init: %d", flag);
    CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    /* the level rmp_init_thread gives (docs/threads.md), in the ABI's values */
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    int q = -1;
    CHECK_OK(MPI_Query_thread(&q));
    CHECK(q == provided, "Query_thread %d != %d", q, provided);
    CHECK_OK(MPI_Is_thread_main(&flag));
    CHECK(flag == 1, "Is_thread_main %d", flag);
    CHECK_OK(MPI_Initialized(&flag));
    CHECK(flag == 1, "Initialized after Init: %d", flag);

    int rank = -1, size = -1;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 1 && rank >= 0 && rank < size, "rank %d size %d", rank, size);
    CHECK_OK(MPI_Comm_rank(MPI_COMM_SELF, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_SELF, &size));
    CHECK(rank == 0 && size == 1, "self: rank %d size %d", rank, size);

    int v = 0, sv = -1;
    CHECK_OK(MPI_Get_version(&v, &sv));
    CHECK(v == 5 && sv == 0, "version %d.%d", v, sv);
    CHECK_OK(MPI_Abi_get_version(&v, &sv));
    CHECK(v == 1 && sv == 0, "ABI version %d.%d", v, sv);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    CHECK_OK(MPI_Get_library_version(lib, &len));
    CHECK(len == (int)strlen(lib) && strstr(lib, "rmp"), "library '%s'", lib);
    char host[MPI_MAX_PROCESSOR_NAME];
    CHECK_OK(MPI_Get_processor_name(host, &len));
    CHECK(len > 0 && len == (int)strlen(host), "processor name '%s'", host);

    MPI_Info info;
    CHECK_OK(MPI_Abi_get_info(&info));
    char val[64];
    CHECK_OK(MPI_Info_get(info, "mpi_aint_size", sizeof(val) - 1, val, &flag));
    CHECK(flag && atoi(val) == (int)sizeof(MPI_Aint), "mpi_aint_size '%s'", val);
    CHECK_OK(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL, "Info_free did not reset the handle");

    /* MPI_INFO_ENV: how the job was started */
    char cmd[MPI_MAX_INFO_VAL];
    int buflen = sizeof(cmd);
    CHECK_OK(MPI_Info_get_string(MPI_INFO_ENV, "command", &buflen, cmd, &flag));
    CHECK(flag && strstr(cmd, "mpi_abi_env"), "INFO_ENV command '%s'", cmd);
    buflen = sizeof(val);
    CHECK_OK(MPI_Info_get_string(MPI_INFO_ENV, "maxprocs", &buflen, val, &flag));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(flag && atoi(val) == size && buflen == (int)strlen(val) + 1, "maxprocs '%s'", val);
    buflen = 2; /* too short: cut, and the length needed is reported */
    CHECK_OK(MPI_Info_get_string(MPI_INFO_ENV, "command", &buflen, val, &flag));
    CHECK(flag && strlen(val) == 1 && buflen == (int)strlen(cmd) + 1, "short buffer");
    CHECK_OK(MPI_Comm_get_info(MPI_COMM_WORLD, &info));
    int nkeys = -1;
    CHECK_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 0, "Comm_get_info: %d keys", nkeys);
    CHECK_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    CHECK_OK(MPI_Info_set(info, "k2", "v2"));
    CHECK_OK(MPI_Info_set(info, "k2", "v3"));
    CHECK_OK(MPI_Comm_set_info(MPI_COMM_WORLD, info));
    CHECK_OK(MPI_Info_get_nkeys(info, &nkeys));
    char key[MPI_MAX_INFO_KEY];
    CHECK_OK(MPI_Info_get_nthkey(info, 1, key));
    CHECK(nkeys == 2 && strcmp(key, "k2") == 0, "nkeys %d, key 1 '%s'", nkeys, key);
    MPI_Info copy;
    CHECK_OK(MPI_Info_dup(info, &copy));
    CHECK_OK(MPI_Info_delete(info, "k2"));
    CHECK_OK(MPI_Info_get(copy, "k2", sizeof(val) - 1, val, &flag));
    CHECK(flag && strcmp(val, "v3") == 0, "dup value '%s'", val);
    CHECK_OK(MPI_Info_get(info, "k2", sizeof(val) - 1, val, &flag));
    CHECK(!flag, "deleted key still there");
    CHECK_OK(MPI_Info_free(&copy));
    CHECK_OK(MPI_Info_free(&info));

    double t0 = MPI_Wtime(), tick = MPI_Wtick();
    CHECK(t0 > 0 && tick > 0 && tick < 1, "Wtime %g Wtick %g", t0, tick);
    double t1 = MPI_Wtime();
    CHECK(t1 >= t0, "Wtime went back: %g < %g", t1, t0);
    CHECK_OK(MPI_Pcontrol(1));

    double *mem = NULL;
    CHECK_OK(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &mem));
    CHECK(mem != NULL, "Alloc_mem gave NULL");
    mem[(1 << 17) - 1] = 1.0;
    CHECK_OK(MPI_Free_mem(mem));

    /* converters: predefined handles are their ABI values, objects round-trip */
    CHECK(MPI_Comm_toint(MPI_COMM_WORLD) == 0x101, "Comm_toint(WORLD)");
    CHECK(MPI_Type_fromint(0x209) == MPI_INT, "Type_fromint(0x209)");
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int i = MPI_Comm_toint(dup);
    CHECK(i >= 0 && MPI_Comm_fromint(i) == dup, "Comm_toint/fromint of a dup: %d", i);
    CHECK_OK(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL, "Comm_free did not reset the handle");

    CHECK(MPI_Aint_diff(MPI_Aint_add(100, 28), 100) == 28, "Aint_add/diff");

    CHECK_OK(MPI_Finalized(&flag));
    CHECK(flag == 0, "Finalized before Finalize");
    CHECK_OK(MPI_Finalize());
    CHECK_OK(MPI_Finalized(&flag));
    CHECK(flag == 1, "Finalized after Finalize");
    return 0;
}
