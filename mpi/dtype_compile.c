/* SPDX-License-Identifier: BSD-3-Clause */
/* The packing forms of an indexed layout node, chosen once when the type is built
 * (mpii_dtype.h): blocks that are all single runs get a flat array of where their
 * bytes start (pack.c gathers over it), and such runs of one length at a constant
 * step become the vector they are (pack.c's strided loop). */
#include "mpii_base.h"
#include "mpii_dtype.h"

/* Equal runs at a constant step, of one basic kind: rewrite top (an indexed node over
 * the offsets roff) in place as a vector of one run. The run's node is top + 1, the
 * node that dtype_create.c gave block 0's run (unused once the blocks are merged). */
static int dtc_strided(mpii_dl_t *top, const MPI_Aint *roff)
{
    MPI_Count m = top->u.idx.n;
    const mpii_dl_t *c0 = top->u.idx.child[0];
    if (m < 2 || c0 != top + 1)
        return 0;
    MPI_Aint step = roff[1] - roff[0];
    for (MPI_Count k = 1; k < m; k++) {
        const mpii_dl_t *c = top->u.idx.child[k];
        if (roff[k] - roff[k - 1] != step || c->u.run.esize != c0->u.run.esize ||
            c->u.run.xconv != c0->u.run.xconv)
            return 0;
    }
    mpii_dl_t *run = top + 1;
    uint8_t xconv = c0->u.run.xconv;
    size_t esize = c0->u.run.esize, len = top->u.idx.ulen;
    MPI_Count nbasic = c0->nbasic;
    mpii_dtype_run(run, roff[0], len, esize, (MPI_Aint)len);
    run->nbasic = nbasic;
    run->u.run.xconv = xconv;
    top->kind = MPII_DL_VEC;
    top->u.vec.count = m;
    top->u.vec.blocklen = 1;
    top->u.vec.stride = step;
    top->u.vec.child = run;
    return 1;
}

int mpii_dtype_idx_compile(mpii_dl_t *top, MPI_Aint *roff)
{
    MPI_Count m = top->u.idx.n;
    size_t ulen = top->u.idx.child[0]->size;
    top->u.idx.roff = NULL;
    top->u.idx.ulen = 0;
    for (MPI_Count k = 0; k < m; k++) {
        const mpii_dl_t *c = top->u.idx.child[k];
        if (top->u.idx.blocklen[k] != 1 || c->kind != MPII_DL_RUN)
            return 0;
        roff[k] = top->u.idx.disp[k] + c->u.run.off;
        if (c->size != ulen)
            ulen = 0;
    }
    top->u.idx.roff = roff;
    top->u.idx.ulen = ulen;
    return ulen ? dtc_strided(top, roff) : 0;
}
