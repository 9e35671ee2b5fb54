/* SPDX-License-Identifier: BSD-3-Clause */
/* Ports: MPI_Open_port / Close_port and the meeting of two groups over one,
 * MPI_Comm_accept / Comm_connect (core/port.c does the exchange and adds the other
 * group's processes as dynamic peers; here the union becomes an intercomm), and
 * MPI_Comm_join (a port name traded over the caller's socket). */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "mpii_dyn.h"
#include "mpii_inter.h"

int mpii_dyn_meet(const char *port, int root, mpii_comm_t *c, int accept, mpii_comm_t **out)
{
    rmp_comm_t uni = RMP_COMM_NULL;
    int rsize = 0;
    int st = accept ? rmp_comm_accept(port, root, c->rc, &uni, &rsize)
                    : rmp_comm_connect(port, root, c->rc, &uni, &rsize);
    if (st == RMP_ERR_ARG)
        return MPI_ERR_PORT;
    if (st != RMP_SUCCESS)
        return mpii_err_from_rmp(st);
    /* Order in each group: its rank in c (the union keeps it). */
    return mpii_inter_build(uni, c, accept ? 0 : 1, c->rank, 0, out);
}

int PMPI_Open_port(MPI_Info info, char *port_name)
{
    const char *fn = "MPI_Open_port";
    int rc = mpii_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (info != MPI_INFO_NULL && !mpii_info(info))
        return mpii_err_comm(NULL, MPI_ERR_INFO, fn, "invalid info");
    if (!port_name)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "port_name is NULL");
    int st = rmp_port_open(port_name, MPI_MAX_PORT_NAME);
    if (st != RMP_SUCCESS)
        return mpii_err_comm(NULL, st == RMP_ERR_NOT_SUPPORTED ? MPI_ERR_UNSUPPORTED_OPERATION
                                                               : mpii_err_from_rmp(st),
                             fn, "cannot open a port: %s", rmp_strerror(st));
    return MPI_SUCCESS;
}
MPII_WEAK(Open_port)

int PMPI_Close_port(const char *port_name)
{
    const char *fn = "MPI_Close_port";
    int rc = mpii_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!port_name || rmp_port_close(port_name) != RMP_SUCCESS)
        return mpii_err_comm(NULL, MPI_ERR_PORT, fn, "not a port this process opened");
    return MPI_SUCCESS;
}
MPII_WEAK(Close_port)

int mpii_dyn_check_rooted(MPI_Comm comm, int root, const void *out, const char *what,
                          const char *fn, mpii_comm_t **c)
{
    int rc = mpii_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    *c = mpii_comm(comm);
    if (!*c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if ((*c)->inter)
        return mpii_err_comm(*c, MPI_ERR_COMM, fn, "an intercommunicator");
    if (root < 0 || root >= (*c)->size)
        return mpii_err_comm(*c, MPI_ERR_ROOT, fn, "invalid root %d (size %d)", root,
                             (*c)->size);
    if (!out)
        return mpii_err_comm(*c, MPI_ERR_ARG, fn, "%s is NULL", what);
    return MPI_SUCCESS;
}

static int port_meet_call(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                          MPI_Comm *newcomm, int accept, const char *fn)
{
    mpii_comm_t *c;
    int rc = mpii_dyn_check_rooted(comm, root, newcomm, "newcomm", fn, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->rank == root && (info != MPI_INFO_NULL && !mpii_info(info)))
        return mpii_err_comm(c, MPI_ERR_INFO, fn, "invalid info");
    if (c->rank == root && !port_name)
        return mpii_err_comm(c, MPI_ERR_PORT, fn, "port_name is NULL");
    mpii_comm_t *n = NULL;
    int err = mpii_dyn_meet(c->rank == root ? port_name : NULL, root, c, accept, &n);
    if (err == MPI_SUCCESS && !n)
        err = MPI_ERR_INTERN;
    if (err != MPI_SUCCESS)
        return mpii_err_comm(c, err, fn, "%s",
                             err == MPI_ERR_PORT ? (accept ? "not a port this process opened"
                                                           : "no such port (not open)")
                                                 : "could not reach the other group");
    *newcomm = mpii_comm_handle(n);
    return MPI_SUCCESS;
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    return port_meet_call(port_name, info, root, comm, newcomm, 1, "MPI_Comm_accept");
}
MPII_WEAK(Comm_accept)

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    return port_meet_call(port_name, info, root, comm, newcomm, 0, "MPI_Comm_connect");
}
MPII_WEAK(Comm_connect)

/* All of len bytes over the caller's (blocking or not) socket. */
static int join_io(int fd, void *buf, size_t len, int out)
{
    char *b = buf;
    while (len > 0) {
        ssize_t n = out ? write(fd, b, len) : read(fd, b, len);
        if (n > 0) {
            b += n;
            len -= (size_t)n;
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            return -1;
        } else {
            struct pollfd p = {fd, out ? POLLOUT : POLLIN, 0};
            poll(&p, 1, 100);
        }
    }
    return 0;
}

/* Both sides open a port and trade names; the smaller name accepts, the other connects.
 * Errors go to MPI_COMM_WORLD's handler, as for the other functions without a
 * communicator. */
int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    const char *fn = "MPI_Comm_join";
    int rc = mpii_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!intercomm)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "intercomm is NULL");
    char mine[MPI_MAX_PORT_NAME] = "", theirs[MPI_MAX_PORT_NAME] = "";
    int st = rmp_port_open(mine, sizeof(mine));
    if (st != RMP_SUCCESS)
        return mpii_err_comm(NULL, mpii_err_from_rmp(st), fn,
                             "cannot open a port: %s", rmp_strerror(st));
    int err = MPI_SUCCESS;
    if (join_io(fd, mine, sizeof(mine), 1) != 0 || join_io(fd, theirs, sizeof(theirs), 0) != 0)
        err = MPI_ERR_ARG;
    theirs[sizeof(theirs) - 1] = '\0';
    mpii_comm_t *n = NULL;
    if (err == MPI_SUCCESS) {
        int c = strcmp(mine, theirs);
        if (c == 0)
            err = MPI_ERR_ARG;
        else
            err = mpii_dyn_meet(c < 0 ? mine : theirs, 0, &mpii_comm_self, c < 0, &n);
    }
    rmp_port_close(mine);
    if (err == MPI_SUCCESS && !n)
        err = MPI_ERR_INTERN;
    if (err != MPI_SUCCESS)
        return mpii_err_comm(NULL, err, fn, "%s",
                             err == MPI_ERR_ARG ? "the socket carried no port name"
                                                : "could not reach the other process");
    *intercomm = mpii_comm_handle(n);
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_join)
