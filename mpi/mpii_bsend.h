/* SPDX-License-Identifier: BSD-3-Clause */
/* Buffered sends (bsend.c, bsend_attach.c): a buffer is the process's
 * (MPI_Buffer_attach) or a communicator's (MPI_Comm_attach_buffer, which takes
 * precedence); each in-flight message holds bytes + MPI_BSEND_OVERHEAD of it. */
#ifndef MPII_BSEND_H
#define MPII_BSEND_H

#include <stdint.h>

#include "mpii_base.h"

enum { MPII_BS_NONE = 0, MPII_BS_USER, MPII_BS_AUTO };

typedef struct mpii_bsseg mpii_bsseg_t; /* one message in flight (bsend.c) */

typedef struct mpii_bsbuf {
    int kind;           /* MPII_BS_* */
    char *buf;          /* MPII_BS_USER: the attached memory */
    size_t size;
    mpii_bsseg_t *segs; /* in flight, by offset in buf */
    uint64_t seq;       /* number of the next message (flush waits up to one) */
} mpii_bsbuf_t;

extern mpii_bsbuf_t mpii_bs_proc;

/* Attach buffer/size (MPI_BUFFER_AUTOMATIC: allocate per message): MPI_SUCCESS or
 * MPI_ERR_BUFFER (already attached, bad arguments), not reported. */
int mpii_bs_attach(mpii_bsbuf_t *b, void *buffer, MPI_Count size);
/* Block until every message of b has left, then forget the buffer: what was attached. */
void mpii_bs_detach(mpii_bsbuf_t *b, void **buffer, MPI_Count *size);
/* Block until every message buffered so far in b has left. */
void mpii_bs_flush(mpii_bsbuf_t *b);
/* A request complete once every message buffered so far in b has left. */
int mpii_bs_iflush(mpii_bsbuf_t *b, mpii_comm_t *c, MPI_Request *request);

#endif
