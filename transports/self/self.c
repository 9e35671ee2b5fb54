/* SPDX-License-Identifier: BSD-3-Clause */
/* The loopback transport: messages to one's own rank are handed straight to
 * the matching engine. Unbounded eager, so a blocking self-send never waits. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rmpi.h"

typedef struct self_tl self_tl_t;
typedef struct self_ep self_ep_t;

struct self_tl {
    rmpi_tl_t base; /* first: core's handle */
    rmpi_am_cb_t cb;
};

struct self_ep {
    rmpi_ep_t base; /* first: core's handle */
    int self;
};

static struct self_tl self_tl;
static struct self_ep self_ep;

static int self_query(const rmpi_tl_args_t *args, char *why, size_t len)
{
    (void)args;
    (void)why;
    (void)len;
    return RMP_SUCCESS;
}

static int self_init(const rmpi_tl_args_t *args, rmpi_tl_t **tl, rmpi_tl_caps_t *caps)
{
    self_tl.cb = args->am;
    self_tl.base.name = "self";
    *tl = &self_tl.base;
    caps->max_am = SIZE_MAX;
    caps->rndv_threshold = SIZE_MAX;
    caps->rndv_mode = RMPI_RNDV_NONE;
    caps->intranode_only = true;
    caps->rma = true;
    caps->native_atomics = false;
    return RMP_SUCCESS;
}

static int self_connect(rmpi_tl_t *tl_, int peer, const void *addr, size_t len, rmpi_ep_t **ep,
                        rmpi_tl_caps_t *caps)
{
    self_tl_t *tl = (self_tl_t *)tl_;
    (void)tl;
    (void)addr;
    (void)len;
    (void)caps;
    self_ep.self = peer;
    *ep = &self_ep.base;
    return RMP_SUCCESS;
}

static int self_send(rmpi_ep_t *ep_, const void *hdr, size_t hlen, const void *payload,
                     size_t plen)
{
    self_ep_t *ep = (self_ep_t *)ep_;
    self_tl.cb(ep->self, hdr, hlen, payload, plen);
    return RMP_SUCCESS;
}

static int self_put(rmpi_ep_t *ep_, const void *src, size_t len, uint64_t raddr, uint64_t rkey,
                    rmpi_comp_cb_t cb, void *arg)
{
    self_ep_t *ep = (self_ep_t *)ep_;
    (void)ep;
    (void)rkey;
    memmove((void *)(uintptr_t)raddr, src, len);
    cb(arg, RMP_SUCCESS);
    return RMP_SUCCESS;
}

static int self_get(rmpi_ep_t *ep_, void *dst, size_t len, uint64_t raddr, uint64_t rkey,
                    rmpi_comp_cb_t cb, void *arg)
{
    self_ep_t *ep = (self_ep_t *)ep_;
    (void)ep;
    (void)rkey;
    memmove(dst, (const void *)(uintptr_t)raddr, len);
    cb(arg, RMP_SUCCESS);
    return RMP_SUCCESS;
}

static int self_progress(rmpi_tl_t *tl_)
{
    self_tl_t *tl = (self_tl_t *)tl_;
    (void)tl;
    return 0;
}

static void self_fini(rmpi_tl_t *tl_)
{
    self_tl_t *tl = (self_tl_t *)tl_;
    (void)tl;
}

const rmpi_tl_iface_t rmpi_tl_self = {
    .name = "self",
    .query = self_query,
    .init = self_init,
    .connect = self_connect,
    .post_connect = NULL,
    .send = self_send,
    .mem_reg = NULL,
    .mem_dereg = NULL,
    .put = self_put,
    .get = self_get,
    .atomic = NULL,
    .progress = self_progress,
    .fini = self_fini,
};
