/* SPDX-License-Identifier: BSD-3-Clause */
/* Ports: how two groups of processes of different jobs meet (MPI_Open_port,
 * MPI_Comm_accept/connect, and through them spawn and join). A port is a listening
 * socket of the accepting root, named "rmp-port:IPv4:PORT:TOKEN". The two roots trade,
 * over one connection to it, what each member of their group contributed (its address
 * for the dynamic-peer transport, the index from which it numbers the other group, its
 * next context id); each root hands the other group's list to its members (a bcast);
 * every member then adds the remote processes as dynamic peers (core/dynpeer.c) and
 * builds the union communicator: the accepting group's ranks first, on the largest
 * context id of all the members. One accept or connect at a time per process. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "comm.h"
#include "dynpeer.h"
#include "fault.h"
#include "log.h"
#include "peer.h"
#include "progress.h"

#define PORT_MAGIC 0x726d7050u /* "rmpP" */

typedef struct port_entry {
    int32_t base;      /* index from which this member numbers the other group */
    uint32_t next_cid; /* its next free context id */
    uint32_t alen;     /* addr bytes, NUL included */
    uint32_t reserved;
    char addr[RMPI_TL_ADDR_MAX];
} port_entry_t;

typedef struct port_hello {
    uint32_t magic;
    uint32_t n;        /* entries that follow */
    uint64_t token;    /* the port's, from its name */
    uint32_t next_cid; /* the largest of the sender's group */
    int32_t status;    /* the reply: RMP_SUCCESS or why the acceptor gave up */
} port_hello_t;

/* What each root tells its group after the exchange. */
typedef struct port_result {
    int32_t status;
    int32_t rn;   /* remote group size */
    uint32_t cid; /* of the union communicator */
    uint32_t reserved;
} port_result_t;

/* "rmp-port:IP:PORT:TOKEN" into sa and token. */
static int port_parse(const char *name, struct sockaddr_in *sa, uint64_t *token)
{
    char ip[64];
    unsigned port;
    unsigned long long tok;
    int used = 0;
    if (!name || sscanf(name, "rmp-port:%63[0-9.]:%u:%llx%n", ip, &port, &tok, &used) != 3 ||
        name[used] != '\0' || port == 0 || port > 65535)
        return RMP_ERR_ARG;
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, ip, &sa->sin_addr) != 1)
        return RMP_ERR_ARG;
    *token = tok;
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_port_open(char *name, size_t len)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!name || len < 64)
        return RMP_ERR_ARG;
    char addr[RMPI_TL_ADDR_MAX], ip[64];
    size_t alen = sizeof(addr);
    /* Listen where the dynamic-peer transport does: the other job reaches us there. */
    if ((rc = rmpi_dyn_address(e, addr, &alen)) != RMP_SUCCESS)
        return rc;
    if (sscanf(addr, "%63[0-9.]", ip) != 1)
        return RMP_ERR_INTERNAL;
    int slot = -1;
    for (int i = 0; i < e->port.n; i++)
        if (e->port.tab[i].fd < 0)
            slot = i;
    if (slot < 0 && e->port.n == RMPI_PORT_MAX)
        return RMP_ERR_NOMEM;
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t slen = sizeof(sa);
    inet_pton(AF_INET, ip, &sa.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &slen) != 0) {
        rmpi_error("rmp_port_open: cannot listen on %s: %s", ip, strerror(errno));
        if (fd >= 0)
            close(fd);
        return RMP_ERR_TRANSPORT;
    }
    uint64_t token;
    if (getrandom(&token, sizeof(token), 0) != sizeof(token))
        token = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(rmpi_now() * 1e9);
    if (slot < 0)
        slot = e->port.n++;
    e->port.tab[slot].fd = fd;
    e->port.tab[slot].token = token;
    snprintf(e->port.tab[slot].name, sizeof(e->port.tab[slot].name),
             "rmp-port:%s:%u:%016llx", ip, (unsigned)ntohs(sa.sin_port), (unsigned long long)token);
    snprintf(name, len, "%s", e->port.tab[slot].name);
    return RMP_SUCCESS;
}

static int port_find(rmpi_engine_t *e, const char *name)
{
    for (int i = 0; name && i < e->port.n; i++)
        if (e->port.tab[i].fd >= 0 && strcmp(e->port.tab[i].name, name) == 0)
            return i;
    return -1;
}

