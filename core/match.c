/* SPDX-License-Identifier: BSD-3-Clause */
/* Matching. Linear scans: queues are short in practice, and FIFO order is
 * what gives MPI-style non-overtaking. */
#include "match.h"

rmpi_mq_elem_t *rmpi_mq_match_posted(rmpi_mq_t *q, uint32_t cid, int src, int tag)
{
    for (rmpi_mq_elem_t *e = q->head.next; e != &q->head; e = e->next) {
        if (e->cid == cid && (e->src == src || e->src == RMP_ANY_SOURCE) &&
            (e->tag == tag || e->tag == RMP_ANY_TAG)) {
            rmpi_mq_remove(q, e);
            return e;
        }
    }
    return NULL;
}

rmpi_mq_elem_t *rmpi_mq_match_unexp(rmpi_mq_t *q, uint32_t cid, int src, int tag, int remove)
{
    for (rmpi_mq_elem_t *e = q->head.next; e != &q->head; e = e->next) {
        if (e->cid == cid && (src == RMP_ANY_SOURCE || e->src == src) &&
            (tag == RMP_ANY_TAG || e->tag == tag)) {
            if (remove)
                rmpi_mq_remove(q, e);
            return e;
        }
    }
    return NULL;
}
