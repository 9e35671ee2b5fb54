/* SPDX-License-Identifier: BSD-3-Clause */
/* The blocks of a v-collective as rmp layouts (rmp_gatherv_layout and friends): a
 * non-contiguous block is packed and unpacked by core piece by piece as it moves, a
 * contiguous one is plain bytes; no whole-message copy on either side. */
#include "mpii_base.h"
#include "mpii_coll.h"
#include "mpii_dtype.h"
#include "mpii_p2p.h"

void mpii_blocks_one(rmp_layout_t *lay, mpii_typed_t *t, const mpii_dtype_t *d,
                     const void *buf, MPI_Count count)
{
    if (d->contig)
        *lay = (rmp_layout_t){.ctx = mpii_coll_at(buf, d->true_lb)};
    else
        mpii_layout_init(lay, t, d, buf, count);
}

int mpii_blocks_init(mpii_blocks_t *b, int n, const void *buf, const mpii_blocks_args_t *a)
{
    b->lay = malloc((size_t)n * (sizeof(*b->lay) + sizeof(*b->typed) + sizeof(*b->bytes)) + 1);
    if (!b->lay)
        return MPI_ERR_NO_MEM;
    b->typed = (mpii_typed_t *)(b->lay + n);
    b->bytes = (size_t *)(b->typed + n);
    for (int i = 0; i < n; i++) {
        const mpii_dtype_t *d = a->types ? a->types[i] : a->type;
        MPI_Count c = a->cnt ? a->cnt[i] : a->icnt[i];
        MPI_Aint disp = a->dsp ? a->dsp[i] : a->idsp[i];
        if (c < 0) {
            free(b->lay);
            b->lay = NULL;
            return MPI_ERR_COUNT;
        }
        b->bytes[i] = (size_t)c * d->size;
        mpii_blocks_one(&b->lay[i], &b->typed[i], d,
                        mpii_coll_at(buf, a->bytes_disp ? disp : disp * d->extent), c);
    }
    return MPI_SUCCESS;
}

void mpii_blocks_free(mpii_blocks_t *b)
{
    free(b->lay);
    b->lay = NULL;
}

mpii_lay_req_t *mpii_lay_req_new(mpii_dtype_t **t, int nt, int take)
{
    mpii_lay_req_t *x = calloc(1, sizeof(*x));
    if (!x) {
        if (take)
            free(t);
        return NULL;
    }
    if (!take) {
        for (int i = 0; i < nt; i++)
            x->t_two[i] = t[i];
        t = x->t_two;
    }
    x->t = t;
    x->nt = nt;
    for (int i = 0; i < nt; i++)
        if (t[i])
            mpii_dtype_retain(t[i]);
    return x;
}

void mpii_lay_req_free(mpii_lay_req_t *x)
{
    if (!x)
        return;
    mpii_blocks_free(&x->s);
    mpii_blocks_free(&x->r);
    for (int i = 0; i < x->nt; i++)
        if (x->t[i])
            mpii_dtype_release(x->t[i]);
    if (x->t != x->t_two)
        free(x->t);
    free(x);
}

static void lay_req_release(mpii_req_t *q)
{
    mpii_lay_req_free(q->ctx);
    q->ctx = NULL;
}

int mpii_lay_req_wrap(mpii_comm_t *c, int rc, rmp_request_t rr, mpii_lay_req_t *x,
                      MPI_Request *req, const char *fn)
{
    if (rc != RMP_SUCCESS) {
        mpii_lay_req_free(x);
        return mpii_coll_err(c, rc, fn);
    }
    mpii_req_t *q = mpii_req_new_rmp(c, rr, NULL);
    if (!q) {
        rmp_wait(&rr, NULL);
        mpii_lay_req_free(x);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    q->ctx = x;
    q->release = x ? lay_req_release : NULL;
    *req = (MPI_Request)q;
    return MPI_SUCCESS;
}
