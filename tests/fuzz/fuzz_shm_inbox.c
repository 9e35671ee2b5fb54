/* SPDX-License-Identifier: BSD-3-Clause */
/* The shm inbox and pool as their consumer sees them (transports/shm/
 * shm_inbox.h, shm_pool.h), with the checks shm_progress makes.
 * Mode 0, hostile producers: cells straight from the input, each published
 * for the lap the consumer is on; the consumer must only read header and
 * payload inside the cell or inside the named pool buffer (the cells and
 * the pool are allocations of their exact size: ASan sees any byte past
 * them), take each cell at most once per lap, and never spin.
 * Mode 1, honest producers: up to 4 senders claim cells, fill and publish
 * them in any order, inline or through their pools; every message comes
 * out intact, in claim order, none is called malformed (a false alarm
 * would fail a healthy peer), and the inbox and the pools report full
 * exactly when they are. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "transports/shm/shm_inbox.h"
#include "transports/shm/shm_pool.h"

static void hostile(fuzz_in_t *in)
{
    uint64_t ncells = 8u << (fuzz_u8(in) % 3); /* 8..32 */
    uint64_t tail = fuzz_u8(in) % (3 * ncells);
    int nlocal = 1 + fuzz_u8(in) % 8;
    uint32_t nbufs = 1 + fuzz_u8(in) % 4;
    size_t buf_bytes = 64 * (1 + (size_t)(fuzz_u8(in) % 8));
    shm_cell_t *cells = aligned_alloc(SHM_CELL, ncells * SHM_CELL);
    unsigned char *bufs = malloc(nbufs * buf_bytes);
    FUZZ_CHECK(cells != NULL && bufs != NULL);
    fuzz_take(in, cells, ncells * SHM_CELL);
    fuzz_take(in, bufs, nbufs * buf_bytes);
    for (uint64_t i = 0; i < ncells; i++) {
        uint64_t abs = tail - (tail % ncells) + i;
        if (abs < tail)
            abs += ncells;
        if (!(cells[i].data[SHM_CELL_DATA - 1] & 1)) /* some cells stay unpublished */
            atomic_store(&cells[i].seq, abs + 1);
    }
    shm_inbox_ctl_t ctl;
    memset(&ctl, 0, sizeof(ctl));
    shm_inbox_rx_t rx = {&ctl, cells, ncells, tail};
    uint64_t start = tail;
    unsigned sink = 0;
    for (;;) {
        shm_cell_t *c = shm_inbox_peek(&rx);
        if (!c)
            break;
        FUZZ_CHECK(c == &cells[rx.tail & (ncells - 1)]);
        if (shm_cell_check(c, nlocal, nbufs, buf_bytes) == 0) {
            const unsigned char *d = c->data;
            if (c->kind == SHM_CELL_POOL) {
                uint32_t idx;
                memcpy(&idx, c->data, sizeof(idx));
                d = shm_pool_buf(bufs, buf_bytes, idx);
            }
            for (size_t i = 0; i < c->hlen + (size_t)c->plen; i++)
                sink += d[i]; /* what the AM handler may read */
        }
        shm_inbox_pop(&rx, c);
    }
    FUZZ_CHECK(rx.tail - start <= ncells);
    (void)sink;
    free(bufs);
    free(cells);
}

#define NSRC 4
#define NBUFS 2
#define BUFB 512
#define MAXQ 64

typedef struct {
    shm_cell_t *c;
    uint64_t pos;
    uint32_t id;
    int pool; /* buffer index + 1, 0 inline */
} claim_t;

