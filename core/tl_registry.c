/* SPDX-License-Identifier: BSD-3-Clause */
/* The transport registry as an array, the arguments transports get, and the
 * address exchange: one PMIx put per rank holding every open transport's
 * address, one get per peer. Blob layout, per open transport but self:
 * [u8 name length][name][u16 address length, little endian][address]. */
#include <stdlib.h>
#include <string.h>

#include "bootstrap.h"
#include "config.h"
#include "p2p.h"
#include "tl_registry.h"

#define TL_KEY "rmp.tl"

/* RMPI_TL_ON(BUILT): 1 when BUILT is 1 or a macro defined to 1, else 0 (the
 * preprocessor cannot test definedness inside an expansion; Linux's
 * IS_ENABLED trick). */
#define TL_ON_1 0,
#define TL_PICK(ignored, val, ...) val
#define TL_ON__(arg) TL_PICK(arg 1, 0, 0)
#define TL_ON_(val) TL_ON__(TL_ON_##val)
#define TL_ON(x) TL_ON_(x)

#define TL_ENTRY(name, built) {#name, TL_ON(built) ? &rmpi_tl_##name : NULL},
const rmpi_tl_entry_t rmpi_tl_registry[RMPI_TL_MAX] = {RMPI_TL_REGISTRY(TL_ENTRY)};

const rmpi_tl_entry_t *rmpi_tl_lookup(const char *name, size_t len)
{
    for (int i = 0; i < RMPI_TL_MAX; i++)
        if (strlen(rmpi_tl_registry[i].name) == len &&
            strncmp(rmpi_tl_registry[i].name, name, len) == 0)
            return &rmpi_tl_registry[i];
    return NULL;
}

const char *rmpi_tl_names(void)
{
#define TL_NAME(name, built) ", " #name
    static const char names[] = RMPI_TL_REGISTRY(TL_NAME);
    return names + 2 + strlen(rmpi_tl_registry[0].name) + 2; /* without self */
}

void rmpi_tl_args_fill(rmpi_engine_t *e, const rmpi_tl_iface_t *t, rmpi_tl_args_t *args)
{
    static const int zero = 0;
    memset(args, 0, sizeof(*args));
    if (e->job.size > 0) {
        args->rank = e->job.rank;
        args->size = e->job.size;
        args->local_rank = e->job.local_rank;
        args->local_size = e->job.local_size;
        args->local_ranks = e->job.local_ranks;
        args->node_of = e->job.node_of;
        args->num_nodes = e->job.num_nodes;
    } else {
        args->size = args->local_size = args->num_nodes = 1;
        args->local_ranks = args->node_of = &zero;
    }
    args->am = rmpi_am_handler;
    args->peer_failed = rmpi_peer_failed;
    args->params = t->param_values;
    args->rcache_max_bytes = e->cfg.rcache_max_bytes;
    args->failure_timeout = e->cfg.failure_timeout;
    args->stats = e->cfg.stats;
}

int rmpi_tl_publish(rmpi_engine_t *e)
{
    unsigned char blob[RMPI_TL_MAX * (3 + 255 + RMPI_TL_ADDR_MAX)];
    size_t off = 0;
    for (int i = 0; i < e->tls.num; i++) {
        const rmpi_tl_iface_t *t = e->tls.v[i].iface;
        size_t nlen = strlen(t->name), alen = RMPI_TL_ADDR_MAX;
        if (t == rmpi_tl_registry[0].iface) /* self reaches only this rank */
            continue;
        if (nlen > 255)
            return RMP_ERR_INTERNAL;
        unsigned char *a = blob + off + 3 + nlen;
        if (!t->get_address)
            alen = 0;
        else {
            int rc = t->get_address(e->tls.v[i].tl, a, &alen);
            if (rc != RMP_SUCCESS)
                return rc;
            if (alen > RMPI_TL_ADDR_MAX)
                return RMP_ERR_INTERNAL;
        }
        blob[off] = (unsigned char)nlen;
        memcpy(blob + off + 1, t->name, nlen);
        blob[off + 1 + nlen] = (unsigned char)(alen & 0xff);
        blob[off + 2 + nlen] = (unsigned char)(alen >> 8);
        off += 3 + nlen + alen;
    }
    return rmpi_boot_put(TL_KEY, blob, off);
}

int rmpi_tl_fetch(int peer, void **blob, size_t *len)
{
    return rmpi_boot_get(peer, TL_KEY, blob, len);
}

int rmpi_tl_addr_find(const void *blob, size_t len, const char *name, const void **addr,
                      size_t *alen)
{
    const unsigned char *b = blob;
    size_t want = strlen(name), off = 0;
    while (off < len) {
        size_t nlen = b[off];
        if (len - off < 3 + nlen)
            return RMP_ERR_BOOTSTRAP;
        size_t l = (size_t)b[off + 1 + nlen] | (size_t)b[off + 2 + nlen] << 8;
        if (l > RMPI_TL_ADDR_MAX || len - off - 3 - nlen < l)
            return RMP_ERR_BOOTSTRAP;
        if (nlen == want && memcmp(b + off + 1, name, nlen) == 0) {
            *addr = l ? b + off + 3 + nlen : NULL;
            *alen = l;
            return RMP_SUCCESS;
        }
        off += 3 + nlen + l;
    }
    return RMP_ERR_NOT_SUPPORTED;
}

int rmpi_tl_address(int peer, const char *name, void **addr, size_t *alen)
{
    void *blob = NULL;
    size_t len = 0;
    const void *a;
    int rc = rmpi_tl_fetch(peer, &blob, &len);
    if (rc == RMP_SUCCESS)
        rc = rmpi_tl_addr_find(blob, len, name, &a, alen);
    if (rc == RMP_SUCCESS && !(*addr = calloc(1, *alen + 1)))
        rc = RMP_ERR_NOMEM;
    if (rc == RMP_SUCCESS && *alen)
        memcpy(*addr, a, *alen);
    free(blob);
    return rc;
}
