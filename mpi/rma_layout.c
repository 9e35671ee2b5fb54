/* SPDX-License-Identifier: BSD-3-Clause */
/* Non-contiguous target datatypes of one-sided operations. rmp's windows move contiguous
 * bytes, so a target layout is cut into its contiguous blocks (adjacent runs merged) and
 * each block is one nonblocking rmp transfer to or from the matching bytes of the packed
 * stream; the caller flushes once when it needs the data moved. */
#include <stdlib.h>
#include <string.h>

#include "mpii_base.h"
#include "mpii_dtype.h"
#include "mpii_rma.h"

typedef struct lay_blk {
    mpii_win_t *w;
    char *direct;    /* the target's window mapped here (rmp_win_shared_ptr), else NULL */
    int is_put, target;
    char *packed;    /* the packed stream (origin data or destination) */
    size_t base;     /* target offset of the element origin (window bytes) */
    size_t pos;      /* packed bytes already issued */
    MPI_Aint off;    /* pending block: offset relative to the element origin */
    size_t len;      /* and its bytes (0: none) */
    int rc;
} lay_blk_t;

static int lay_issue(lay_blk_t *b)
{
    if (b->len == 0)
        return RMP_SUCCESS;
    size_t off = b->base + (size_t)b->off;
    char *p = b->packed + b->pos;
    int rc = RMP_SUCCESS;
    if (b->direct && b->is_put) /* a load or store, as rmp itself does for mapped targets */
        memcpy(b->direct + off, p, b->len);
    else if (b->direct)
        memcpy(p, b->direct + off, b->len);
    else
        rc = b->is_put ? rmp_put_nbi(p, b->len, b->target, off, b->w->data)
                       : rmp_get_nbi(p, b->len, b->target, off, b->w->data);
    b->pos += b->len;
    b->len = 0;
    return rc;
}

static int lay_block(lay_blk_t *b, MPI_Aint off, size_t len)
{
    if (len == 0)
        return RMP_SUCCESS;
    if (b->len && off == b->off + (MPI_Aint)b->len) {
        b->len += len;
        return RMP_SUCCESS;
    }
    int rc = lay_issue(b);
    b->off = off;
    b->len = len;
    return rc;
}

/* The blocks of one element of d at base, in packed order. */
static int lay_walk(const mpii_dl_t *d, MPI_Aint base, lay_blk_t *b)
{
    int rc = RMP_SUCCESS;
    switch (d->kind) {
    case MPII_DL_RUN:
        return lay_block(b, base + d->u.run.off, d->u.run.len);
    case MPII_DL_VEC: {
        const mpii_dl_t *c = d->u.vec.child;
        for (MPI_Count i = 0; i < d->u.vec.count && rc == RMP_SUCCESS; i++)
            for (MPI_Count j = 0; j < d->u.vec.blocklen && rc == RMP_SUCCESS; j++)
                rc = lay_walk(c, base + i * d->u.vec.stride + j * c->extent, b);
        return rc;
    }
    default: /* MPII_DL_IDX */
        for (MPI_Count k = 0; k < d->u.idx.n && rc == RMP_SUCCESS; k++) {
            const mpii_dl_t *c = d->u.idx.child[k];
            if (c->size == 0)
                continue;
            for (MPI_Count j = 0; j < d->u.idx.blocklen[k] && rc == RMP_SUCCESS; j++)
                rc = lay_walk(c, base + d->u.idx.disp[k] + j * c->extent, b);
        }
        return rc;
    }
}

/* A dense layout read in one transfer of the bytes it spans (holes included: reading
 * them is harmless) and packed here, rather than one transfer per block (a transposing
 * vector of single ints: a million). Complete on return. RMP_ERR_NOT_SUPPORTED: too
 * sparse, or no memory for it; the caller goes block by block. */
static int lay_get_span(mpii_win_t *w, void *packed, int target, size_t base,
                        const mpii_dtype_t *td, MPI_Count tcount)
{
    MPI_Aint lo, hi;
    mpii_rma_span(td, tcount, &lo, &hi);
    size_t span = (size_t)(hi - lo), bytes = (size_t)tcount * td->size;
    char *img;
    if (span > 2 * bytes + 65536 || !(img = malloc(span)))
        return RMP_ERR_NOT_SUPPORTED;
    int rc = rmp_get(img, span, target, base + (size_t)lo, w->data);
    if (rc == RMP_SUCCESS) /* the image holds byte lo of the element origin at img[0] */
        mpii_dtype_pack(td, (const void *)((uintptr_t)img - (uintptr_t)lo), tcount, 0,
                        packed, bytes);
    free(img);
    return rc;
}

int mpii_rma_blocks(mpii_win_t *w, int is_put, void *packed, int target, size_t base,
                    const mpii_dtype_t *td, MPI_Count tcount)
{
    lay_blk_t b = {w, NULL, is_put, target, packed, base, 0, 0, 0, RMP_SUCCESS};
    int rc = RMP_SUCCESS;
    void *map = NULL;
    /* Many small blocks to a window mapped here (allocated or shared, same node; the
     * range was checked by mpii_rma_prepare): copy them, no rmp call per block. */
    if (!td->contig && w->flavor != MPI_WIN_FLAVOR_DYNAMIC &&
        rmp_win_shared_ptr(w->data, target, &map) == RMP_SUCCESS)
        b.direct = map;
    if (!is_put && !b.direct && !td->contig && w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        if ((rc = lay_get_span(w, packed, target, base, td, tcount)) != RMP_ERR_NOT_SUPPORTED)
            return rc;
    rc = RMP_SUCCESS;
    if (td->contig) { /* one block at the type's true_lb */
        b.off = td->true_lb;
        b.len = (size_t)tcount * td->size;
        return lay_issue(&b);
    }
    for (MPI_Count e = 0; e < tcount && rc == RMP_SUCCESS; e++)
        rc = lay_walk(td->dl, e * td->extent, &b);
    return rc == RMP_SUCCESS ? lay_issue(&b) : rc;
}

void mpii_rma_span(const mpii_dtype_t *td, MPI_Count tcount, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint rep = tcount > 0 ? (MPI_Aint)(tcount - 1) * td->extent : 0;
    *lo = td->true_lb + (rep < 0 ? rep : 0);
    *hi = td->true_lb + td->true_extent + (rep > 0 ? rep : 0);
}
