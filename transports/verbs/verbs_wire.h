/* SPDX-License-Identifier: BSD-3-Clause */
/* What a verbs peer sends us outside the data it asked for: the immediate
 * data of every SEND, the private data of a connection request and the
 * address verbs_get_address publishes (in the rmp.tl blob); and their validation. Free of
 * libibverbs so that the fuzzer (tests/fuzz/fuzz_verbs.c) builds anywhere. */
#ifndef RMPI_VERBS_WIRE_H
#define RMPI_VERBS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* imm_data of every SEND: AM header length, credits returned, credit-only flag. */
#define VERBS_IMM(hlen, credits, only) \
    ((uint32_t)(hlen) | ((uint32_t)(credits) << 8) | ((uint32_t)(only) << 24))
#define VERBS_IMM_HLEN(imm) ((imm) & 0xffu)
#define VERBS_IMM_CREDITS(imm) (((imm) >> 8) & 0xffffu)
#define VERBS_IMM_ONLY(imm) (((imm) >> 24) & 1u)

/* Private data of a connection request. */
typedef struct verbs_cm_priv {
    uint32_t magic;
    int32_t rank;
} verbs_cm_priv_t;
#define VERBS_CM_MAGIC 0x726d7076u /* "rmpv" */

/* What every rank publishes (verbs_get_address). */
typedef struct verbs_addr {
    struct sockaddr_storage sa;
} verbs_addr_t;

/* A received SEND, decoded. */
typedef struct verbs_imm {
    size_t hlen, plen;  /* the AM's header and payload bytes (0 for credit-only) */
    unsigned credits;   /* credits the peer returns */
    bool only;          /* credit-only: no message */
} verbs_imm_t;

/* imm (host order) of a SEND of byte_len bytes into a buffer of buf_size:
 * RMP_SUCCESS with hlen + plen == byte_len <= buf_size and hlen >= 1 for a
 * message (nothing for credit-only), else RMP_ERR_TRANSPORT. */
int rmpi_verbs_imm_decode(uint32_t imm, uint32_t byte_len, uint32_t buf_size, verbs_imm_t *out);
/* Private data of a connection request (len bytes, data may be NULL): the
 * requesting rank, in [0, nranks) and not me; else RMP_ERR_TRANSPORT. */
int rmpi_verbs_priv_decode(const void *data, size_t len, int nranks, int me, int *rank);
/* A published address: exactly a verbs_addr_t holding an IPv4 or IPv6
 * address with a port; else RMP_ERR_BOOTSTRAP. */
int rmpi_verbs_addr_decode(const void *blob, size_t len, verbs_addr_t *out);

#endif
