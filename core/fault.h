/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault injection for the failure tests (tests/faults): a rank SIGKILLs itself
 * at a named point of rmp_init/rmp_finalize, where no test program can reach.
 * Armed only by RMPI_FAULT=POINT:RANK (RMPI_, not RMP_: not a user parameter). */
#ifndef RMPI_FAULT_H
#define RMPI_FAULT_H

/* Die by SIGKILL if RMPI_FAULT names this point and this world rank. */
void rmpi_fault_point(const char *where);

#endif
