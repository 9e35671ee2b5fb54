/* SPDX-License-Identifier: BSD-3-Clause */
/* Buffered sends: the message is packed into the attached buffer (or a
 * malloc'd one with MPI_BUFFER_AUTOMATIC) and sent from there; the space is
 * reclaimed once rmp completed the send. Buffer_attach/detach/flush. */
#include <stdlib.h>

#include "mpii.h"

typedef struct bs_seg {
    size_t off, len; /* within the attached buffer (automatic: len only) */
    void *data;
    rmp_request_t rr;
    struct bs_seg *next; /* sorted by offset */
} bs_seg_t;

static char *bs_buf;
static size_t bs_size;
static int bs_automatic;
static bs_seg_t *bs_segs;

static void bs_drop(bs_seg_t **pp)
{
    bs_seg_t *s = *pp;
    *pp = s->next;
    if (bs_automatic)
        free(s->data);
    free(s);
}

/* Reclaim the space of completed sends; with block, wait for all. */
static void bs_reap(int block)
{
    bs_seg_t **pp = &bs_segs;
    while (*pp) {
        int done = 1;
        if (block)
            rmp_wait(&(*pp)->rr, NULL); /* an error is the receiver's to see */
        else if (rmp_test(&(*pp)->rr, &done, NULL) != RMP_SUCCESS)
            done = 1;
        if (done)
            bs_drop(pp);
        else
            pp = &(*pp)->next;
    }
}

/* A free range of len bytes: where to link it, its offset. */
static int bs_fit(size_t len, bs_seg_t ***link, size_t *off)
{
    size_t end = 0;
    bs_seg_t **pp = &bs_segs;
    for (; *pp; pp = &(*pp)->next) {
        if ((*pp)->off - end >= len)
            break;
        end = (*pp)->off + (*pp)->len;
    }
    if (!*pp && bs_size - end < len)
        return 0;
    *link = pp;
    *off = end;
    return 1;
}

int mpii_bsend(const void *buf, MPI_Count count, mpii_dtype_t *d, int dest, int tag,
               mpii_comm_t *c, const char *fn)
{
    size_t bytes = (size_t)count * d->size;
    size_t len = (bytes + 63) & ~(size_t)63;
    bs_reap(0);
    bs_seg_t **link = &bs_segs, *s = malloc(sizeof(*s));
    if (!s)
        goto err_nomem;
    s->off = 0;
    s->len = len;
    if (bs_automatic) {
        s->data = malloc(len ? len : 1);
        if (!s->data) {
            free(s);
            goto err_nomem;
        }
    } else if (!bs_buf || !bs_fit(len + MPI_BSEND_OVERHEAD, &link, &s->off)) {
        free(s);
        return fn ? mpii_err_comm(c, MPI_ERR_BUFFER, fn,
                                  "no room for %zu bytes in the attached buffer (%zu bytes%s)",
                                  bytes, bs_size, bs_buf ? "" : ": none attached")
                  : MPI_ERR_BUFFER;
    } else {
        s->len = len + MPI_BSEND_OVERHEAD;
        s->data = bs_buf + s->off;
    }
    mpii_dtype_pack(d, buf, count, 0, s->data, bytes);
    int rc = rmp_isend(s->data, bytes, c->inter ? mpii_inter_peer(c, dest) : dest, tag, c->rc,
                       &s->rr);
    if (rc != RMP_SUCCESS) {
        if (bs_automatic)
            free(s->data);
        free(s);
        return fn ? mpii_p2p_err(c, rc, fn) : mpii_err_from_rmp(rc);
    }
    s->next = *link;
    *link = s;
    return MPI_SUCCESS;
err_nomem:
    return fn ? mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory") : MPI_ERR_NO_MEM;
}

static int bs_attach(void *buffer, MPI_Count size, const char *fn)
{
    if (bs_buf || bs_automatic)
        return mpii_err_comm(NULL, MPI_ERR_BUFFER, fn, "a buffer is already attached");
    if (buffer == MPI_BUFFER_AUTOMATIC) {
        bs_automatic = 1;
        return MPI_SUCCESS;
    }
    if (!buffer || size < 0)
        return mpii_err_comm(NULL, MPI_ERR_BUFFER, fn, "invalid buffer %p of %lld bytes",
                             buffer, (long long)size);
    bs_buf = buffer;
    bs_size = (size_t)size;
    return MPI_SUCCESS;
}

int PMPI_Buffer_attach(void *buffer, int size)
{
    return bs_attach(buffer, size, "MPI_Buffer_attach");
}
MPII_WEAK(Buffer_attach)

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    return bs_attach(buffer, size, "MPI_Buffer_attach_c");
}
MPII_WEAK(Buffer_attach_c)

/* Detach waits until every buffered message has left. */
static int bs_detach(void *buffer_addr, MPI_Count *size, const char *fn)
{
    if (!buffer_addr || !size)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "NULL argument");
    bs_reap(1);
    if (bs_automatic) {
        *(void **)buffer_addr = MPI_BUFFER_AUTOMATIC;
        *size = 0;
    } else {
        *(void **)buffer_addr = bs_buf;
        *size = (MPI_Count)bs_size;
    }
    bs_buf = NULL;
    bs_size = 0;
    bs_automatic = 0;
    return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_Count s = 0;
    int rc = bs_detach(buffer_addr, size ? &s : NULL, "MPI_Buffer_detach");
    if (rc == MPI_SUCCESS)
        *size = (int)s;
    return rc;
}
MPII_WEAK(Buffer_detach)

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    return bs_detach(buffer_addr, size, "MPI_Buffer_detach_c");
}
MPII_WEAK(Buffer_detach_c)

int PMPI_Buffer_flush(void)
{
    bs_reap(1);
    return MPI_SUCCESS;
}
MPII_WEAK(Buffer_flush)

void mpii_bsend_fini(void)
{
    bs_reap(1);
    bs_buf = NULL;
    bs_size = 0;
    bs_automatic = 0;
}
