/* SPDX-License-Identifier: BSD-3-Clause */
/* Tag-matching queues: posted receives (may hold wildcards) and unexpected
 * messages (concrete source and tag). Intrusive doubly-linked FIFO lists,
 * so that matching preserves per-pair arrival order. */
#ifndef RMPI_MATCH_H
#define RMPI_MATCH_H

#include <stdint.h>

#include "rmp.h"

typedef struct rmpi_mq_elem {
    struct rmpi_mq_elem *next, *prev;
    uint32_t cid;
    int32_t src; /* RMP_ANY_SOURCE allowed in posted entries */
    int32_t tag; /* RMP_ANY_TAG allowed in posted entries */
} rmpi_mq_elem_t;

typedef struct rmpi_mq {
    rmpi_mq_elem_t head; /* sentinel */
    size_t len;
    size_t high_water;
} rmpi_mq_t;

static inline void rmpi_mq_init(rmpi_mq_t *q)
{
    q->head.next = q->head.prev = &q->head;
    q->len = q->high_water = 0;
}

static inline int rmpi_mq_empty(const rmpi_mq_t *q)
{
    return q->head.next == &q->head;
}

static inline void rmpi_mq_push(rmpi_mq_t *q, rmpi_mq_elem_t *e)
{
    e->next = &q->head;
    e->prev = q->head.prev;
    q->head.prev->next = e;
    q->head.prev = e;
    if (++q->len > q->high_water)
        q->high_water = q->len;
}

static inline void rmpi_mq_remove(rmpi_mq_t *q, rmpi_mq_elem_t *e)
{
    e->prev->next = e->next;
    e->next->prev = e->prev;
    e->next = e->prev = e;
    q->len--;
}

/* First posted entry matching the concrete (cid, src, tag); removed if found. */
rmpi_mq_elem_t *rmpi_mq_match_posted(rmpi_mq_t *q, uint32_t cid, int src, int tag);
/* First unexpected entry matched by (cid, src, tag), wildcards allowed in the
 * query; removed when remove is non-zero. */
rmpi_mq_elem_t *rmpi_mq_match_unexp(rmpi_mq_t *q, uint32_t cid, int src, int tag, int remove);

#endif
