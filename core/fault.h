/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault injection for the failure and race tests: a rank SIGKILLs itself at, or is
 * late at, a named point of the start-up, tear-down or connection paths, where no
 * test program can reach. Armed only by RMPI_FAULT=POINT:RANK or
 * RMPI_FAULT_DELAY=POINT:RANK (RMPI_, not RMP_: not user parameters). */
#ifndef RMPI_FAULT_H
#define RMPI_FAULT_H

/* Die by SIGKILL if RMPI_FAULT names this point and this world rank. */
void rmpi_fault_point(rmpi_engine_t *e, const char *where);
/* Sleep 1 s if RMPI_FAULT_DELAY names this point and this world rank (a race's
 * losing side made late on purpose). */
void rmpi_fault_delay(rmpi_engine_t *e, const char *where);

#endif
