/* SPDX-License-Identifier: BSD-3-Clause */
/* Window objects (core/rma_win.c): what one-sided access (core/rma.c) reads
 * of a window, the table of live windows by id, and their creation. */
#ifndef RMPI_RMA_WIN_H
#define RMPI_RMA_WIN_H

#include <stdint.h>

#include "rmp.h"
#include "shmem.h"
#include "transport.h"

#define RMPI_WIN_MAGIC 0x726d7077696e3031ULL /* "rmpwin01" */

typedef struct rmpi_win_entry {
    uint64_t base;
    uint64_t bytes;
    uint32_t id;
    uint32_t allocated;
    uint64_t keys[RMPI_TL_MAX];/* per transport slot of rmpi_eng.tls.v */
    char seg[48];      /* allocated windows: shared segment name */
    int32_t status;    /* its creation so far: RMP_SUCCESS or why it failed */
    uint32_t dynamic;  /* rmp_win_create_dynamic: offsets are addresses (regions) */
} rmpi_win_entry_t;

/* A region attached to a dynamic window. */
typedef struct rmpi_win_region {
    uintptr_t base;
    size_t bytes;
} rmpi_win_region_t;

struct rmp_win {
    uint64_t magic;
    int live;
    rmp_comm_t comm;
    void *base;
    size_t bytes;
    uint32_t id;
    rmpi_win_entry_t *peers;   /* by comm rank */
    void **mapped;        /* by comm rank: the peer's window mapped here, or NULL */
    rmpi_mr_t *mr[RMPI_TL_MAX];/* registrations with rmpi_eng.tls.v[i] */
    int allocated;
    int dynamic;
    rmpi_win_region_t *regions; /* dynamic: attached here, in attach order */
    int nregions, capregions;
    rmpi_shmem_t mem;     /* allocated windows */
    size_t seglen;
    long outstanding;     /* non-blocking operations in flight (transport or message) */
    int nbi_error;
    int flush_gave_up;    /* the last flush returned RMP_ERR_TIMEOUT with some in flight */
    struct rmp_win *next_dead; /* released windows, oldest first (rma_win.c) */
};

/* The live window of id id, for the target side of emulated operations; NULL if none. */
struct rmp_win *rmpi_win_lookup(rmpi_engine_t *e, uint32_t id);
/* Is win the address of a live window (a handle is checked before it is read)? */
int rmpi_win_is_live(rmpi_engine_t *e, rmp_win_t win);
/* Dynamic window: the attached memory holding addr, as one region (attached regions
 * that touch count as one) in *out; 1 if it holds [addr, addr + bytes) too. */
int rmpi_win_region(const struct rmp_win *w, uint64_t addr, uint64_t bytes,
                    rmpi_win_region_t *out);
/* Is win a usable window handle? RMP_SUCCESS, RMP_ERR_ARG or RMP_ERR_ACCESS (core/rma.c). */
int rmpi_rma_check_win(rmpi_engine_t *e, rmp_win_t win);

#endif
