/* SPDX-License-Identifier: BSD-3-Clause */
/* Start-up cost: MPI_Init + MPI_Finalize and nothing else (timed by benchmarks/startup). */
#include <mpi.h>

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}
