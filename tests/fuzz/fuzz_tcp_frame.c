/* SPDX-License-Identifier: BSD-3-Clause */
/* The tcp transport's receive path, the production code end to end: the
 * input is what a peer writes on a connection (a socketpair here), read and
 * parsed by rmpi_tcp_conn_read in a real transport instance, from one of the
 * three states a connection reads in (accepted: the peer must say HELLO;
 * hello sent: we wait for ACK; up: AM and PUT frames).
 * Contract: rmpi_tcp_frame_check accepts only frames whose sizes fit the
 * limits; every message delivered to the core has 1..TCP_MAX_HLEN header
 * bytes and a payload inside the bytes received; a HELLO brings a connection
 * up only with the job's token and a real rank; a PUT writes only inside a
 * registered page (PROT_NONE pages on both sides: a stray byte is a SEGV);
 * malformed input closes the connection, never crashes or spins. */
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "tl_registry.h"
#include "log.h"
#include "transports/tcp/tcp.h"

#define FUZZ_TOKEN 0x1122334455667788ULL
#define FUZZ_REGION ((void *)0x10000000) /* seeds name it in PUT frames */

static tcp_tl_t *tl;
static tcp_conn_t *cur;
static unsigned char *page; /* the registered page */

static void fuzz_cb(int src, const void *hdr, size_t hlen, const void *payload, size_t plen)
{
    FUZZ_CHECK(src == 0 || src == 2);
    FUZZ_CHECK(cur && cur->state == TCP_C_UP);
    FUZZ_CHECK(hlen >= 1 && hlen <= TCP_MAX_HLEN && plen <= TCP_MAX_AM - hlen);
    const unsigned char *p = payload;
    FUZZ_CHECK(p >= cur->rbuf && p + plen <= cur->rbuf + cur->rlen);
    unsigned sink = 0;
    for (size_t i = 0; i < hlen; i++)
        sink += ((const unsigned char *)hdr)[i];
    for (size_t i = 0; i < plen; i++)
        sink += p[i];
    (void)sink;
}

static void fuzz_setup(void)
{
    rmpi_log_level = -1; /* malformed input is the point: no log lines */
    tl = calloc(1, sizeof(*tl));
    FUZZ_CHECK(tl != NULL);
    tl->cb = fuzz_cb;
    tl->lfd = -1;
    tl->epfd = epoll_create1(EPOLL_CLOEXEC);
    tl->token = FUZZ_TOKEN;
    tl->nranks = 3;
    tl->me = 1;
    tl->done_tail = &tl->done_head;
    tl->eps = calloc(3, sizeof(*tl->eps));
    FUZZ_CHECK(tl->epfd >= 0 && tl->eps != NULL);
    long pg = sysconf(_SC_PAGESIZE);
    unsigned char *m = mmap(FUZZ_REGION, 3 * (size_t)pg, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (m == MAP_FAILED)
        m = mmap(NULL, 3 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                 0);
    FUZZ_CHECK(m != MAP_FAILED);
    mprotect(m, (size_t)pg, PROT_NONE);
    mprotect(m + 2 * pg, (size_t)pg, PROT_NONE);
    page = m + pg;
    rmpi_mr_t *mr;
    uint64_t key;
    FUZZ_CHECK(rmpi_tl_tcp.mem_reg(&tl->base, page, (size_t)pg, &mr, &key) == RMP_SUCCESS);
    FUZZ_CHECK(key == 0x100000001ULL); /* what the seeds use */
}

static void fuzz_reset_eps(void)
{
    for (int i = 0; i < tl->nranks; i++) {
        memset(&tl->eps[i], 0, sizeof(tl->eps[i]));
        tl->eps[i].tl = tl;
        tl->eps[i].base.peer = i;
        tl->eps[i].qtail = &tl->eps[i].qhead;
    }
    tl->nup = 0;
    tl->hot = NULL;
    tl->need_report = false;
    tl->flush_list = NULL;
}

/* The pure check alone, on the first 16 bytes. */
static void check_frame(const uint8_t *data, size_t size, int state)
{
    if (size < sizeof(tcp_frame_t))
        return;
    tcp_frame_t f;
    memcpy(&f, data, sizeof(f));
    size_t need = 0;
    const char *why = NULL;
    if (rmpi_tcp_frame_check(&f, state, &need, &why) != RMP_SUCCESS) {
        FUZZ_CHECK(why != NULL);
        return;
    }
    FUZZ_CHECK(f.magic == TCP_MAGIC && need >= sizeof(f) + f.hlen);
    FUZZ_CHECK(need <= sizeof(f) + TCP_MAX_AM);
    if (f.kind == TCP_F_AM)
        FUZZ_CHECK(state == TCP_C_UP && f.hlen >= 1 && need == sizeof(f) + f.hlen + f.plen);
    else if (f.kind == TCP_F_PUT)
        FUZZ_CHECK(state == TCP_C_UP && f.hlen == sizeof(tcp_put_hdr_t));
    else if (f.kind == TCP_F_HELLO)
        FUZZ_CHECK(state == TCP_C_ACCEPTED && f.hlen == sizeof(tcp_hello_t) && !f.plen);
    else
        FUZZ_CHECK(f.kind == TCP_F_ACK && state == TCP_C_HELLO_SENT && !f.hlen && !f.plen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!tl)
        fuzz_setup();
    if (size < 1)
        return 0;
    static const int states[] = {TCP_C_ACCEPTED, TCP_C_HELLO_SENT, TCP_C_UP};
    int state = states[data[0] % 3];
    int eof = data[0] & 0x80;
    data++;
    size--;
    check_frame(data, size, state);

    int sv[2];
    FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) == 0);
    fuzz_reset_eps();
    tcp_conn_t *c = rmpi_tcp_conn_new(tl, sv[0], state, EPOLLIN);
    FUZZ_CHECK(c != NULL);
    tcp_ep_t *ep = &tl->eps[0];
    if (state == TCP_C_HELLO_SENT) {
        c->ep = ep;
        ep->out = c;
        ep->known = true;
        ep->state = TCP_EP_CONNECTING;
    } else if (state == TCP_C_UP) {
        c->ep = ep;
        ep->conn = c;
        ep->known = true;
        ep->state = TCP_EP_UP;
        tl->nup = 1;
    }
    cur = c;
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(sv[1], data + off, size - off);
        if (w <= 0)
            break; /* the socket buffer is full: the rest is never sent */
        off += (size_t)w;
    }
    if (eof)
        shutdown(sv[1], SHUT_WR);
    for (int i = 0; i < 8 && !c->dead; i++)
        rmpi_tcp_conn_read(tl, c);
    if (!c->dead && state == TCP_C_ACCEPTED && c->state == TCP_C_UP)
        FUZZ_CHECK(c->ep == &tl->eps[0] || c->ep == &tl->eps[2]); /* only via a good HELLO */
    if (!c->dead && c->state == TCP_C_UP && c->put_left)
        FUZZ_CHECK(c->put_dst >= (char *)page &&
                   c->put_dst + c->put_left <= (char *)page + sysconf(_SC_PAGESIZE));
    cur = NULL;
    if (!c->dead)
        rmpi_tcp_conn_close(tl, c);
    rmpi_tcp_reap(tl);
    close(sv[1]);
    /* Completions a failure queued (none carry callbacks here). */
    while (tl->done_head) {
        tcp_seg_t *s = tl->done_head;
        tl->done_head = s->next;
        free(s);
    }
    tl->done_tail = &tl->done_head;
    return 0;
}
