/* SPDX-License-Identifier: BSD-3-Clause */
/* One rank's shared segment, and the address it publishes for it.
 * Header-only so that the fuzzer (tests/fuzz/fuzz_ep_addr.c) runs the very
 * code shm_connect runs.
 *
 *   [ header line ][ inbox head line ][ ncells cells ][ nbufs state lines ]
 *   [ page-aligned: nbufs pool buffers of buf_bytes ]
 *
 * Its size depends on this rank's parameters only, not on the number of
 * ranks: the node holds N of them (docs/protocols.md, "shm"). Only its first
 * part is made at start (shm_seg_warm_bytes). */
#ifndef SHM_SEG_H
#define SHM_SEG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rmp.h"
#include "shm_inbox.h"
#include "shm_pool.h"

#define SHM_BUF_MIN 4096u
#define SHM_BUF_MAX (16u << 20)

typedef struct shm_addr {
    char name[64];
    int32_t pid;
    int32_t nlocal;
    uint32_t ncells;
    uint32_t nbufs;
    uint64_t buf_bytes;
    uint64_t seg_bytes;
    uint64_t probe_addr; /* address of the owner's probe word */
} shm_addr_t;

static inline size_t shm_seg_cells_off(void)
{
    return 2 * SHM_LINE;
}

static inline size_t shm_seg_state_off(uint64_t ncells)
{
    return shm_seg_cells_off() + (size_t)ncells * SHM_CELL;
}

static inline size_t shm_seg_bufs_off(uint64_t ncells, uint64_t nbufs)
{
    size_t end = shm_seg_state_off(ncells) + (size_t)nbufs * SHM_LINE;
    return (end + 4095) & ~(size_t)4095;
}

static inline size_t shm_seg_bytes(uint64_t ncells, uint64_t nbufs, uint64_t buf_bytes)
{
    return shm_seg_bufs_off(ncells, nbufs) + (size_t)(nbufs * buf_bytes);
}

/* The part made at start (rmpi_shmem_prefault): everything up to the pool's first
 * SHM_POOL_WARM buffers, which a ping-pong or a short burst keeps reusing. The other
 * buffers take memory only once a stream of medium messages has filled the first ones. */
#define SHM_POOL_WARM 8u
static inline size_t shm_seg_warm_bytes(uint64_t ncells, uint64_t nbufs, uint64_t buf_bytes)
{
    uint64_t warm = nbufs < SHM_POOL_WARM ? nbufs : SHM_POOL_WARM;
    return shm_seg_bufs_off(ncells, nbufs) + (size_t)(warm * buf_bytes);
}

/* Is blob (len bytes from PMIx) a peer address this rank can use, with
 * nlocal ranks on the node? The geometry must be one shm_init makes and
 * the segment exactly the size it implies, so that the inbox and the pool
 * computed from it lie in the mapping. RMP_SUCCESS, or RMP_ERR_BOOTSTRAP
 * with a reason in *why. */
static inline int shm_addr_check(const void *blob, size_t len, int nlocal, const char **why)
{
    shm_addr_t abuf, *a = &abuf; /* the blob from PMIx may be unaligned */
    *why = NULL;
    if (len != sizeof(*a)) {
        *why = "wrong size";
        return RMP_ERR_BOOTSTRAP;
    }
    memcpy(&abuf, blob, sizeof(abuf));
    if (memchr(a->name, '\0', sizeof(a->name)) == NULL)
        *why = "unterminated segment name";
    else if (a->pid <= 0)
        *why = "bad process id";
    else if (a->nlocal != nlocal || nlocal < 1)
        *why = "disagrees on the number of local ranks";
    else if (a->ncells < SHM_CELLS_MIN || a->ncells > SHM_CELLS_MAX ||
             (a->ncells & (a->ncells - 1)) != 0)
        *why = "bad inbox size";
    else if (a->nbufs < 1 || a->nbufs > SHM_POOL_BUFS_MAX || a->buf_bytes < SHM_BUF_MIN ||
             a->buf_bytes > SHM_BUF_MAX || a->buf_bytes % SHM_LINE != 0)
        *why = "bad buffer pool";
    else if (a->seg_bytes != shm_seg_bytes(a->ncells, a->nbufs, a->buf_bytes))
        *why = "segment size does not match its inbox and pool";
    return *why ? RMP_ERR_BOOTSTRAP : RMP_SUCCESS;
}

#endif
