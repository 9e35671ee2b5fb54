/* SPDX-License-Identifier: BSD-3-Clause */
/* What shm_get_address publishes (its piece of the rmp.tl blob), and its validation at connect.
 * Header-only so that the fuzzer (tests/fuzz/fuzz_shm_addr.c) runs the very
 * code shm_connect runs. */
#ifndef SHM_ADDR_H
#define SHM_ADDR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rmp.h"
#include "shm_ring.h"

typedef struct shm_addr {
    char name[64];
    int32_t pid;
    int32_t nlocal;
    uint64_t ring_lines;
    uint64_t seg_bytes;
    uint64_t probe_addr; /* address of the owner's probe word */
} shm_addr_t;

/* Control lines (one header line, one per sender), then the rings. */
static inline size_t shm_seg_bytes(int nlocal, uint64_t ring_lines)
{
    size_t ctl = (size_t)SHM_LINE * (size_t)(1 + nlocal);
    return ctl + (size_t)nlocal * ring_lines * SHM_LINE;
}

/* Is blob (len bytes from PMIx) a peer address this rank can use, with
 * nlocal ranks on the node? The ring geometry must be one shm_init makes
 * (a power of two of lines, at most SHM_RING_MAX_LINES) and the segment
 * exactly the size it implies, so that the rings computed from it lie in
 * the mapping. RMP_SUCCESS, or RMP_ERR_BOOTSTRAP with a reason in *why. */
static inline int shm_addr_check(const void *blob, size_t len, int nlocal, const char **why)
{
    const shm_addr_t *a = blob;
    *why = NULL;
    if (len != sizeof(*a))
        *why = "wrong size";
    else if (memchr(a->name, '\0', sizeof(a->name)) == NULL)
        *why = "unterminated segment name";
    else if (a->pid <= 0)
        *why = "bad process id";
    else if (a->nlocal != nlocal || nlocal < 1)
        *why = "disagrees on the number of local ranks";
    else if (a->ring_lines < 64 || a->ring_lines > SHM_RING_MAX_LINES ||
             (a->ring_lines & (a->ring_lines - 1)) != 0)
        *why = "bad ring size";
    else if (a->seg_bytes != shm_seg_bytes(nlocal, a->ring_lines))
        *why = "segment size does not match its rings";
    return *why ? RMP_ERR_BOOTSTRAP : RMP_SUCCESS;
}

#endif
