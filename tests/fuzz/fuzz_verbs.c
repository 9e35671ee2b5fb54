/* SPDX-License-Identifier: BSD-3-Clause */
/* What a verbs peer controls besides the data it sends (verbs_wire.c): the
 * immediate data and length of every SEND, the private data of its
 * connection request, and the address it publishes through PMIx.
 * Input: a selector byte, then the fields.
 * Contract: an accepted SEND splits into a header of >= 1 byte and a
 * payload that together are the bytes received, inside the receive buffer
 * (read here from a buffer of exactly that size); an accepted request names
 * a rank of the job other than ours; an accepted address is IPv4 or IPv6
 * with a port, copied unchanged. */
#include <netinet/in.h>
#include <string.h>

#include "fuzz.h"
#include "rmp.h"
#include "transports/verbs/verbs_wire.h"

static void check_imm(fuzz_in_t *in)
{
    uint32_t imm, byte_len;
    uint16_t bsz;
    fuzz_take(in, &imm, sizeof(imm));
    fuzz_take(in, &byte_len, sizeof(byte_len));
    fuzz_take(in, &bsz, sizeof(bsz));
    uint32_t buf_size = 1 + bsz % 8256;
    verbs_imm_t m;
    if (rmpi_verbs_imm_decode(imm, byte_len, buf_size, &m) != RMP_SUCCESS)
        return;
    FUZZ_CHECK(byte_len <= buf_size && m.only == (VERBS_IMM_ONLY(imm) != 0));
    FUZZ_CHECK(m.credits == VERBS_IMM_CREDITS(imm));
    if (m.only) {
        FUZZ_CHECK(m.hlen == 0 && m.plen == 0);
        return;
    }
    /* Each on its own: a sum can wrap around (hlen > byte_len used to). */
    FUZZ_CHECK(m.hlen >= 1 && m.hlen <= byte_len && m.plen == byte_len - m.hlen);
    unsigned char *buf = malloc(buf_size);
    memset(buf, 0x5a, buf_size);
    unsigned sink = 0;
    for (size_t i = 0; i < m.hlen; i++) /* what cq_recv hands the core */
        sink += buf[i];
    for (size_t i = 0; i < m.plen; i++)
        sink += buf[m.hlen + i];
    (void)sink;
    free(buf);
}

static void check_priv(fuzz_in_t *in)
{
    int nranks = 1 + fuzz_u8(in) % 128;
    int me = fuzz_u8(in) % nranks;
    int null = fuzz_u8(in) & 1;
    size_t len = in->left;
    unsigned char *d = malloc(len ? len : 1);
    fuzz_take(in, d, len);
    int rank = -1;
    if (rmpi_verbs_priv_decode(null ? NULL : d, len, nranks, me, &rank) == RMP_SUCCESS) {
        verbs_cm_priv_t p;
        FUZZ_CHECK(!null && len >= sizeof(p));
        memcpy(&p, d, sizeof(p));
        FUZZ_CHECK(p.magic == VERBS_CM_MAGIC && rank == p.rank);
        FUZZ_CHECK(rank >= 0 && rank < nranks && rank != me);
    }
    free(d);
}

static void check_addr(fuzz_in_t *in)
{
    size_t len = in->left;
    unsigned char *blob = malloc(len ? len : 1);
    fuzz_take(in, blob, len);
    verbs_addr_t a;
    if (rmpi_verbs_addr_decode(blob, len, &a) == RMP_SUCCESS) {
        FUZZ_CHECK(len == sizeof(a) && memcmp(&a, blob, sizeof(a)) == 0);
        FUZZ_CHECK(a.sa.ss_family == AF_INET || a.sa.ss_family == AF_INET6);
        if (a.sa.ss_family == AF_INET)
            FUZZ_CHECK(((struct sockaddr_in *)&a.sa)->sin_port != 0);
        else
            FUZZ_CHECK(((struct sockaddr_in6 *)&a.sa)->sin6_port != 0);
    }
    free(blob);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    switch (fuzz_u8(&in) % 3) {
    case 0: check_imm(&in); break;
    case 1: check_priv(&in); break;
    default: check_addr(&in); break;
    }
    return 0;
}
