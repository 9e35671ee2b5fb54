/* SPDX-License-Identifier: BSD-3-Clause */
/* Frame fuzz for the tcp transport (3 ranks, RMP_TRANSPORTS=tcp, under rrun).
 * Rank 0 plays a rogue process against rank 1's listening port: garbage,
 * truncated and oversized frames, handshakes with a wrong token, an
 * impossible rank or a duplicate, data before the handshake, an idle
 * connection; then, posing as rank 2 with the real token (which rank 1 has
 * never talked to), a malformed frame on an established connection. After
 * each attack rank 1 must still serve rank 0: an eager and a rendezvous
 * round trip with checked contents. Rank 2 stays silent. */
#include <arpa/inet.h>
#include <signal.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../common/skip.h"
#include "../common/t.h"
#include "tl_registry.h"
#include "proto.h"

#define BIG (1 << 20)
#define TAG_PING 7
#define TAG_STOP 8

typedef struct {
    uint16_t magic;
    uint8_t kind, hlen;
    uint32_t reserved;
    uint64_t plen;
} frame_t; /* as transports/tcp/tcp.h */

static struct sockaddr_in peer_addr;
static uint64_t peer_token;

static int rogue_connect(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&peer_addr, sizeof(peer_addr)) != 0) {
        perror("rogue connect");
        exit(2);
    }
    return fd;
}

static void rogue_send(int fd, const void *p, size_t n)
{
    if (write(fd, p, n) != (ssize_t)n)
        perror("rogue write"); /* the rank may already have closed: fine */
}

static void hello(int fd, uint64_t token, int32_t rank, int32_t size)
{
    struct {
        frame_t f;
        uint64_t token;
        int32_t rank, size;
    } h = {{0x7452, 3, 16, 0, 0}, token, rank, size};
    rogue_send(fd, &h, sizeof(h));
}

/* Rank 1 still answers: an eager and a rendezvous round trip. */
static void check_served(const char *after, unsigned char *buf, unsigned char *back)
{
    static unsigned seed = 1;
    rmp_comm_t w = rmp_comm_world();
    size_t sizes[2] = {100, BIG};
    for (int i = 0; i < 2; i++) {
        for (size_t k = 0; k < sizes[i]; k++)
            buf[k] = (unsigned char)(k * 31 + seed);
        seed++;
        memset(back, 0, sizes[i]);
        int rc = rmp_sendrecv(buf, sizes[i], 1, TAG_PING, back, sizes[i], 1, TAG_PING, w, NULL);
        T_CHECK(rc == RMP_SUCCESS && memcmp(buf, back, sizes[i]) == 0,
                "rank 1 did not serve a %zu-byte round trip after %s: %s", sizes[i], after,
                rmp_strerror(rc));
    }
}