RMP_EXPORT int rmp_port_close(const char *name)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    int i = port_find(e, name);
    if (i < 0)
        return RMP_ERR_ARG;
    close(e->port.tab[i].fd);
    e->port.tab[i].fd = -1;
    e->port.tab[i].name[0] = '\0';
    return RMP_SUCCESS;
}

/* Wait until fd is ready for events, driving progress meanwhile (the other members of
 * this job may need us). */
static int port_wait(int fd, short events)
{
    for (;;) {
        struct pollfd p = {fd, events, 0};
        int r = poll(&p, 1, 5);
        if (r > 0)
            return p.revents & (POLLERR | POLLNVAL) && !(p.revents & events)
                       ? RMP_ERR_TRANSPORT : RMP_SUCCESS;
        if (r < 0 && errno != EINTR)
            return RMP_ERR_TRANSPORT;
        rmpi_progress();
    }
}

/* All of len bytes in or out of a non-blocking socket. */
static int port_io(int fd, void *buf, size_t len, int out)
{
    char *b = buf;
    while (len > 0) {
        ssize_t n = out ? send(fd, b, len, MSG_NOSIGNAL) : recv(fd, b, len, 0);
        if (n > 0) {
            b += n;
            len -= (size_t)n;
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            return RMP_ERR_PEER_FAILED;
        int rc = port_wait(fd, out ? POLLOUT : POLLIN);
        if (rc != RMP_SUCCESS)
            return rc;
    }
    return RMP_SUCCESS;
}

/* Send our hello and entries, or read the other side's (entries malloc'd into *remote). */
static int port_send(int fd, const port_hello_t *h, const port_entry_t *e)
{
    int rc = port_io(fd, (void *)h, sizeof(*h), 1);
    if (rc == RMP_SUCCESS && h->n)
        rc = port_io(fd, (void *)e, h->n * sizeof(*e), 1);
    return rc;
}

static int port_recv(int fd, port_hello_t *h, uint64_t token, port_entry_t **remote)
{
    int rc = port_io(fd, h, sizeof(*h), 0);
    if (rc != RMP_SUCCESS)
        return rc;
    if (h->magic != PORT_MAGIC || h->token != token || h->n == 0 || h->n > RMPI_DYN_MAX)
        return RMP_ERR_ARG;
    if (h->status != RMP_SUCCESS)
        return h->status < 0 && h->status > RMP_ERR_LAST ? h->status : RMP_ERR_INTERNAL;
    if (!(*remote = calloc(h->n, sizeof(**remote))))
        return RMP_ERR_NOMEM;
    return port_io(fd, *remote, h->n * sizeof(**remote), 0);
}

/* The root's side of the meeting: mine (n entries) out, the other group's in. */
static int port_root(rmpi_engine_t *e, const char *port, int accept, const port_entry_t *mine,
                     uint32_t n, uint32_t cid, port_entry_t **remote, port_result_t *res)
{
    struct sockaddr_in sa;
    uint64_t token;
    int fd = -1, rc;
    port_hello_t h = {PORT_MAGIC, n, 0, cid, RMP_SUCCESS}, rh;
    if (accept) {
        int i = port_find(e, port);
        if (i < 0)
            return RMP_ERR_ARG;
        token = e->port.tab[i].token;
        /* A connection without the port's token is not the peer root: drop it, wait on. */
        for (;;) {
            if ((rc = port_wait(e->port.tab[i].fd, POLLIN)) != RMP_SUCCESS)
                return rc;
            fd = accept4(e->port.tab[i].fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0)
                continue;
            rc = port_recv(fd, &rh, token, remote);
            if (rc == RMP_SUCCESS)
                break;
            free(*remote);
            *remote = NULL;
            close(fd);
            rmpi_warn("rmp_comm_accept: dropped a connection to the port (%s)",
                      rmp_strerror(rc));
        }
        h.token = token;
        rc = port_send(fd, &h, mine);
    } else {
        if (port_parse(port, &sa, &token) != RMP_SUCCESS)
            return RMP_ERR_ARG;
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return RMP_ERR_TRANSPORT;
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
            rmpi_debug("rmp_comm_connect: %s: %s", port, strerror(errno));
            close(fd);
            return RMP_ERR_ARG; /* no such port (any more) */
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        h.token = token;
        rc = port_send(fd, &h, mine);
        if (rc == RMP_SUCCESS)
            rc = port_recv(fd, &rh, token, remote);
    }
    if (rc == RMP_SUCCESS) {
        res->rn = (int32_t)rh.n;
        res->cid = rh.next_cid > cid ? rh.next_cid : cid;
    }
    close(fd);
    return rc;
}

/* accept (1) or connect (0): the collective part, see the top of the file. */
static int port_meet(rmpi_engine_t *e, const char *port, int root, rmp_comm_t comm, int accept,
                     rmp_comm_t *uni, int *rsize)
{
    int rc = rmpi_comm_check(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!uni || !rsize || root < 0 || root >= comm->size)
        return RMP_ERR_ARG;
    int n = comm->size, me = comm->rank;
    port_entry_t *all = calloc((size_t)n, sizeof(*all)), *remote = NULL;
    struct rmp_comm *c = NULL;
    port_result_t res = {RMP_SUCCESS, 0, 0, 0};
    if (!all)
        return RMP_ERR_NOMEM;
    size_t alen = sizeof(all[me].addr);
    /* Every member has the same transports: all fail here alike, before communicating. */
    if ((rc = rmpi_dyn_address(e, all[me].addr, &alen)) != RMP_SUCCESS)
        goto out;
    all[me].alen = (uint32_t)alen;
    all[me].base = e->npeers;
    all[me].next_cid = rmpi_comm_next_cid(e);
    if ((rc = rmp_allgather(&all[me], all, sizeof(*all), RMP_UINT8, comm)) != RMP_SUCCESS)
        goto out;
    if (me == root) {
        uint32_t cid = 0;
        for (int i = 0; i < n; i++)
            if (all[i].next_cid > cid)
                cid = all[i].next_cid;
        res.status = port_root(e, port, accept, all, (uint32_t)n, cid, &remote, &res);
        if (accept) /* tests: the other group knows us first (tcp parks their HELLOs) */
            rmpi_fault_delay(e, "accept-root");
    }
    if ((rc = rmp_bcast(&res, sizeof(res), RMP_UINT8, root, comm)) != RMP_SUCCESS)
        goto out;
    if ((rc = res.status) != RMP_SUCCESS)
        goto out;
    int rn = res.rn;
    if (me != root && !(remote = calloc((size_t)rn, sizeof(*remote)))) {
        rc = RMP_ERR_NOMEM; /* the bcast below then fails the others' too */
        goto out;
    }
    if ((rc = rmp_bcast(remote, (size_t)rn * sizeof(*remote), RMP_UINT8, root, comm)) !=
        RMP_SUCCESS)
        goto out;
    int base = all[me].base;
    if (base != e->npeers || base + rn > e->job.size + RMPI_DYN_MAX) {
        rmpi_error("accept/connect: no room for %d more dynamic peers", rn);
        rc = RMP_ERR_NOMEM;
        goto out;
    }
    for (int j = 0; j < rn && rc == RMP_SUCCESS; j++) {
        port_entry_t *pe = &remote[j];
        if (pe->alen == 0 || pe->alen > sizeof(pe->addr) || pe->addr[pe->alen - 1] != '\0' ||
            pe->base < 0 || pe->base > INT32_MAX - n)
            rc = RMP_ERR_TRANSPORT;
        else
            rc = rmpi_dyn_add(e, base + j, pe->base + me, pe->addr, pe->alen);
    }
    if (rc != RMP_SUCCESS)
        goto out;
    rmpi_comm_cid_taken(e, res.cid + 2);
    rc = rmpi_comm_new(e, res.cid, n + rn, -1, 1, &c);
    if (rc != RMP_SUCCESS)
        goto out;
    c->rank = accept ? me : rn + me;
    int lo = accept ? 0 : rn, ro = accept ? n : 0; /* where each group starts */
    for (int i = 0; i < n; i++)
        c->world[lo + i] = rmpi_comm_world_rank(comm, i);
    for (int j = 0; j < rn; j++)
        c->world[ro + j] = base + j;
    *uni = c;
    *rsize = rn;
    c = NULL;
out:
    if (c)
        rmpi_comm_destroy(c);
    free(all);
    free(remote);
    return rc;
}

RMP_EXPORT int rmp_comm_accept(const char *port, int root, rmp_comm_t comm, rmp_comm_t *uni,
                               int *remote_size)
{
    rmpi_engine_t *e = &rmpi_eng;
    return port_meet(e, port, root, comm, 1, uni, remote_size);
}

RMP_EXPORT int rmp_comm_connect(const char *port, int root, rmp_comm_t comm, rmp_comm_t *uni,
                                int *remote_size)
{
    rmpi_engine_t *e = &rmpi_eng;
    return port_meet(e, port, root, comm, 0, uni, remote_size);
}
