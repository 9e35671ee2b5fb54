/* SPDX-License-Identifier: BSD-3-Clause */
/* rmp_info's MPI section: the standard and ABI versions, the wrappers, and the
 * functions implemented by area (tools/mpi_areas.py counts them at build time). */
#include <stdio.h>

#include "mpi_areas.h"
#include "rmp_info.h"

#define INFO_NAREAS (int)(sizeof(info_mpi_areas) / sizeof(info_mpi_areas[0]))

static void info_mpi_totals(int *impl, int *total)
{
    *impl = *total = 0;
    for (int i = 0; i < INFO_NAREAS; i++) {
        *impl += info_mpi_areas[i].implemented;
        *total += info_mpi_areas[i].total;
    }
}

void info_mpi(void)
{
    int impl, total;
    info_mpi_totals(&impl, &total);
    printf("MPI: libmpi_abi.so, MPI %s standard ABI %s; %d of %d functions implemented\n",
           INFO_MPI_VERSION, INFO_MPI_ABI_VERSION, impl, total);
    printf("  wrappers: mpicc_abi, mpicxx_abi (bin); mpicc, mpicxx, mpic++, mpiexec "
           "(libexec/rmp/mpi-bin: put it first on PATH)\n");
    printf("  by area (implemented/functions; the rest return MPI_ERR_UNSUPPORTED_OPERATION):\n");
    for (int i = 0; i < INFO_NAREAS; i++)
        printf("    %-32s %3d/%d%s\n", info_mpi_areas[i].area, info_mpi_areas[i].implemented,
               info_mpi_areas[i].total,
               info_mpi_areas[i].implemented == info_mpi_areas[i].total ? "  complete" : "");
}

void info_mpi_parsable(void)
{
    int impl, total;
    info_mpi_totals(&impl, &total);
    printf("mpi:version:%s\n", INFO_MPI_VERSION);
    printf("mpi:abi_version:%s\n", INFO_MPI_ABI_VERSION);
    printf("mpi:wrappers:mpicc_abi,mpicxx_abi,mpicc,mpicxx,mpic++,mpiexec\n");
    printf("mpi:functions:implemented:%d\n", impl);
    printf("mpi:functions:total:%d\n", total);
    for (int i = 0; i < INFO_NAREAS; i++) {
        printf("mpi:area:%s:implemented:%d\n", info_mpi_areas[i].area,
               info_mpi_areas[i].implemented);
        printf("mpi:area:%s:total:%d\n", info_mpi_areas[i].area, info_mpi_areas[i].total);
    }
}
