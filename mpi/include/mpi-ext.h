/* SPDX-License-Identifier: BSD-3-Clause */
/* rmp's MPI extensions, beside the standard ABI's mpi.h: the fault-tolerance (ULFM)
 * functions and error classes as Open MPI 5 spells them, so that ULFM programs build
 * unchanged with mpicc_abi. Run them with rrun --enable-recovery (docs/reliability.md). */
#ifndef RMP_MPI_EXT_H
#define RMP_MPI_EXT_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ULFM extension is present (Open MPI's and MPICH's feature tests). */
#define OMPI_HAVE_MPI_EXT_FTMPI 1
#define MPIX_FTMPI 1

/* Error classes (values as Open MPI 5's), outside the standard's range in mpi.h. */
#define MPIX_ERR_PROC_FAILED 75
#define MPIX_ERR_PROC_FAILED_PENDING 76
#define MPIX_ERR_REVOKED 77

int MPIX_Comm_revoke(MPI_Comm comm);
int MPIX_Comm_is_revoked(MPI_Comm comm, int *flag);
int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm);
int MPIX_Comm_agree(MPI_Comm comm, int *flag);
int MPIX_Comm_failure_ack(MPI_Comm comm);
int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp);

int PMPIX_Comm_revoke(MPI_Comm comm);
int PMPIX_Comm_is_revoked(MPI_Comm comm, int *flag);
int PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm);
int PMPIX_Comm_agree(MPI_Comm comm, int *flag);
int PMPIX_Comm_failure_ack(MPI_Comm comm);
int PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp);

#ifdef __cplusplus
}
#endif

#endif
