/* SPDX-License-Identifier: BSD-3-Clause */
/* Validation of protocol messages (core/proto.h): pure functions, called by
 * the handlers before they read a field, and fuzzed as they are
 * (tests/fuzz/fuzz_proto.c). */
#include "proto.h"
#include "transport.h"

#include "rmp.h"

static int proto_status_ok(int32_t s)
{
    return s == RMP_SUCCESS || (s < 0 && s > RMP_ERR_LAST);
}

static int proto_bad(const char **why, const char *what)
{
    *why = what;
    return RMP_ERR_TRANSPORT;
}

size_t rmpi_proto_hlen(unsigned type)
{
    switch (type) {
    case RMPI_MSG_EAGER:
    case RMPI_MSG_FRAG: return sizeof(rmpi_hdr_t);
    case RMPI_MSG_RTS:
    case RMPI_MSG_FRAG_FIRST: return sizeof(rmpi_rts_t);
    case RMPI_MSG_FIN: return sizeof(rmpi_fin_t);
    case RMPI_MSG_CTS: return sizeof(rmpi_cts_t);
    case RMPI_MSG_RMA: return sizeof(rmpi_rma_t);
    case RMPI_MSG_FAILED: return sizeof(rmpi_failnote_t);
    case RMPI_MSG_FT: return sizeof(rmpi_ftmsg_t);
    case RMPI_MSG_CANCEL: return sizeof(rmpi_cancel_t);
    default: return 0;
    }
}

static int proto_check_rma(const rmpi_rma_t *m, size_t plen, const char **why)
{
    if (!proto_status_ok(m->status))
        return proto_bad(why, "one-sided message with an invalid status");
    switch (m->op) {
    case RMPI_RMA_PUT:
        return RMP_SUCCESS; /* the payload is the data; len is not used */
    case RMPI_RMA_GET:
        return plen == 0 ? RMP_SUCCESS : proto_bad(why, "one-sided get with a payload");
    case RMPI_RMA_FADD:
    case RMPI_RMA_CSWAP:
        if (plen != 0 || m->len != 8)
            return proto_bad(why, "atomic of other than 8 bytes");
        return RMP_SUCCESS;
    case RMPI_RMA_GET_REP:
        if (m->req == 0 || m->len != plen)
            return proto_bad(why, "get reply whose length is not its payload's");
        return RMP_SUCCESS;
    case RMPI_RMA_AMO_REP:
        if (m->req == 0 || plen != 0)
            return proto_bad(why, "malformed one-sided reply");
        return RMP_SUCCESS;
    case RMPI_RMA_ACK: /* req 0: a non-blocking put's, naming its window in compare */
        return plen == 0 ? RMP_SUCCESS : proto_bad(why, "malformed one-sided reply");
    default:
        return proto_bad(why, "unknown one-sided operation");
    }
}

int rmpi_proto_check(const void *hdr, size_t hlen, size_t plen, const char **why)
{
    if (hdr == NULL || hlen == 0)
        return proto_bad(why, "empty header");
    const unsigned type = *(const uint8_t *)hdr;
    size_t want = rmpi_proto_hlen(type);
    if (want == 0)
        return proto_bad(why, "unknown message type");
    if (hlen != want)
        return proto_bad(why, "header length does not match the message type");
    switch (type) {
    case RMPI_MSG_RTS: {
        const rmpi_rts_t *r = hdr;
        if (plen != 0 || r->sreq == 0)
            return proto_bad(why, "malformed rendezvous request");
        return RMP_SUCCESS;
    }
    case RMPI_MSG_FRAG_FIRST: {
        const rmpi_rts_t *r = hdr;
        if (plen > r->size)
            return proto_bad(why, "first fragment larger than its message");
        return RMP_SUCCESS;
    }
    case RMPI_MSG_FIN: {
        const rmpi_fin_t *f = hdr;
        if (plen != 0 || f->req == 0 || !proto_status_ok(f->status))
            return proto_bad(why, "malformed rendezvous completion");
        return RMP_SUCCESS;
    }
    case RMPI_MSG_CTS: {
        const rmpi_cts_t *c = hdr;
        if (plen != c->nseg * sizeof(struct iovec) || c->nseg > RMPI_IOV_MAX || c->sreq == 0 ||
            !proto_status_ok(c->status) || c->more > 1 ||
            (c->status != RMP_SUCCESS && (c->len != 0 || c->nseg != 0)))
            return proto_bad(why, "malformed clear-to-send");
        return RMP_SUCCESS;
    }
    case RMPI_MSG_RMA:
        return proto_check_rma(hdr, plen, why);
    case RMPI_MSG_FAILED:
        if (plen != 0 || ((const rmpi_failnote_t *)hdr)->rank < 0)
            return proto_bad(why, "malformed failure notice");
        return RMP_SUCCESS;
    case RMPI_MSG_FT: {
        const rmpi_ftmsg_t *f = hdr;
        if (f->op < RMPI_FT_REVOKE || f->op > RMPI_FT_RESULT || f->decided > 1 ||
            f->unacked > 1 || f->size == 0 || f->size > (1u << 24) || f->from < 0 ||
            (uint32_t)f->from >= f->size ||
            plen != (f->op == RMPI_FT_REVOKE || f->op == RMPI_FT_QUERY ? 0 : (f->size + 7) / 8))
            return proto_bad(why, "malformed fault-tolerance message");
        return RMP_SUCCESS;
    }
    case RMPI_MSG_CANCEL: {
        const rmpi_cancel_t *c = hdr;
        if (c->sreq == 0 || c->op < RMPI_CANCEL_REQ || c->op > RMPI_CANCEL_REP ||
            c->waiting > 1 || c->cancelled > 1 ||
            (plen != 0 && (c->op != RMPI_CANCEL_REQ || plen != c->size)))
            return proto_bad(why, "malformed send cancel");
        return RMP_SUCCESS;
    }
    default: /* EAGER, FRAG: any payload */
        return RMP_SUCCESS;
    }
}

int rmpi_rma_access_check(const rmpi_rma_t *m, size_t plen, uintptr_t base, uint64_t bytes,
                          uint64_t *len, const char **why)
{
    *len = m->op == RMPI_RMA_PUT ? plen : m->op == RMPI_RMA_GET ? m->len : 8;
    if (m->offset > bytes || *len > bytes - m->offset)
        return proto_bad(why, "outside the window");
    if ((m->op == RMPI_RMA_FADD || m->op == RMPI_RMA_CSWAP) && (base + m->offset) % 8 != 0)
        return proto_bad(why, "atomic not 8-byte aligned");
    return RMP_SUCCESS;
}

int rmpi_rma_rep_check(uint64_t offset, size_t plen, uint64_t off0, uint64_t len,
                       const char **why)
{
    if (offset < off0 || offset - off0 > len || plen > len - (offset - off0))
        return proto_bad(why, "get reply outside the requested range");
    return RMP_SUCCESS;
}
