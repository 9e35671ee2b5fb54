/* SPDX-License-Identifier: BSD-3-Clause */
/* Validation of what a tcp peer sends: frame headers, the handshake and the
 * published address. Pure functions, called by tcp_conn.c/tcp.c before a
 * field is used, and fuzzed as they are (tests/fuzz/fuzz_tcp.c). */
#include <arpa/inet.h>
#include <string.h>

#include "tcp.h"

static int frame_bad(const char **why, const char *what)
{
    *why = what;
    return RMP_ERR_TRANSPORT;
}

int rmpi_tcp_frame_check(const tcp_frame_t *f, int state, size_t *need, const char **why)
{
    if (f->magic != TCP_MAGIC)
        return frame_bad(why, "bad magic");
    switch (f->kind) {
    case TCP_F_AM:
        if (state != TCP_C_UP)
            return frame_bad(why, "data before handshake");
        if (f->hlen == 0 || f->hlen > TCP_MAX_HLEN || f->plen > TCP_MAX_AM - f->hlen)
            return frame_bad(why, "bad or oversized message");
        *need = sizeof(*f) + f->hlen + (size_t)f->plen;
        return RMP_SUCCESS;
    case TCP_F_PUT:
        if (state != TCP_C_UP || f->hlen != sizeof(tcp_put_hdr_t))
            return frame_bad(why, "bad put");
        break; /* the payload goes straight to registered memory */
    case TCP_F_HELLO:
        if (state != TCP_C_ACCEPTED || f->hlen != sizeof(tcp_hello_t) || f->plen)
            return frame_bad(why, "unexpected handshake");
        break;
    case TCP_F_ACK:
        if (state != TCP_C_HELLO_SENT || f->hlen || f->plen)
            return frame_bad(why, "unexpected handshake reply");
        break;
    default:
        return frame_bad(why, "unknown frame kind");
    }
    *need = sizeof(*f) + f->hlen;
    return RMP_SUCCESS;
}

int rmpi_tcp_hello_check(const tcp_hello_t *h, uint64_t token, int nranks, int me)
{
    if (h->token != token || h->size != nranks || h->rank < 0 || h->rank >= nranks ||
        h->rank == me)
        return RMP_ERR_TRANSPORT;
    return RMP_SUCCESS;
}

/* Digits of one base (10 or 16) at *s, at most maxd of them, into *v. */
static int addr_number(const char **s, int base, int maxd, unsigned long long *v)
{
    int n = 0;
    *v = 0;
    for (;; n++) {
        char c = (*s)[n];
        int d = c >= '0' && c <= '9'                 ? c - '0'
                : base == 16 && c >= 'a' && c <= 'f' ? c - 'a' + 10
                : base == 16 && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                     : -1;
        if (d < 0)
            break;
        if (n == maxd)
            return -1;
        *v = *v * (unsigned)base + (unsigned)d;
    }
    *s += n;
    return n > 0 ? 0 : -1;
}

int rmpi_tcp_addr_decode(const char *a, size_t alen, struct sockaddr_in *sa, uint64_t *token)
{
    /* "IPv4:PORT/TOKEN" as tcp_init writes it, NUL-terminated, nothing else. */
    if (alen == 0 || alen > 96 || a[alen - 1] != '\0' || strlen(a) != alen - 1)
        return RMP_ERR_BOOTSTRAP;
    const char *colon = strchr(a, ':');
    if (!colon || colon == a || colon - a > 15)
        return RMP_ERR_BOOTSTRAP;
    char ip[16];
    memcpy(ip, a, (size_t)(colon - a));
    ip[colon - a] = '\0';
    struct sockaddr_in out;
    memset(&out, 0, sizeof(out));
    if (inet_pton(AF_INET, ip, &out.sin_addr) != 1)
        return RMP_ERR_BOOTSTRAP;
    const char *s = colon + 1;
    unsigned long long port, tok;
    if (addr_number(&s, 10, 5, &port) != 0 || port == 0 || port > 65535 || *s++ != '/' ||
        addr_number(&s, 16, 16, &tok) != 0 || *s != '\0')
        return RMP_ERR_BOOTSTRAP;
    out.sin_family = AF_INET;
    out.sin_port = htons((uint16_t)port);
    *sa = out;
    *token = tok;
    return RMP_SUCCESS;
}
