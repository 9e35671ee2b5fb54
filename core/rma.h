/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided communication (core/rma.c): the engine's hooks into it. */
#ifndef RMPI_RMA_H
#define RMPI_RMA_H

/* Register the handler of RMPI_MSG_RMA (engine start). */
void rmpi_rma_register(rmpi_engine_t *e);
/* Free every window (rmp_finalize; nothing may access one any more). */
void rmpi_rma_fini(rmpi_engine_t *e);

#endif
