/* SPDX-License-Identifier: BSD-3-Clause */
/* Hang diagnosis: on SIGUSR1 (rrun sends it on --timeout or when it gets
 * SIGUSR1 itself) every rank writes one line saying what it is blocked on.
 * The handler only formats into a stack buffer and calls write(2). */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "coll_id.h"
#include "comm.h"
#include "diag.h"
#include "request.h"

RMPI_DIAG_TLS volatile rmpi_diag_t rmpi_diag_other = {NULL, -1, 0, -1, 0};
RMPI_DIAG_TLS const char *volatile rmpi_diag_coll_call;

void rmpi_diag_wait(const char *call, int peer, int tag, long cid)
{
    rmpi_diag_other = (rmpi_diag_t){call, peer, tag, cid, 0};
}

void rmpi_diag_wait_coll(rmp_comm_t comm, int peer)
{
    rmpi_diag_other = (rmpi_diag_t){rmpi_diag_coll_call, peer, rmpi_coll_current_tag(comm),
                               (long)comm->cid, 1};
}

static size_t diag_put(char *b, size_t o, size_t cap, const char *s)
{
    while (*s && o + 1 < cap)
        b[o++] = *s++;
    return o;
}

static size_t diag_int(char *b, size_t o, size_t cap, long v)
{
    char t[24];
    int n = 0, neg = v < 0;
    unsigned long u = neg ? 0UL - (unsigned long)v : (unsigned long)v;
    do {
        t[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u && n < 22);
    if (neg)
        t[n++] = '-';
    while (n > 0 && o + 1 < cap)
        b[o++] = t[--n];
    return o;
}

static void diag_on_usr1(int sig)
{
    rmpi_engine_t *e = &rmpi_eng;
    (void)sig;
    char b[320];
    size_t o = 0, cap = sizeof(b);
    o = diag_put(b, o, cap, "[rmp ");
    o = diag_int(b, o, cap, e->job.rank);
    o = diag_put(b, o, cap, "] blocked: ");
    rmp_request_t r = rmpi_blocked_req;
    rmpi_diag_t other = rmpi_diag_other;
    if (!r && other.call && other.coll) {
        o = diag_put(b, o, cap, "in ");
        o = diag_put(b, o, cap, other.call);
        o = diag_put(b, o, cap, " (collective #");
        o = diag_int(b, o, cap, rmpi_coll_tag_seq(other.tag));
        o = diag_put(b, o, cap, " phase ");
        o = diag_int(b, o, cap, rmpi_coll_tag_phase(other.tag));
        o = diag_put(b, o, cap, " on context ");
        o = diag_int(b, o, cap, other.cid);
        o = diag_put(b, o, cap, ", shared segment), receiving from world rank ");
        o = diag_int(b, o, cap, other.peer);
    } else if (!r && other.call) {
        o = diag_put(b, o, cap, "in ");
        o = diag_put(b, o, cap, other.call);
        if (other.peer >= 0) {
            o = diag_put(b, o, cap, ", peer world rank ");
            o = diag_int(b, o, cap, other.peer);
        }
        if (other.cid >= 0) {
            o = diag_put(b, o, cap, " (tag ");
            o = diag_int(b, o, cap, other.tag);
            o = diag_put(b, o, cap, ", context ");
            o = diag_int(b, o, cap, other.cid);
            o = diag_put(b, o, cap, ")");
        }
    } else if (!r) {
        o = diag_put(b, o, cap, "not in a blocking rmp call");
    } else {
        if (r->kind == RMPI_REQ_RECV && rmpi_cid_is_coll(r->mq.cid)) {
            const char *call = rmpi_diag_coll_call;
            o = diag_put(b, o, cap, "in ");
            o = diag_put(b, o, cap, call ? call : "a collective");
            o = diag_put(b, o, cap, " (collective #");
            o = diag_int(b, o, cap, rmpi_coll_tag_seq(r->mq.tag));
            o = diag_put(b, o, cap, " phase ");
            o = diag_int(b, o, cap, rmpi_coll_tag_phase(r->mq.tag));
            o = diag_put(b, o, cap, " on context ");
            o = diag_int(b, o, cap, (long)rmpi_cid_comm(r->mq.cid));
            o = diag_put(b, o, cap, "), receiving from ");
            if (r->peer < 0) {
                o = diag_put(b, o, cap, "any rank");
            } else {
                o = diag_put(b, o, cap, "world rank ");
                o = diag_int(b, o, cap, r->peer);
            }
        } else if (r->kind == RMPI_REQ_RECV) {
            o = diag_put(b, o, cap, "in a receive from ");
            if (r->peer < 0)
                o = diag_put(b, o, cap, "any rank");
            else {
                o = diag_put(b, o, cap, "world rank ");
                o = diag_int(b, o, cap, r->peer);
            }
            o = diag_put(b, o, cap, " (tag ");
            o = diag_int(b, o, cap, r->mq.tag);
            o = diag_put(b, o, cap, ", context ");
            o = diag_int(b, o, cap, (long)r->mq.cid);
            o = diag_put(b, o, cap, ")");
        } else if (r->kind == RMPI_REQ_SEND) {
            o = diag_put(b, o, cap, "in a send to world rank ");
            o = diag_int(b, o, cap, r->peer);
            o = diag_put(b, o, cap, (r->flags & RMPI_REQF_WAIT_FIN)
                                        ? " (rendezvous: the receiver has not matched it yet)"
                                        : " (no room in the transport)");
        } else {
            o = diag_put(b, o, cap, "in a nonblocking collective or generic request");
        }
    }
    b[o++] = '\n';
    ssize_t w = write(STDERR_FILENO, b, o);
    (void)w;
}

void rmpi_diag_install(void)
{
    rmpi_backtrace_install();
    struct sigaction old;
    if (sigaction(SIGUSR1, NULL, &old) != 0)
        return;
    /* Leave an application's own handler alone. */
    if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = diag_on_usr1;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
}
