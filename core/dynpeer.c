/* SPDX-License-Identifier: BSD-3-Clause */
/* Dynamic peers: processes of another job (MPI_Comm_spawn, accept/connect, join) that
 * this process reaches at peer indices past its world, [size, rmpi_eng.npeers). The indices
 * of two jobs are unrelated: when two groups meet (core/port.c) every member tells from
 * which index it numbers the other group, so each process knows the index by which each
 * remote one knows it. The transport's handshake names the connecting side by that index
 * (connect_dyn), so a message is attributed to the right entry however the two jobs
 * number their ranks, and the matching header's source (a rank in the communicator) is
 * the same on both sides. Only a transport with connect_dyn (tcp) reaches dynamic
 * peers; shm would need a segment shared across jobs. Their node is unknown (negative),
 * which keeps collectives over mixed communicators flat on both sides alike. */
#include <string.h>

#include "dynpeer.h"
#include "log.h"
#include "peer.h"
#include "rmpi.h"


/* The first open transport that reaches other jobs, or -1. */
static int dyn_slot(rmpi_engine_t *e)
{
    for (int i = 1; i < e->tls.num; i++)
        if (e->tls.v[i].iface->connect_dyn && e->tls.v[i].iface->get_address)
            return i;
    return -1;
}

int rmpi_dyn_address(rmpi_engine_t *e, char *buf, size_t *len)
{
    int i = dyn_slot(e);
    if (i < 0)
        return RMP_ERR_NOT_SUPPORTED;
    int rc = e->tls.v[i].iface->get_address(e->tls.v[i].tl, buf, len);
    if (rc == RMP_SUCCESS && (*len == 0 || buf[*len - 1] != '\0'))
        rc = RMP_ERR_INTERNAL;
    return rc;
}

/* The progress loop polls only instances some peer uses (runtime.c): add this one. */
static void dyn_poll(rmpi_engine_t *e, int slot)
{
    for (int i = 0; i < e->tls.num_polled; i++)
        if (e->tls.polled[i].tl == e->tls.v[slot].tl)
            return;
    if (!e->tls.v[slot].iface->progress || e->tls.num_polled >= RMPI_TL_MAX)
        return;
    e->tls.polled[e->tls.num_polled].progress = e->tls.v[slot].iface->progress;
    e->tls.polled[e->tls.num_polled].tl = e->tls.v[slot].tl;
    e->tls.num_polled++;
}

int rmpi_dyn_add(rmpi_engine_t *e, int idx, int me_there, const char *addr, size_t alen)
{
    int slot = dyn_slot(e);
    if (slot < 0)
        return RMP_ERR_NOT_SUPPORTED;
    if (idx < e->job.size || idx >= e->job.size + RMPI_DYN_MAX || me_there < 0)
        return RMP_ERR_ARG;
    rmpi_peer_t *p = &e->peers[idx];
    if (p->iface)
        return RMP_ERR_INTERNAL; /* an index is given once */
    const rmpi_tl_iface_t *t = e->tls.v[slot].iface;
    rmpi_tl_caps_t caps = e->tls.v[slot].caps;
    int rc = t->connect_dyn(e->tls.v[slot].tl, idx, me_there, addr, alen, &p->ep, &caps);
    if (rc != RMP_SUCCESS) {
        rmpi_error("cannot reach dynamic peer %d with %s: %s", idx, t->name, rmp_strerror(rc));
        return rc;
    }
    rmpi_peer_attach(e, p, slot, &caps);
    e->job.node_of[idx] = -1000000 - idx; /* unknown: see the top of the file */
    if (idx >= e->npeers)
        e->npeers = idx + 1;
    dyn_poll(e, slot);
    rmpi_info("dynamic peer %d via %s", idx, t->name);
    return RMP_SUCCESS;
}
