/* SPDX-License-Identifier: BSD-3-Clause */
/* The private communicators of partitioned communication, one pair per peer of an MPI
 * communicator, cached on it (mpii_part.h). */
#include <stdlib.h>

#include "mpii_part.h"

mpii_part_pair_t *mpii_part_pair(mpii_comm_t *c, int peer, int *rc)
{
    mpii_part_pair_t *p;
    for (p = c->part_priv; p; p = p->next)
        if (p->peer == peer)
            return p;
    if (!(p = calloc(1, sizeof(*p)))) {
        *rc = RMP_ERR_NOMEM;
        return NULL;
    }
    int lo = c->rank < peer ? c->rank : peer, hi = c->rank < peer ? peer : c->rank;
    int ranks[2] = {lo, hi}, n = lo == hi ? 1 : 2;
    /* Distinct tags per pair: creations of pairs sharing a process may overlap. */
    int tag = (int)(((unsigned)lo * 40503u + (unsigned)hi) & 0x0ffffffeu);
    *rc = rmp_comm_create_group(c->rc, n, ranks, tag, &p->ctl);
    if (*rc == RMP_SUCCESS) {
        *rc = rmp_comm_create_group(c->rc, n, ranks, tag + 1, &p->data);
        if (*rc != RMP_SUCCESS)
            rmp_comm_free(&p->ctl);
    }
    if (*rc != RMP_SUCCESS) {
        free(p);
        return NULL;
    }
    p->peer = peer;
    p->prank = n == 1 ? 0 : (c->rank == lo ? 1 : 0);
    p->next_tag = 1;
    p->next = c->part_priv;
    c->part_priv = p;
    return p;
}

int mpii_part_tags(mpii_part_pair_t *p, int n)
{
    if (p->next_tag > RMP_TAG_UB - n)
        p->next_tag = 1; /* after a billion tags: the first ones are long done */
    int base = p->next_tag;
    p->next_tag += n > 0 ? n : 1;
    return base;
}

void mpii_part_comm_free(mpii_comm_t *c)
{
    mpii_part_pair_t *p = c->part_priv;
    while (p) {
        mpii_part_pair_t *next = p->next;
        rmp_comm_free(&p->ctl);
        rmp_comm_free(&p->data);
        free(p);
        p = next;
    }
    c->part_priv = NULL;
}