static void honest(fuzz_in_t *in)
{
    uint64_t ncells = 8u << (fuzz_u8(in) % 3);
    shm_cell_t *cells = aligned_alloc(SHM_CELL, ncells * SHM_CELL);
    shm_pool_state_t *state = aligned_alloc(SHM_LINE, NSRC * NBUFS * sizeof(shm_pool_state_t));
    unsigned char *bufs = malloc(NSRC * NBUFS * BUFB);
    FUZZ_CHECK(cells && state && bufs);
    memset(state, 0, NSRC * NBUFS * sizeof(shm_pool_state_t));
    shm_inbox_ctl_t ctl;
    shm_inbox_init(&ctl, cells, ncells);
    shm_inbox_rx_t rx = {&ctl, cells, ncells, 0};
    shm_pool_t pools[NSRC];
    for (int s = 0; s < NSRC; s++)
        pools[s] = (shm_pool_t){state + s * NBUFS, bufs + s * NBUFS * BUFB, NBUFS, BUFB, 0};
    /* Claims not yet published, and every claim in claim order (what the
     * consumer must see): ids are the claim count. */
    claim_t open[MAXQ];
    int nopen = 0;
    uint32_t claimed = 0, got = 0;
    int busy[NSRC] = {0};
    uint32_t plen_of[4096];
    uint16_t src_of[4096];
    while (in->left) {
        uint8_t op = fuzz_u8(in);
        uint16_t src = (uint16_t)((op >> 2) % NSRC);
        if ((op & 3) == 0 && nopen < MAXQ && claimed - got < 4096) {
            /* claim (and fill) a cell, inline or through a pool buffer */
            int pool = (op & 0x80) != 0;
            uint32_t plen = pool ? fuzz_u8(in) * 2u % (BUFB - 7) : fuzz_u8(in) % (SHM_CELL_DATA - 7);
            int64_t b = -1;
            if (pool) {
                b = shm_pool_get(&pools[src]);
                FUZZ_CHECK((b < 0) == (busy[src] == NBUFS));
                if (b < 0)
                    continue;
                busy[src]++;
            }
            uint64_t pos;
            shm_cell_t *c = shm_inbox_claim(&ctl, cells, ncells, &pos);
            FUZZ_CHECK((c == NULL) == (claimed - got == ncells));
            if (!c) {
                if (pool) {
                    shm_pool_put(pools[src].state, (uint32_t)b);
                    busy[src]--;
                }
                continue;
            }
            FUZZ_CHECK(pos == claimed);
            unsigned char *d = pool ? shm_pool_buf(pools[src].bufs, BUFB, (uint32_t)b) : c->data;
            memcpy(d, &claimed, 4);
            for (uint32_t i = 0; i < plen; i++)
                d[4 + i] = (unsigned char)(claimed * 7 + i);
            c->plen = plen;
            c->src = src;
            c->hlen = 4;
            c->kind = pool ? SHM_CELL_POOL : SHM_CELL_INLINE;
            if (pool) {
                uint32_t idx = (uint32_t)b;
                memcpy(c->data, &idx, 4);
            }
            plen_of[claimed % 4096] = plen;
            src_of[claimed % 4096] = src;
            open[nopen++] = (claim_t){c, pos, claimed, pool ? (int)b + 1 : 0};
            claimed++;
        } else if ((op & 3) == 1 && nopen) {
            /* publish one open claim, not necessarily the oldest */
            int k = (op >> 2) % nopen;
            shm_inbox_publish(open[k].c, open[k].pos);
            open[k] = open[--nopen];
        } else {
            /* consume what is there */
            shm_cell_t *c = shm_inbox_peek(&rx);
            int oldest_open = 0;
            for (int k = 0; k < nopen; k++)
                oldest_open |= open[k].id == got;
            FUZZ_CHECK((c != NULL) == (got != claimed && !oldest_open));
            if (!c)
                continue;
            FUZZ_CHECK(shm_cell_check(c, NSRC, NBUFS, BUFB) == 0);
            FUZZ_CHECK(c->src == src_of[got % 4096] && c->plen == plen_of[got % 4096]);
            const unsigned char *d = c->data;
            uint32_t idx = 0;
            if (c->kind == SHM_CELL_POOL) {
                memcpy(&idx, c->data, 4);
                d = shm_pool_buf(pools[c->src].bufs, BUFB, idx);
            }
            uint32_t id;
            memcpy(&id, d, 4);
            FUZZ_CHECK(id == got);
            for (uint32_t i = 0; i < c->plen; i++)
                FUZZ_CHECK(d[4 + i] == (unsigned char)(got * 7 + i));
            if (c->kind == SHM_CELL_POOL) {
                shm_pool_put(pools[c->src].state, idx);
                busy[c->src]--;
            }
            shm_inbox_pop(&rx, c);
            got++;
        }
    }
    free(bufs);
    free(state);
    free(cells);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    if (fuzz_u8(&in) & 1)
        honest(&in);
    else
        hostile(&in);
    return 0;
}
