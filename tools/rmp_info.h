/* SPDX-License-Identifier: BSD-3-Clause */
/* rmp_info's sections in files of their own. */
#ifndef RMP_INFO_H
#define RMP_INFO_H

/* The MPI layer (rmp_info_mpi.c): human-readable, and as key:value lines. */
void info_mpi(void);
void info_mpi_parsable(void);

#endif
