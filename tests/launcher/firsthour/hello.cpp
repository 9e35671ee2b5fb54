/* SPDX-License-Identifier: BSD-3-Clause */
/* A C++ program that includes mpi.h, built with mpicxx/mpic++ (tests/launcher/firsthour_test.sh). */
#include <mpi.h>
#include <iostream>
#include <vector>
#include <numeric>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> v(4, rank + 1);
    std::vector<int> sum(4);
    MPI_Allreduce(v.data(), sum.data(), 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum[3] != size * (size + 1) / 2) {
        std::cerr << "wrong sum " << sum[3] << "\n";
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (rank == 0)
        std::cout << "c++ ok: " << size << " ranks, sum " << sum[3] << std::endl;
    MPI_Finalize();
    return 0;
}
