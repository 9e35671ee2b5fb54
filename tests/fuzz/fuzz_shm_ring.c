/* SPDX-License-Identifier: BSD-3-Clause */
/* The shm ring as its consumer sees it (transports/shm/shm_ring.h).
 * Mode 0, a hostile producer: ring lines straight from the input, each
 * published for the lap the consumer is on; shm_ring_peek/pop must only
 * hand out records whose header and payload lie in the ring (the ring is
 * one allocation of its exact size: ASan sees any byte past it), never
 * spin, and stop at the first malformed record.
 * Mode 1, an honest producer: pushes and pops of sizes from the input;
 * every record comes out intact and in order, and none is ever called
 * malformed (a false alarm would fail a healthy peer). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "transports/shm/shm_ring.h"

static void hostile(fuzz_in_t *in)
{
    uint64_t nlines = 8u << (fuzz_u8(in) % 4); /* 8..64 */
    uint64_t tail = fuzz_u8(in) % (3 * nlines);
    shm_ring_ctl_t ctl;
    memset(&ctl, 0, sizeof(ctl));
    shm_line_t *lines = aligned_alloc(SHM_LINE, nlines * SHM_LINE);
    FUZZ_CHECK(lines != NULL);
    fuzz_take(in, lines, nlines * SHM_LINE);
    for (uint64_t i = 0; i < nlines; i++) {
        /* Absolute position of line i at or after tail: the seq a record
         * there carries when the producer published it for this lap. */
        uint64_t abs = tail - (tail % nlines) + i;
        if (abs < tail)
            abs += nlines;
        shm_rec_t *rec = (shm_rec_t *)&lines[i];
        if (!(lines[i].b[0] & 1)) /* some lines stay unpublished */
            atomic_store(&rec->seq, abs + 1);
    }
    shm_rx_t rx = {&ctl, lines, nlines, tail, 0};
    uint64_t start = tail;
    unsigned sink = 0;
    for (;;) {
        shm_rec_t *rec = shm_ring_peek(&rx);
        if (!rec)
            break;
        const unsigned char *d = (const unsigned char *)(rec + 1);
        const unsigned char *end = (const unsigned char *)(lines + nlines);
        FUZZ_CHECK(!rx.corrupt && rec->hlen + (size_t)rec->plen <= (size_t)(end - d));
        FUZZ_CHECK((shm_line_t *)rec == &lines[rx.tail & (nlines - 1)]);
        for (size_t i = 0; i < rec->hlen + (size_t)rec->plen; i++)
            sink += d[i]; /* what the AM handler may read */
        shm_ring_pop(&rx, rec);
        FUZZ_CHECK(atomic_load(&ctl.tail) == rx.tail);
    }
    /* Each line is consumed at most once per lap it was published for. */
    FUZZ_CHECK(rx.tail - start <= nlines);
    (void)sink;
    free(lines);
}

static void honest(fuzz_in_t *in)
{
    uint64_t nlines = 8u << (fuzz_u8(in) % 4);
    shm_ring_ctl_t ctl;
    memset(&ctl, 0, sizeof(ctl));
    shm_line_t *lines = aligned_alloc(SHM_LINE, nlines * SHM_LINE);
    FUZZ_CHECK(lines != NULL);
    memset(lines, 0, nlines * SHM_LINE);
    shm_tx_t tx = {&ctl, lines, nlines, 0, 0};
    shm_rx_t rx = {&ctl, lines, nlines, 0, 0};
    size_t max = shm_ring_max_msg(nlines);
    /* In-flight records, by a counter the contents derive from. */
    uint32_t sent = 0, got = 0;
    size_t hl[512], pl[512];
    unsigned char buf[4096];
    while (in->left) {
        uint8_t op = fuzz_u8(in);
        if (op & 1) {
            size_t h = 1 + fuzz_u8(in) % 64;
            size_t p = ((size_t)fuzz_u8(in) << 4 | (op >> 4)) % (max - h + 1);
            if (sent - got >= 512)
                continue;
            for (size_t i = 0; i < h + p; i++)
                buf[i] = (unsigned char)(sent * 7 + i);
            if (shm_ring_push(&tx, buf, h, buf + h, p) == 0) {
                hl[sent % 512] = h;
                pl[sent % 512] = p;
                sent++;
            } else {
                FUZZ_CHECK(sent != got); /* an empty ring takes any record up to max */
            }
        } else {
            shm_rec_t *rec = shm_ring_peek(&rx);
            FUZZ_CHECK(!rx.corrupt);
            FUZZ_CHECK((rec != NULL) == (sent != got));
            if (!rec)
                continue;
            FUZZ_CHECK(rec->hlen == hl[got % 512] && rec->plen == pl[got % 512]);
            const unsigned char *d = (const unsigned char *)(rec + 1);
            for (size_t i = 0; i < rec->hlen + (size_t)rec->plen; i++)
                FUZZ_CHECK(d[i] == (unsigned char)(got * 7 + i));
            shm_ring_pop(&rx, rec);
            got++;
        }
    }
    free(lines);
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
