/* SPDX-License-Identifier: BSD-3-Clause */
/* Validation of what verbs peers send (verbs_wire.h): pure functions. */
#include <netinet/in.h>
#include <string.h>

#include "rmp.h"
#include "verbs_wire.h"

int rmpi_verbs_imm_decode(uint32_t imm, uint32_t byte_len, uint32_t buf_size, verbs_imm_t *out)
{
    verbs_imm_t m;
    m.only = VERBS_IMM_ONLY(imm) != 0;
    m.credits = VERBS_IMM_CREDITS(imm);
    m.hlen = m.only ? 0 : VERBS_IMM_HLEN(imm);
    /* A message has a header; a length beyond the buffer is the HCA's lie. */
    if (imm >> 25 || byte_len > buf_size || (!m.only && (m.hlen == 0 || m.hlen > byte_len)))
        return RMP_ERR_TRANSPORT;
    m.plen = m.only ? 0 : byte_len - m.hlen;
    *out = m;
    return RMP_SUCCESS;
}

int rmpi_verbs_priv_decode(const void *data, size_t len, int nranks, int me, int *rank)
{
    verbs_cm_priv_t p;
    if (!data || len < sizeof(p))
        return RMP_ERR_TRANSPORT;
    memcpy(&p, data, sizeof(p));
    if (p.magic != VERBS_CM_MAGIC || p.rank < 0 || p.rank >= nranks || p.rank == me)
        return RMP_ERR_TRANSPORT;
    *rank = p.rank;
    return RMP_SUCCESS;
}

int rmpi_verbs_addr_decode(const void *blob, size_t len, verbs_addr_t *out)
{
    verbs_addr_t a;
    if (!blob || len != sizeof(a))
        return RMP_ERR_BOOTSTRAP;
    memcpy(&a, blob, sizeof(a));
    if (a.sa.ss_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)&a.sa;
        if (s->sin_port == 0)
            return RMP_ERR_BOOTSTRAP;
    } else if (a.sa.ss_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)&a.sa;
        if (s->sin6_port == 0)
            return RMP_ERR_BOOTSTRAP;
    } else {
        return RMP_ERR_BOOTSTRAP;
    }
    *out = a;
    return RMP_SUCCESS;
}
