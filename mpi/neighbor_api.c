/* SPDX-License-Identifier: BSD-3-Clause */
/* The blocking and nonblocking neighbourhood collectives, int and MPI_Count forms: each
 * describes its two sides for the plan (neighbor.c). */
#include "mpii_dtype.h"
#include "mpii_nbr.h"

MPII_TWINS(Neighbor_allgather, mpii_nbr_go(comm, &(nbr_args_t){.buf = sendbuf, .count = sendcount,
           .type = sendtype, .same = 1}, &(nbr_args_t){.buf = recvbuf, .count = recvcount,
           .type = recvtype}, MPII_NBR_BLOCKING, MPI_INFO_NULL, NULL, FN))

MPII_TWINS(Neighbor_allgatherv, mpii_nbr_go(comm, &(nbr_args_t){.buf = sendbuf,
           .count = sendcount, .type = sendtype, .same = 1}, &(nbr_args_t){.buf = recvbuf,
           .TWIN(icnt, cnt) = recvcounts, .TWIN(idsp, dsp) = displs, .type = recvtype, .vec = 1},
           MPII_NBR_BLOCKING, MPI_INFO_NULL, NULL, FN))

MPII_TWINS(Neighbor_alltoall, mpii_nbr_go(comm, &(nbr_args_t){.buf = sendbuf, .count = sendcount,
           .type = sendtype}, &(nbr_args_t){.buf = recvbuf, .count = recvcount, .type = recvtype},
           MPII_NBR_BLOCKING, MPI_INFO_NULL, NULL, FN))

MPII_TWINS(Neighbor_alltoallv, mpii_nbr_go(comm, &(nbr_args_t){.buf = sendbuf,
           .TWIN(icnt, cnt) = sendcounts, .TWIN(idsp, dsp) = sdispls, .type = sendtype, .vec = 1},
           &(nbr_args_t){.buf = recvbuf, .TWIN(icnt, cnt) = recvcounts,
           .TWIN(idsp, dsp) = rdispls, .type = recvtype, .vec = 1}, MPII_NBR_BLOCKING,
           MPI_INFO_NULL, NULL, FN))

MPII_TWINS(Neighbor_alltoallw, mpii_nbr_go(comm, &(nbr_args_t){.buf = sendbuf,
           .TWIN(icnt, cnt) = sendcounts, .dsp = sdispls, .types = sendtypes, .bytes_disp = 1,
           .vec = 2}, &(nbr_args_t){.buf = recvbuf, .TWIN(icnt, cnt) = recvcounts, .dsp = rdispls,
           .types = recvtypes, .bytes_disp = 1, .vec = 2}, MPII_NBR_BLOCKING, MPI_INFO_NULL, NULL,
           FN))

MPII_TWINS(Ineighbor_allgather, mpii_nbr_go(comm, &(nbr_args_t){.buf = sendbuf,
           .count = sendcount, .type = sendtype, .same = 1}, &(nbr_args_t){.buf = recvbuf,
           .count = recvcount, .type = recvtype}, MPII_NBR_NONBLOCKING, MPI_INFO_NULL, request,
           FN))

MPII_TWINS(Ineighbor_allgatherv, mpii_nbr_go(comm, &(nbr_args_t){.buf = sendbuf,
           .count = sendcount, .type = sendtype, .same = 1}, &(nbr_args_t){.buf = recvbuf,
           .TWIN(icnt, cnt) = recvcounts, .TWIN(idsp, dsp) = displs, .type = recvtype, .vec = 1},
           MPII_NBR_NONBLOCKING, MPI_INFO_NULL, request, FN))

MPII_TWINS(Ineighbor_alltoall, mpii_nbr_go(comm, &(nbr_args_t){.buf = sendbuf, .count = sendcount,
           .type = sendtype}, &(nbr_args_t){.buf = recvbuf, .count = recvcount, .type = recvtype},
           MPII_NBR_NONBLOCKING, MPI_INFO_NULL, request, FN))

MPII_TWINS(Ineighbor_alltoallv, mpii_nbr_go(comm, &(nbr_args_t){.buf = sendbuf,
           .TWIN(icnt, cnt) = sendcounts, .TWIN(idsp, dsp) = sdispls, .type = sendtype, .vec = 1},
           &(nbr_args_t){.buf = recvbuf, .TWIN(icnt, cnt) = recvcounts,
           .TWIN(idsp, dsp) = rdispls, .type = recvtype, .vec = 1}, MPII_NBR_NONBLOCKING,
           MPI_INFO_NULL, request, FN))

MPII_TWINS(Ineighbor_alltoallw, mpii_nbr_go(comm, &(nbr_args_t){.buf = sendbuf,
           .TWIN(icnt, cnt) = sendcounts, .dsp = sdispls, .types = sendtypes, .bytes_disp = 1,
           .vec = 2}, &(nbr_args_t){.buf = recvbuf, .TWIN(icnt, cnt) = recvcounts, .dsp = rdispls,
           .types = recvtypes, .bytes_disp = 1, .vec = 2}, MPII_NBR_NONBLOCKING, MPI_INFO_NULL,
           request, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "neighbor_api.twins.h"
