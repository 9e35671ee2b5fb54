/* SPDX-License-Identifier: BSD-3-Clause */
/* Ports between two halves of one job: the first half accepts, the second connects (the
 * port name published under a service name and looked up); point-to-point both ways over
 * the intercomm, a merge and a collective over it, disconnect. Then join over a
 * socketpair (ranks 0 and 1), and bad input: a port nobody opened, an unknown service,
 * closing a port twice. The other group is reached as dynamic peers (core/dynpeer.c). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"

static void exchange(MPI_Comm ic, int lrank, int lsize, int side)
{
    int rsize = -1, flag = 0;
    CHECK_OK(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag, "not an intercomm");
    CHECK_OK(MPI_Comm_remote_size(ic, &rsize));
    for (int j = 0; j < rsize; j++) {
        int v = side * 1000 + lrank;
        CHECK_OK(MPI_Send(&v, 1, MPI_INT, j, 7, ic));
    }
    for (int j = 0; j < rsize; j++) {
        int v = -1;
        MPI_Status st;
        CHECK_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, ic, &st));
        CHECK(v == (1 - side) * 1000 + st.MPI_SOURCE, "got %d from remote %d", v,
              st.MPI_SOURCE);
    }
    /* a large message: rendezvous over tcp */
    enum { BIG = 1 << 18 };
    int *big = malloc(BIG * sizeof(int));
    CHECK(big, "out of memory");
    if (lrank == 0) {
        for (int i = 0; i < BIG; i++)
            big[i] = side ? -i : i;
        MPI_Request rq;
        CHECK_OK(MPI_Isend(big, BIG, MPI_INT, 0, 8, ic, &rq));
        int *in = malloc(BIG * sizeof(int));
        CHECK(in, "out of memory");
        CHECK_OK(MPI_Recv(in, BIG, MPI_INT, 0, 8, ic, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        for (int i = 0; i < BIG; i++)
            CHECK(in[i] == (side ? i : -i), "big[%d] = %d", i, in[i]);
        free(in);
    }
    free(big);
    MPI_Comm merged;
    CHECK_OK(MPI_Intercomm_merge(ic, side, &merged));
    int mrank, msize, sum = 0;
    CHECK_OK(MPI_Comm_rank(merged, &mrank));
    CHECK_OK(MPI_Comm_size(merged, &msize));
    CHECK(msize == lsize + rsize, "merged size %d", msize);
    CHECK(mrank == (side ? rsize : 0) + lrank, "merged rank %d", mrank);
    CHECK_OK(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == msize * (msize - 1) / 2, "allreduce %d", sum);
    CHECK_OK(MPI_Barrier(ic));
    CHECK_OK(MPI_Comm_free(&merged));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(wsize >= 2, "needs 2 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int side = wrank >= wsize / 2;
    MPI_Comm half, ic;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, side, wrank, &half));
    int lrank, lsize;
    MPI_Comm_rank(half, &lrank);
    MPI_Comm_size(half, &lsize);
    char port[MPI_MAX_PORT_NAME] = "", got[MPI_MAX_PORT_NAME] = "";
    char svc[64];
    snprintf(svc, sizeof(svc), "rmp-test-%d", (int)getppid());

    if (!side && lrank == 0) {
        CHECK_OK(MPI_Open_port(MPI_INFO_NULL, port));
        CHECK_OK(MPI_Publish_name(svc, MPI_INFO_NULL, port));
        CHECK(MPI_Publish_name(svc, MPI_INFO_NULL, port) != MPI_SUCCESS, "published twice");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (side && lrank == 0) {
        CHECK_OK(MPI_Lookup_name(svc, MPI_INFO_NULL, got));
        int ec = 0;
        MPI_Error_class(MPI_Lookup_name("rmp-no-such-service", MPI_INFO_NULL, port), &ec);
        CHECK(ec == MPI_ERR_NAME, "unknown service: class %d", ec);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (!side) {
        CHECK_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &ic));
    } else {
        MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
        CHECK_OK(MPI_Comm_connect(got, MPI_INFO_NULL, 0, half, &ic));
    }
    exchange(ic, lrank, lsize, side);
    CHECK_OK(MPI_Comm_disconnect(&ic));
    CHECK(ic == MPI_COMM_NULL, "disconnect left a handle");
    MPI_Barrier(MPI_COMM_WORLD);
    if (!side && lrank == 0) {
        int ec = 0;
        CHECK_OK(MPI_Unpublish_name(svc, MPI_INFO_NULL, port));
        MPI_Error_class(MPI_Unpublish_name(svc, MPI_INFO_NULL, port), &ec);
        CHECK(ec == MPI_ERR_SERVICE, "unpublish twice: class %d", ec);
        CHECK_OK(MPI_Close_port(port));
        MPI_Error_class(MPI_Close_port(port), &ec);
        CHECK(ec == MPI_ERR_PORT, "close twice: class %d", ec);
        /* the port is closed: a connect fails at once instead of waiting */
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        MPI_Comm none = MPI_COMM_NULL;
        MPI_Error_class(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &none), &ec);
        CHECK(ec == MPI_ERR_PORT, "connect to a closed port: class %d", ec);
        MPI_Error_class(MPI_Comm_connect("not a port", MPI_INFO_NULL, 0, MPI_COMM_SELF,
                                         &none), &ec);
        CHECK(ec == MPI_ERR_PORT, "connect to garbage: class %d", ec);
    }

    /* Join: ranks 0 and 1 connect a TCP socket on loopback (the listening port number
     * goes over the world) and join over it. */
    if (wrank < 2) {
        int fd = -1;
        if (wrank == 0) {
            int l = socket(AF_INET, SOCK_STREAM, 0);
            struct sockaddr_in sa = {.sin_family = AF_INET};
            sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            socklen_t sl = sizeof(sa);
            CHECK(l >= 0 && bind(l, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
                      listen(l, 1) == 0 && getsockname(l, (struct sockaddr *)&sa, &sl) == 0,
                  "listen");
            int p = ntohs(sa.sin_port);
            CHECK_OK(MPI_Send(&p, 1, MPI_INT, 1, 9, MPI_COMM_WORLD));
            fd = accept(l, NULL, NULL);
            close(l);
        } else {
            int p = 0;
            CHECK_OK(MPI_Recv(&p, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            struct sockaddr_in sa = {.sin_family = AF_INET};
            sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            sa.sin_port = htons((uint16_t)p);
            fd = socket(AF_INET, SOCK_STREAM, 0);
            CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0, "connect");
        }
        CHECK(fd >= 0, "no socket");
        MPI_Comm jc;
        CHECK_OK(MPI_Comm_join(fd, &jc));
        close(fd);
        int rs = 0, v = wrank, w = -1;
        CHECK_OK(MPI_Comm_remote_size(jc, &rs));
        CHECK(rs == 1, "join remote size %d", rs);
        CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 3, &w, 1, MPI_INT, 0, 3, jc,
                              MPI_STATUS_IGNORE));
        CHECK(w == 1 - wrank, "join got %d", w);
        CHECK_OK(MPI_Comm_disconnect(&jc));
    }
    MPI_Comm parent;
    CHECK_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "a parent in a job nobody spawned");
    MPI_Comm_free(&half);
    MPI_Finalize();
    if (wrank == 0)
        printf("dyn_port: ok\n");
    return 0;
}
