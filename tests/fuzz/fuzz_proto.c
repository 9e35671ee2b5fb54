/* SPDX-License-Identifier: BSD-3-Clause */
/* Protocol messages as rmpi_am_handler gets them (core/proto.c), and the
 * two bounds checks of emulated one-sided operations (core/rma.c).
 * Input: hlen byte, window byte, then hlen header bytes, then payload.
 * Contract: an accepted message has exactly its type's header length and
 * self-consistent sizes and statuses; an accepted one-sided access lies in
 * the window (checked by touching a window of exactly that size), and an
 * accepted get reply lands in the buffer of the get. */
#include <string.h>

#include "fuzz.h"
#include "proto.h"
#include "rmp.h"
#include "transport.h"

static int status_ok(int32_t s)
{
    return s == RMP_SUCCESS || (s < 0 && s > RMP_ERR_LAST);
}

static void check_message(const void *hdr, size_t hlen, size_t plen)
{
    const char *why = NULL;
    int rc = rmpi_proto_check(hdr, hlen, plen, &why);
    if (rc != RMP_SUCCESS) {
        FUZZ_CHECK(rc == RMP_ERR_TRANSPORT && why && *why);
        return;
    }
    uint8_t type = *(const uint8_t *)hdr;
    FUZZ_CHECK(hlen == rmpi_proto_hlen(type) && hlen > 0);
    switch (type) {
    case RMPI_MSG_RTS:
    case RMPI_MSG_FRAG_FIRST: {
        const rmpi_rts_t *r = hdr;
        FUZZ_CHECK(plen <= r->size);
        FUZZ_CHECK(type == RMPI_MSG_FRAG_FIRST || (plen == 0 && r->sreq != 0));
        break;
    }
    case RMPI_MSG_FIN: {
        const rmpi_fin_t *f = hdr;
        FUZZ_CHECK(plen == 0 && f->req != 0 && status_ok(f->status));
        break;
    }
    case RMPI_MSG_CTS: {
        const rmpi_cts_t *c = hdr;
        /* The payload is the receiver's segment list, nseg of them (core/layout.h). */
        FUZZ_CHECK(plen == c->nseg * sizeof(struct iovec) && c->nseg <= RMPI_IOV_MAX);
        FUZZ_CHECK(c->sreq != 0 && status_ok(c->status) && c->more <= 1);
        FUZZ_CHECK(c->status == RMP_SUCCESS || (c->len == 0 && c->nseg == 0));
        break;
    }
    case RMPI_MSG_RMA: {
        const rmpi_rma_t *m = hdr;
        FUZZ_CHECK(m->op >= RMPI_RMA_PUT && m->op <= RMPI_RMA_ACK && status_ok(m->status));
        if (m->op == RMPI_RMA_GET_REP)
            FUZZ_CHECK(m->len == plen && m->req != 0);
        if (m->op != RMPI_RMA_PUT && m->op != RMPI_RMA_GET_REP)
            FUZZ_CHECK(plen == 0);
        if (m->op == RMPI_RMA_FADD || m->op == RMPI_RMA_CSWAP)
            FUZZ_CHECK(m->len == 8);
        break;
    }
    case RMPI_MSG_FAILED: {
        const rmpi_failnote_t *f = hdr;
        FUZZ_CHECK(plen == 0 && f->rank >= 0);
        break;
    }
    case RMPI_MSG_FT: { /* core/ulfm*.c index their bitmaps and tables with these */
        const rmpi_ftmsg_t *f = hdr;
        FUZZ_CHECK(f->op >= RMPI_FT_REVOKE && f->op <= RMPI_FT_RESULT && f->size > 0);
        FUZZ_CHECK(f->from >= 0 && (uint32_t)f->from < f->size);
        FUZZ_CHECK(plen == (f->op == RMPI_FT_REVOKE || f->op == RMPI_FT_QUERY
                                ? 0 : ((size_t)f->size + 7) / 8));
        break;
    }
    case RMPI_MSG_CANCEL: { /* core/cancel.c compares an eager payload of size bytes */
        const rmpi_cancel_t *c = hdr;
        FUZZ_CHECK(c->sreq != 0 && c->op >= RMPI_CANCEL_REQ && c->op <= RMPI_CANCEL_REP);
        FUZZ_CHECK(c->waiting <= 1 && c->cancelled <= 1);
        FUZZ_CHECK(plen == 0 || (c->op == RMPI_CANCEL_REQ && plen == c->size));
        break;
    }
    default:
        FUZZ_CHECK(type == RMPI_MSG_EAGER || type == RMPI_MSG_FRAG);
    }
}

/* The target side: touch exactly what rma_target would touch, in a window
 * allocated at its exact size (ASan reports one byte past it). */
static void check_access(const rmpi_rma_t *m, const uint8_t *payload, size_t plen, uint8_t wsel)
{
    uint64_t bytes = (uint64_t)(wsel & 0x1f) * 24; /* 0..744: small and unaligned */
    size_t mis = wsel >> 5;                         /* base misalignment 0..7 */
    unsigned char *mem = malloc(bytes + mis + 1);
    FUZZ_CHECK(mem != NULL);
    unsigned char *base = mem + mis;
    uint64_t len = 0;
    const char *why = NULL;
    int rc = rmpi_rma_access_check(m, plen, (uintptr_t)base, bytes, &len, &why);
    if (rc == RMP_SUCCESS) {
        FUZZ_CHECK(m->offset <= bytes && len <= bytes - m->offset);
        unsigned char *p = base + m->offset;
        if (m->op == RMPI_RMA_PUT) {
            FUZZ_CHECK(len == plen);
            if (plen)
                memcpy(p, payload, plen);
        } else if (m->op == RMPI_RMA_GET) {
            unsigned char sink = 0;
            for (uint64_t i = 0; i < len; i++)
                sink ^= p[i];
            (void)sink;
        } else if (m->op == RMPI_RMA_FADD || m->op == RMPI_RMA_CSWAP) {
            FUZZ_CHECK(len == 8 && (uintptr_t)p % 8 == 0);
            __atomic_fetch_add((uint64_t *)(void *)p, m->operand, __ATOMIC_SEQ_CST);
        }
    } else {
        FUZZ_CHECK(rc == RMP_ERR_TRANSPORT && why);
    }
    free(mem);

    /* The origin side of a get of glen bytes from off0: the reply chunk. */
    uint64_t off0 = m->compare, glen = m->operand % 1024;
    unsigned char *dst = malloc(glen + 1);
    FUZZ_CHECK(dst != NULL);
    rc = rmpi_rma_rep_check(m->offset, plen, off0, glen, &why);
    if (rc == RMP_SUCCESS) {
        FUZZ_CHECK(m->offset >= off0 && m->offset - off0 + plen <= glen);
        if (plen)
            memcpy(dst + (m->offset - off0), payload, plen);
    }
    free(dst);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    size_t hlen = fuzz_u8(&in) % 72;
    uint8_t wsel = fuzz_u8(&in);
    if (hlen > in.left)
        hlen = in.left;
    /* The header in its own allocation of exactly hlen bytes, 8-aligned as
     * transports deliver it: any read past hlen is an ASan report. */
    void *hdr = hlen ? malloc(hlen) : NULL;
    fuzz_take(&in, hdr, hlen);
    size_t plen = in.left;
    uint8_t *payload = plen ? malloc(plen) : NULL;
    fuzz_take(&in, payload, plen);
    check_message(hdr, hlen, plen);
    if (hlen == sizeof(rmpi_rma_t))
        check_access(hdr, payload, plen, wsel);
    free(hdr);
    free(payload);
    return 0;
}
