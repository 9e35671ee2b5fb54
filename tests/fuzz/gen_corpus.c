/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes the seed corpora of tests/fuzz (one file per seed, under
 * DIR/<target>/) from the real wire structs and encoders: valid messages of
 * every kind plus the edge cases each decoder must refuse.
 *   build-fuzz/tests/fuzz/fuzz_gen_corpus tests/fuzz/corpus */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proto.h"
#include "rmp.h"
#include "transports/shm/shm_seg.h"
#include "transports/tcp/tcp.h"
#include "transports/verbs/verbs_wire.h"

static const char *root;
static unsigned char buf[16384];
static size_t len;

static void put(const void *p, size_t n)
{
    if (n == 0)
        return;
    if (len + n > sizeof(buf))
        abort();
    memcpy(buf + len, p, n);
    len += n;
}

static void put_u8(unsigned v)
{
    unsigned char b = (unsigned char)v;
    put(&b, 1);
}

static void emit(const char *target, const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", root, target);
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        abort();
    snprintf(path, sizeof(path), "%s/%s/%s", root, target, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    len = 0;
}

/* ---- proto: hlen, window byte, header, payload ---- */

static void proto(const char *name, const void *hdr, size_t hlen, const void *pl, size_t plen,
                  unsigned wsel)
{
    put_u8((unsigned)hlen);
    put_u8(wsel);
    put(hdr, hlen);
    put(pl, plen);
    emit("proto", name);
}

static void gen_proto(void)
{
    static const char data[] = "0123456789abcdef0123456789abcdef";
    rmpi_hdr_t h = {RMPI_MSG_EAGER, 0, 0, 2, 1, 7};
    proto("eager", &h, sizeof(h), "hello", 5, 0);
    h.type = RMPI_MSG_FRAG;
    proto("frag", &h, sizeof(h), data, 32, 0);
    rmpi_rts_t r = {{RMPI_MSG_RTS, 0, 0, 2, 1, 7}, 1 << 20, 0x7f0000001000, 0x7f0000200000, 0};
    proto("rts", &r, sizeof(r), NULL, 0, 0);
    r.h.type = RMPI_MSG_FRAG_FIRST;
    r.size = 100;
    proto("frag-first", &r, sizeof(r), data, 32, 0);
    r.size = 8;
    proto("frag-first-overlong", &r, sizeof(r), data, 32, 0); /* refused */
    rmpi_fin_t f = {RMPI_MSG_FIN, {0}, RMP_SUCCESS, 0x7f0000001000};
    proto("fin", &f, sizeof(f), NULL, 0, 0);
    f.status = 12345;
    proto("fin-bad-status", &f, sizeof(f), NULL, 0, 0);
    rmpi_cts_t c = {.type = RMPI_MSG_CTS,
                    .status = RMP_SUCCESS,
                    .sreq = 0x7f0000001000,
                    .rreq = 0x7f0000002000,
                    .addr = 0x7f0000300000,
                    .key = 0x100000001,
                    .len = 4096};
    proto("cts", &c, sizeof(c), NULL, 0, 0);
    c.more = 1;
    c.off = 8192;
    proto("cts-piece", &c, sizeof(c), NULL, 0, 0);
    /* A piece into the receiver's segments: the list is the payload. */
    struct iovec segs[2] = {{(void *)0x7f0000400000, 2048}, {(void *)0x7f0000500000, 2048}};
    c.nseg = 2;
    c.addr = 0;
    proto("cts-segments", &c, sizeof(c), segs, sizeof(segs), 0);
    proto("cts-segments-short", &c, sizeof(c), segs, sizeof(segs[0]), 0); /* refused */
    c.nseg = 0;
    c.more = 7;
    proto("cts-bad-more", &c, sizeof(c), NULL, 0, 0); /* refused */
    c.more = 0;
    c.off = 0;
    c.status = RMP_ERR_NOMEM;
    proto("cts-error-with-len", &c, sizeof(c), NULL, 0, 0); /* refused */
    rmpi_rma_t m;
    memset(&m, 0, sizeof(m));
    m.type = RMPI_MSG_RMA;
    m.op = RMPI_RMA_PUT;
    m.offset = 24;
    m.req = 0x7ffd00001000;
    proto("rma-put", &m, sizeof(m), data, 16, 0x1f);
    m.op = RMPI_RMA_GET;
    m.len = 64;
    proto("rma-get", &m, sizeof(m), NULL, 0, 0x1f);
    m.op = RMPI_RMA_FADD;
    m.len = 8;
    m.offset = 16;
    m.operand = 1;
    proto("rma-fadd", &m, sizeof(m), NULL, 0, 0x0f);
    m.op = RMPI_RMA_CSWAP;
    m.compare = 0;
    proto("rma-cswap-misaligned", &m, sizeof(m), NULL, 0, 0x2f);
    m.op = RMPI_RMA_GET_REP;
    m.offset = 32;
    m.len = 16;
    m.compare = 16;  /* the fuzzer's off0 */
    m.operand = 64;  /* and get length */
    proto("rma-get-rep", &m, sizeof(m), data, 16, 0);
    m.op = RMPI_RMA_ACK;
    m.len = 0;
    proto("rma-ack", &m, sizeof(m), NULL, 0, 0);
    m.op = RMPI_RMA_AMO_REP;
    m.status = RMP_ERR_ACCESS;
    proto("rma-amo-rep-refused", &m, sizeof(m), NULL, 0, 0);
    proto("empty", &h, 0, NULL, 0, 0);
    h.type = 99;
    proto("unknown-type", &h, sizeof(h), NULL, 0, 0);
    r.h.type = RMPI_MSG_RTS;
    proto("rts-short", &r, sizeof(rmpi_hdr_t), NULL, 0, 0); /* refused: read past 16 bytes */
}

/* ---- shm_inbox: mode byte, then mode 0: geometry, tail, cells, pool; mode 1: ops ---- */

static void gen_shm_inbox(void)
{
    /* A real inbox after posts that wrap, one through a pool buffer. */
    static shm_cell_t cells[8];
    shm_inbox_ctl_t ctl;
    shm_inbox_init(&ctl, cells, 8);
    char hdr[16] = "header";
    char pl[96];
    memset(pl, 'p', sizeof(pl));
    for (int i = 0; i < 6; i++)
        shm_inbox_post(&ctl, cells, 8, (uint16_t)(i % 3), hdr, 16, pl, (size_t)i * 16);
    uint64_t pos;
    shm_cell_t *c = shm_inbox_claim(&ctl, cells, 8, &pos);
    uint32_t idx = 1;
    *c = (shm_cell_t){.plen = 200, .src = 1, .hlen = 16, .kind = SHM_CELL_POOL};
    memcpy(c->data, &idx, 4);
    shm_inbox_publish(c, pos);
    put_u8(0);
    put_u8(0); /* 8 cells */
    put_u8(0); /* tail 0 */
    put_u8(3); /* 4 local ranks */
    put_u8(1); /* 2 buffers */
    put_u8(3); /* of 256 bytes */
    put(cells, sizeof(cells));
    emit("shm_inbox", "hostile-real-inbox");
    /* Cells that lie: payload past the cell, a buffer that does not exist. */
    memset(cells, 0, sizeof(cells));
    cells[0] = (shm_cell_t){.plen = 100000, .src = 0, .hlen = 16, .kind = SHM_CELL_INLINE};
    cells[1] = (shm_cell_t){.plen = 10, .src = 0, .hlen = 16, .kind = SHM_CELL_POOL};
    idx = 9;
    memcpy(cells[1].data, &idx, 4);
    cells[2] = (shm_cell_t){.plen = 10, .src = 200, .hlen = 16, .kind = SHM_CELL_INLINE};
    put_u8(0);
    put_u8(0);
    put_u8(0);
    put_u8(3);
    put_u8(1);
    put_u8(3);
    put(cells, sizeof(cells));
    emit("shm_inbox", "hostile-overlong");
    /* Honest: claims, out-of-order publishes and pops, inline and pool, many laps. */
    put_u8(1);
    put_u8(0);
    for (int i = 0; i < 300; i++) {
        put_u8((unsigned)(((i % 5) << 2) | (i % 2 ? 0x80 : 0)));
        put_u8((unsigned)(i * 37));
        put_u8((unsigned)(1 | (i % 3) << 2));
        if (i % 2)
            put_u8(2);
        put_u8(2);
    }
    emit("shm_inbox", "honest-laps");
}

/* ---- tcp_frame: state byte (0 accepted, 1 hello sent, 2 up; +0x80 EOF), stream ---- */

static void frame(int kind, unsigned hlen, uint64_t plen)
{
    tcp_frame_t f = {TCP_MAGIC, (uint8_t)kind, (uint8_t)hlen, 0, plen};
    put(&f, sizeof(f));
}

static void am(unsigned hlen, size_t plen)
{
    frame(TCP_F_AM, hlen, plen);
    rmpi_hdr_t h = {RMPI_MSG_EAGER, 0, 0, 0, 0, 3};
    unsigned char hb[TCP_MAX_HLEN];
    memset(hb, 0, sizeof(hb));
    memcpy(hb, &h, sizeof(h));
    put(hb, hlen);
    for (size_t i = 0; i < plen; i++)
        put_u8((unsigned)i);
}

static void gen_tcp(void)
{
    tcp_hello_t good = {0x1122334455667788ULL, 0, 3};
    put_u8(0);
    frame(TCP_F_HELLO, sizeof(good), 0);
    put(&good, sizeof(good));
    am(16, 100);
    am(48, 0);
    emit("tcp_frame", "accepted-hello-then-data");
    tcp_hello_t bad = good;
    bad.token ^= 1;
    put_u8(0);
    frame(TCP_F_HELLO, sizeof(bad), 0);
    put(&bad, sizeof(bad));
    emit("tcp_frame", "accepted-wrong-token");
    bad = good;
    bad.rank = 1; /* the acceptor's own rank */
    put_u8(0);
    frame(TCP_F_HELLO, sizeof(bad), 0);
    put(&bad, sizeof(bad));
    emit("tcp_frame", "accepted-own-rank");
    put_u8(0);
    am(16, 4);
    emit("tcp_frame", "accepted-data-before-hello");
    put_u8(1);
    frame(TCP_F_ACK, 0, 0);
    am(16, 10);
    emit("tcp_frame", "hello-sent-ack-then-data");
    put_u8(2);
    am(16, 0);
    am(16, 1000);
    am(TCP_MAX_HLEN, 5);
    emit("tcp_frame", "up-messages");
    /* PUT into the fuzzer's registered page (second page of 0x10000000). */
    tcp_put_hdr_t p = {0x10001000ULL + 64, 0x100000001ULL};
    put_u8(2);
    frame(TCP_F_PUT, sizeof(p), 128);
    put(&p, sizeof(p));
    for (int i = 0; i < 128; i++)
        put_u8((unsigned)i);
    am(16, 8);
    emit("tcp_frame", "up-put-then-data");
    p.raddr = 0x10001000ULL + 4000; /* runs past the page: refused */
    put_u8(2);
    frame(TCP_F_PUT, sizeof(p), 128);
    put(&p, sizeof(p));
    emit("tcp_frame", "up-put-overrun");
    put_u8(0x82);
    frame(TCP_F_PUT, sizeof(p), 1000);
    p.raddr = 0x10001000ULL;
    put(&p, sizeof(p));
    put("partial", 7);
    emit("tcp_frame", "up-put-truncated-eof");
    put_u8(2);
    frame(TCP_F_AM, 16, TCP_MAX_AM);
    emit("tcp_frame", "up-oversized");
    put_u8(2);
    frame(TCP_F_AM, 0, 0);
    emit("tcp_frame", "up-empty-header");
    put_u8(0x82);
    am(16, 50);
    put("\x52\x74\x01", 3); /* half a frame, then EOF */
    emit("tcp_frame", "up-eof-mid-frame");
    put_u8(2);
    put("GET / HTTP/1.1\r\n\r\n", 18);
    emit("tcp_frame", "up-garbage");
}

/* ---- ep_addr: selector (0 shm, 1 tcp, 2 segment name, 3 peers, 4 transport
 * address blob), blob ---- */

static void gen_ep_addr(void)
{
    shm_addr_t a;
    memset(&a, 0, sizeof(a));
    snprintf(a.name, sizeof(a.name), "%d:%d", 4242, 7);
    a.pid = 4242;
    a.nlocal = 4;
    a.ncells = 128;
    a.nbufs = 8;
    a.buf_bytes = 65536;
    a.seg_bytes = shm_seg_bytes(a.ncells, a.nbufs, a.buf_bytes);
    a.probe_addr = 0x7f0000000008;
    put_u8(0);
    put_u8(3); /* nlocal 4 */
    put(&a, sizeof(a));
    emit("ep_addr", "shm-valid");
    a.seg_bytes -= 64;
    put_u8(0);
    put_u8(3);
    put(&a, sizeof(a));
    emit("ep_addr", "shm-short-segment");
    a.seg_bytes = shm_seg_bytes(a.ncells, a.nbufs, a.buf_bytes);
    memset(a.name, 'x', sizeof(a.name));
    put_u8(0);
    put_u8(3);
    put(&a, sizeof(a));
    emit("ep_addr", "shm-unterminated-name");
    static const char tcp_ok[] = "192.168.1.20:40123/0123456789abcdef";
    put_u8(1);
    put(tcp_ok, sizeof(tcp_ok));
    emit("ep_addr", "tcp-valid");
    static const char tcp_bad[] = "127.0.0.1:-1/ff";
    put_u8(1);
    put(tcp_bad, sizeof(tcp_bad));
    emit("ep_addr", "tcp-negative-port");
    put_u8(1);
    put("127.0.0.1:80/1", 14); /* no NUL */
    emit("ep_addr", "tcp-unterminated");
    put_u8(2);
    put("31337:12", 8);
    emit("ep_addr", "name-valid");
    put_u8(2);
    put("12:x", 4);
    emit("ep_addr", "name-garbage");
    put_u8(3);
    put_u8(3); /* size 4 */
    put_u8(1); /* me 1 */
    put("3,1,0,2", 7);
    emit("ep_addr", "peers-valid");
    put_u8(3);
    put_u8(3);
    put_u8(1);
    put("0,1,1", 5);
    emit("ep_addr", "peers-duplicate");
    put_u8(3);
    put_u8(3);
    put_u8(1);
    put("1,9", 3);
    emit("ep_addr", "peers-out-of-range");
    /* [name length][name][u16 length][address] per transport; look up tcp (index 3). */
    static const unsigned char blob[] = {3, 's', 'h', 'm', 2, 0, 'a', 'b',
                                         3, 't', 'c', 'p', 3, 0, 'x', 'y', 'z'};
    put_u8(4);
    put_u8(3);
    put(blob, sizeof(blob));
    emit("ep_addr", "tl-blob-valid");
    put_u8(4);
    put_u8(3);
    put(blob, sizeof(blob) - 1);
    emit("ep_addr", "tl-blob-short");
}

/* ---- verbs: selector (0 imm, 1 private data, 2 address), fields ---- */

static void gen_verbs(void)
{
    uint32_t imm = VERBS_IMM(16, 32, 0), blen = 16 + 100;
    uint16_t bsz = 8256 - 1;
    put_u8(0);
    put(&imm, 4);
    put(&blen, 4);
    put(&bsz, 2);
    emit("verbs", "imm-message");
    imm = VERBS_IMM(0, 40, 1);
    blen = 0;
    put_u8(0);
    put(&imm, 4);
    put(&blen, 4);
    put(&bsz, 2);
    emit("verbs", "imm-credit-only");
    imm = VERBS_IMM(48, 0, 0);
    blen = 10; /* shorter than its header: used to underflow the payload length */
    put_u8(0);
    put(&imm, 4);
    put(&blen, 4);
    put(&bsz, 2);
    emit("verbs", "imm-header-past-message");
    verbs_cm_priv_t pr = {VERBS_CM_MAGIC, 2};
    put_u8(1);
    put_u8(3);
    put_u8(0);
    put_u8(0);
    put(&pr, sizeof(pr));
    emit("verbs", "priv-valid");
    verbs_addr_t va;
    memset(&va, 0, sizeof(va));
    struct sockaddr_in *s4 = (struct sockaddr_in *)&va.sa;
    s4->sin_family = AF_INET;
    s4->sin_port = htons(18515);
    inet_pton(AF_INET, "10.0.0.2", &s4->sin_addr);
    put_u8(2);
    put(&va, sizeof(va));
    emit("verbs", "addr-ipv4");
    memset(&va, 0, sizeof(va));
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&va.sa;
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(18515);
    inet_pton(AF_INET6, "fe80::1", &s6->sin6_addr);
    put_u8(2);
    put(&va, sizeof(va));
    emit("verbs", "addr-ipv6");
}

/* ---- config: environment lines ---- */

static void gen_config(void)
{
    static const char *const seeds[][2] = {
        {"valid", "RMP_LOG=debug\nRMP_SHM_BUF_BYTES=128k\nRMP_TIMEOUT=1.5\nRMP_STATS=yes\n"
                  "RMP_TRANSPORTS=shm,tcp\nRMP_VERBS_GID_INDEX=-1\nRMP_SHM_CMA=OFF\n"
                  "RMP_RNDV_THRESHOLD=64kB\nRMP_POLL_YIELD=never\nPATH=/usr/bin"},
        {"typo", "RMP_SHM_RING_BYTE=1m\nRMP_LGO=info\nRMP_RRUN_BINDING=core"},
        {"bad-size", "RMP_RNDV_THRESHOLD=12q"},
        {"size-overflow", "RMP_RCACHE_MAX_BYTES=17179869184g"},
        {"bad-int", "RMP_VERBS_GID_INDEX=99999999999"},
        {"bad-double", "RMP_TIMEOUT=nan"},
        {"bad-enum", "RMP_SHM_CMA=maybe"},
        {"long-string", "RMP_TCP_IF=eth0eth0eth0eth0eth0eth0eth0eth0eth0eth0eth0eth0eth0eth0"
                        "eth0eth0eth0eth0eth0eth0eth0eth0eth0eth0eth0eth0eth0eth0eth0eth0eth0e"
                        "th0eth0eth0"},
        {"no-equals", "RMP_STATS\nRMP_=\n=RMP_LOG"},
    };
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
        put(seeds[i][1], strlen(seeds[i][1]));
        emit("config", seeds[i][0]);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    root = argv[1];
    mkdir(root, 0755);
    gen_proto();
    gen_shm_inbox();
    gen_tcp();
    gen_ep_addr();
    gen_verbs();
    gen_config();
    return 0;
}