int main(int argc, char **argv)
{
    setenv("RMP_TRANSPORTS", "tcp", 1);
    signal(SIGPIPE, SIG_IGN); /* the rogue writes into connections rank 1 closed */
    if (rmp_init(&argc, &argv) != RMP_SUCCESS)
        return 1;
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w), np = rmp_comm_size(w);
    if (np != 3) {
        int code = me == 0 ? T_SKIP_CODE("tcp_fuzz needs 3 ranks") : t_skip_ci_code();
        rmp_finalize();
        return code;
    }
    unsigned char *buf = malloc(BIG), *back = malloc(BIG);
    if (me == 1) {
        /* Echo whatever rank 0 sends until told to stop. */
        for (;;) {
            rmp_status_t st;
            int rc = rmp_recv(buf, BIG, 0, RMP_ANY_TAG, w, &st);
            if (rc != RMP_SUCCESS || st.tag == TAG_STOP)
                break;
            rmp_send(buf, st.bytes, 0, TAG_PING, w);
        }
    } else if (me == 0) {
        check_served("start-up", buf, back);
        char *a = NULL;
        size_t alen = 0;
        char ip[64];
        unsigned port = 0;
        unsigned long long tok = 0;
        T_CHECK(rmpi_tl_address(1, "tcp", (void **)&a, &alen) == RMP_SUCCESS &&
                    sscanf(a, "%63[^:]:%u/%llx", ip, &port, &tok) == 3,
                "rank 1's tcp address");
        free(a);
        peer_addr.sin_family = AF_INET;
        peer_addr.sin_port = htons((uint16_t)port);
        inet_pton(AF_INET, ip, &peer_addr.sin_addr);
        peer_token = tok;

        int fd = rogue_connect();
        for (int i = 0; i < 64; i++)
            buf[i] = (unsigned char)rand();
        rogue_send(fd, buf, 64 * 1024);
        close(fd);
        check_served("garbage", buf, back);

        fd = rogue_connect();
        frame_t f = {0x7452, 3, 16, 0, 0};
        rogue_send(fd, &f, 9);
        close(fd);
        check_served("a truncated frame", buf, back);

        fd = rogue_connect();
        frame_t big = {0x7452, 1, 16, 0, 1ULL << 40};
        rogue_send(fd, &big, sizeof(big));
        close(fd);
        check_served("an oversized frame before the handshake", buf, back);

        fd = rogue_connect();
        frame_t put = {0x7452, 2, 16, 0, 4096};
        rogue_send(fd, &put, sizeof(put));
        close(fd);
        check_served("a put before the handshake", buf, back);

        fd = rogue_connect();
        hello(fd, peer_token ^ 1, 2, 3);
        close(fd);
        check_served("a handshake with a wrong token", buf, back);

        fd = rogue_connect();
        hello(fd, peer_token, 99, 3);
        hello(fd, peer_token, 1, 3);
        close(fd);
        check_served("handshakes with impossible ranks", buf, back);

        fd = rogue_connect();
        hello(fd, peer_token, 0, 3); /* rank 0 is already connected */
        close(fd);
        check_served("a duplicate handshake", buf, back);

        int idle = rogue_connect(); /* left open, silent */
        check_served("an idle connection", buf, back);

        /* An established connection (posing as rank 2), then an oversized
         * frame on it: rank 1 closes it and logs, rank 0 is unaffected. */
        fd = rogue_connect();
        hello(fd, peer_token, 2, 3);
        frame_t ack;
        ssize_t n = recv(fd, &ack, sizeof(ack), MSG_WAITALL);
        T_CHECK(n == (ssize_t)sizeof(ack) && ack.kind == 4, "handshake as rank 2 not answered");
        /* Well-framed, malformed core messages: a first fragment longer than
         * its message (overflowed the unexpected-message buffer) and a
         * rendezvous request cut to a bare header. Rank 1 fails "rank 2"
         * (core/proto.c) and serves rank 0 on. */
        static struct {
            frame_t f;
            rmpi_rts_t r;
            unsigned char pl[2000];
        } ff;
        ff.f = (frame_t){0x7452, 1, sizeof(rmpi_rts_t), 0, sizeof(ff.pl)};
        ff.r = (rmpi_rts_t){{RMPI_MSG_FRAG_FIRST, 0, 0, 0, 2, 5}, 8, 1, 0, 0};
        memset(ff.pl, 0xee, sizeof(ff.pl));
        rogue_send(fd, &ff, sizeof(ff));
        struct {
            frame_t f;
            rmpi_hdr_t h;
        } rts = {{0x7452, 1, sizeof(rmpi_hdr_t), 0, 0}, {RMPI_MSG_RTS, 0, 0, 0, 2, 5}};
        rogue_send(fd, &rts, sizeof(rts));
        check_served("malformed core messages on an established connection", buf, back);
        rogue_send(fd, &big, sizeof(big));
        char c;
        n = read(fd, &c, 1); /* EOF: rank 1 closed it */
        T_CHECK(n == 0, "rank 1 kept a connection after an oversized frame (read %zd)", n);
        close(fd);
        check_served("an oversized frame on an established connection", buf, back);
        close(idle);
        rmp_send(NULL, 0, 1, TAG_STOP, w);
    }
    free(buf);
    free(back);
    return t_finish();
}
