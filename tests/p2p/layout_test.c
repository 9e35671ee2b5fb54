/* SPDX-License-Identifier: BSD-3-Clause */
/* Messages in the caller's layout (rmp_layout_t, 2 ranks, any transport): a strided
 * layout (8 bytes of every 24) against itself and against contiguous buffers, at
 * sizes that go eager, fragmented and by rendezvous; synchronous, unexpected,
 * truncated and matched-probe receives. Checked: the data, the gaps between
 * elements untouched, the callbacks called in increasing offset order with
 * pieces of bounded size, and the peak memory of a 32 MiB message (no
 * whole-message copy on either side). */
#include <rmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../common/hwm.h"
#include "../common/t.h"

#define ELEM 8
#define STRIDE 24
#define PIECE_MAX ((size_t)256 << 10) /* core/layout.h: RMPI_LAYOUT_PIECE */

static int me;
static rmp_comm_t W;

typedef struct {
    unsigned char *base; /* bytes/ELEM elements, STRIDE apart */
    size_t next;         /* the offset the next call must start at */
    size_t max_len;
    int out_of_order;
} strided_t;

static void strided_move(strided_t *s, size_t off, unsigned char *pk, size_t len, int unpack)
{
    if (off != s->next)
        s->out_of_order++;
    s->next = off + len;
    if (len > s->max_len)
        s->max_len = len;
    while (len > 0) {
        size_t e = off / ELEM, r = off % ELEM, n = ELEM - r < len ? ELEM - r : len;
        unsigned char *p = s->base + e * STRIDE + r;
        if (unpack)
            memcpy(p, pk, n);
        else
            memcpy(pk, p, n);
        off += n;
        pk += n;
        len -= n;
    }
}

static void strided_pack(void *ctx, size_t off, void *dst, size_t len)
{
    strided_move(ctx, off, dst, len, 0);
}

static void strided_unpack(void *ctx, size_t off, const void *src, size_t len)
{
    strided_move(ctx, off, (unsigned char *)(uintptr_t)src, len, 1);
}

static size_t span(size_t bytes)
{
    return (bytes + ELEM - 1) / ELEM * STRIDE + STRIDE;
}

static unsigned char val(size_t i, int salt)
{
    return (unsigned char)(i * 131u + (unsigned)salt * 7u + (i >> 13));
}

/* The packed stream byte i lives at this offset of a strided buffer. */
static size_t at(size_t i)
{
    return i / ELEM * STRIDE + i % ELEM;
}

static void fill_strided(unsigned char *b, size_t bytes, int salt)
{
    memset(b, 0xee, span(bytes));
    for (size_t i = 0; i < bytes; i++)
        b[at(i)] = val(i, salt);
}

/* The first `got` stream bytes arrived, everything else (gaps, tail) is untouched. */
static int check_strided(const unsigned char *b, size_t bytes, size_t got, int salt)
{
    size_t n = span(bytes);
    for (size_t k = 0; k < n; k++) {
        size_t e = k / STRIDE, r = k % STRIDE, i = e * ELEM + r;
        unsigned char want = (r < ELEM && i < got) ? val(i, salt) : 0xee;
        if (b[k] != want) {
            fprintf(stderr, "rank %d: strided byte %zu is %#x, want %#x\n", me, k, b[k], want);
            return 0;
        }
    }
    return 1;
}

static int check_contig(const unsigned char *b, size_t cap, size_t got, int salt)
{
    for (size_t i = 0; i < cap; i++) {
        unsigned char want = i < got ? val(i, salt) : 0xee;
        if (b[i] != want) {
            fprintf(stderr, "rank %d: byte %zu is %#x, want %#x\n", me, i, b[i], want);
            return 0;
        }
    }
    return 1;
}

enum { LAY_LAY, CONTIG_LAY, LAY_CONTIG, SYNC_LAY, UNEXPECTED, TRUNCATED, MPROBE, NCASES };
static const char *case_name[] = {"layout->layout", "contig->layout", "layout->contig",
                                  "ssend layout->layout", "unexpected layout->layout",
                                  "truncated layout", "mprobe+imrecv layout"};

/* Rank 0 sends `bytes` to rank 1 in case c; rank 1 checks. */
static void one(int c, size_t bytes)
{
    int salt = (int)(bytes % 97) + c;
    int tag = 100 + c;
    int lay_send = c != CONTIG_LAY, lay_recv = c != LAY_CONTIG;
    size_t cap = c == TRUNCATED ? bytes / 2 : bytes;
    unsigned char *b = malloc((lay_send || lay_recv ? span(bytes) : bytes) + 1);
    strided_t s = {b, 0, 0, 0};
    rmp_layout_t lay = {.pack = strided_pack, .unpack = strided_unpack, .ctx = &s};
    rmp_request_t r;
    rmp_status_t st;
    if (me == 0) {
        if (lay_send)
            fill_strided(b, bytes, salt);
        else
            for (size_t i = 0; i < bytes; i++)
                b[i] = val(i, salt);
        if (c != UNEXPECTED && c != MPROBE)
            T_RC(rmp_barrier(W)); /* the receive is posted */
        if (!lay_send)
            T_RC(rmp_isend(b, bytes, 1, tag, W, &r));
        else if (c == SYNC_LAY)
            T_RC(rmp_issend_layout(&lay, bytes, 1, tag, W, &r));
        else
            T_RC(rmp_isend_layout(&lay, bytes, 1, tag, W, &r));
        T_RC(rmp_wait(&r, NULL));
        if (lay_send) {
            /* A rendezvous packs only what a truncating receiver takes. */
            T_CHECK(!s.out_of_order && (s.next == bytes || (c == TRUNCATED && s.next == cap)),
                    "%s %zu B: pack order (%d jumps, end %zu)", case_name[c], bytes,
                    s.out_of_order, s.next);
            T_CHECK(s.max_len <= PIECE_MAX, "%s %zu B: a %zu-byte pack", case_name[c], bytes,
                    s.max_len);
        }
        if (c == UNEXPECTED || c == MPROBE)
            T_RC(rmp_barrier(W));
    } else {
        if (lay_recv)
            memset(b, 0xee, span(bytes));
        else
            memset(b, 0xee, bytes);
        int rc;
        if (c == UNEXPECTED || c == MPROBE) {
            /* The message (or its announcement) is here before the receive. */
            if (c == MPROBE) {
                rmp_message_t m;
                T_RC(rmp_mprobe(0, tag, W, &m, &st));
                T_CHECK(st.bytes == bytes, "%s: probe says %zu bytes, want %zu", case_name[c],
                        st.bytes, bytes);
                T_RC(rmp_imrecv_layout(&lay, cap, &m, &r));
            } else {
                int flag = 0;
                while (!flag)
                    T_RC(rmp_iprobe(0, tag, W, &flag, &st));
                T_RC(rmp_irecv_layout(&lay, cap, 0, tag, W, &r));
            }
        } else if (lay_recv) {
            T_RC(rmp_irecv_layout(&lay, cap, 0, tag, W, &r));
        } else {
            T_RC(rmp_irecv(b, cap, 0, tag, W, &r));
        }
        if (c != UNEXPECTED && c != MPROBE)
            T_RC(rmp_barrier(W));
        rc = rmp_wait(&r, &st);
        size_t got = cap < bytes ? cap : bytes;
        T_CHECK(rc == (cap < bytes ? RMP_ERR_TRUNCATE : RMP_SUCCESS), "%s %zu B: wait -> %s",
                case_name[c], bytes, rmp_strerror(rc));
        T_CHECK(st.bytes == got && st.source == 0 && st.tag == tag,
                "%s %zu B: status %zu bytes from %d tag %d", case_name[c], bytes, st.bytes,
                st.source, st.tag);
        T_CHECK(lay_recv ? check_strided(b, bytes, got, salt) : check_contig(b, cap, got, salt),
                "%s %zu B: data", case_name[c], bytes);
        if (lay_recv) {
            T_CHECK(!s.out_of_order && s.next == got, "%s %zu B: unpack order (%d jumps, end %zu)",
                    case_name[c], bytes, s.out_of_order, s.next);
            /* An unexpected fragmented message was buffered whole already: one unpack. */
            if (c != UNEXPECTED && c != MPROBE)
                T_CHECK(s.max_len <= PIECE_MAX, "%s %zu B: a %zu-byte unpack", case_name[c],
                        bytes, s.max_len);
        }
        if (c == UNEXPECTED || c == MPROBE)
            T_RC(rmp_barrier(W));
    }
    free(b);
}

/* 32 MiB into a layout, from a layout (fragments) and from a contiguous buffer
 * (rendezvous, pulled piece by piece): neither side's peak memory grows by more
 * than a few pieces beyond the buffers it already holds (a whole-message copy
 * would add 32 MiB). */
static void test_memory(int contig_sender)
{
    size_t bytes = (size_t)32 << 20;
    size_t n = me == 0 && contig_sender ? bytes : span(bytes);
    unsigned char *b = malloc(n);
    memset(b, 0xee, n); /* resident before the baseline */
    strided_t s = {b, 0, 0, 0};
    rmp_layout_t lay = {.pack = strided_pack, .unpack = strided_unpack, .ctx = &s};
    rmp_request_t r;
    long before = hwm_kib();
    if (me == 0) {
        if (contig_sender)
            for (size_t i = 0; i < bytes; i++)
                b[i] = val(i, 3);
        else
            fill_strided(b, bytes, 3);
        T_RC(rmp_barrier(W));
        if (contig_sender)
            T_RC(rmp_isend(b, bytes, 1, 9, W, &r));
        else
            T_RC(rmp_isend_layout(&lay, bytes, 1, 9, W, &r));
        T_RC(rmp_wait(&r, NULL));
    } else {
        T_RC(rmp_irecv_layout(&lay, bytes, 0, 9, W, &r));
        T_RC(rmp_barrier(W));
        T_RC(rmp_wait(&r, NULL));
        T_CHECK(check_strided(b, bytes, bytes, 3), "32 MiB layout: data");
    }
    long grew = hwm_kib() - before;
    T_CHECK(before > 0 && grew < 8 * 1024,
            "32 MiB message from a %s into a layout: peak memory grew %ld KiB",
            contig_sender ? "contiguous buffer" : "layout", grew);
    T_RC(rmp_barrier(W));
    free(b);
}

/* Layouts that describe their memory (segments): blocks of 64 KiB every 128 KiB, 4 MiB,
 * from one such layout into another. Where the transport copies straight ("direct")
 * both ranks count the bytes in rmp_stats_t.direct_bytes, else neither does; a segments
 * callback that lies (covers more than asked, or claims more segments than there is
 * room for) is not believed: the data is packed and arrives all the same. */
#define BLK ((size_t)64 << 10)
typedef struct {
    unsigned char *base;
    int lie; /* 1: covers len + 1 bytes, 2: says max + 1 segments */
} blocks_t;

static unsigned char *blocks_at(const blocks_t *b, size_t off)
{
    return b->base + off / BLK * 2 * BLK + off % BLK;
}

static void blocks_move(blocks_t *b, size_t off, unsigned char *pk, size_t len, int unpack)
{
    while (len > 0) {
        size_t n = BLK - off % BLK < len ? BLK - off % BLK : len;
        if (unpack)
            memcpy(blocks_at(b, off), pk, n);
        else
            memcpy(pk, blocks_at(b, off), n);
        off += n, pk += n, len -= n;
    }
}

static void blocks_pack(void *ctx, size_t off, void *dst, size_t len)
{
    blocks_move(ctx, off, dst, len, 0);
}

static void blocks_unpack(void *ctx, size_t off, const void *src, size_t len)
{
    blocks_move(ctx, off, (unsigned char *)(uintptr_t)src, len, 1);
}

static size_t blocks_segments(void *ctx, size_t off, size_t len, struct iovec *iov, size_t max,
                              size_t *n)
{
    blocks_t *b = ctx;
    size_t k = 0, got = 0;
    for (; got < len && k < max; k++) {
        size_t o = off + got, l = BLK - o % BLK < len - got ? BLK - o % BLK : len - got;
        iov[k].iov_base = blocks_at(b, o);
        iov[k].iov_len = l;
        got += l;
    }
    *n = b->lie == 2 ? max + 1 : k;
    return b->lie == 1 ? len + 1 : got;
}

static void test_segments(int direct)
{
    size_t bytes = (size_t)4 << 20, sp = 2 * bytes;
    for (int lie = 0; lie < 3; lie++) {
        unsigned char *m = malloc(sp);
        blocks_t b = {m, lie};
        rmp_layout_t lay = {.pack = blocks_pack,
                            .unpack = blocks_unpack,
                            .ctx = &b,
                            .segments = blocks_segments};
        rmp_stats_t s0, s1;
        T_RC(rmp_stats_get(&s0));
        for (size_t i = 0; i < sp; i++)
            m[i] = me == 0 ? (unsigned char)(i * 29u + (unsigned)lie) : 0xee;
        rmp_request_t r;
        if (me == 0) {
            T_RC(rmp_isend_layout(&lay, bytes, 1, 30 + lie, W, &r));
        } else {
            T_RC(rmp_irecv_layout(&lay, bytes, 0, 30 + lie, W, &r));
        }
        T_RC(rmp_wait(&r, NULL));
        if (me == 1)
            for (size_t i = 0; i < sp; i++) {
                unsigned char want = i / BLK % 2 ? 0xee : (unsigned char)(i * 29u + (unsigned)lie);
                if (m[i] != want) {
                    T_CHECK(0, "segments (lie %d): byte %zu is %#x, want %#x", lie, i, m[i],
                            want);
                    break;
                }
            }
        T_RC(rmp_stats_get(&s1));
        uint64_t moved = s1.direct_bytes - s0.direct_bytes;
        if (direct && !lie)
            T_CHECK(moved >= bytes, "segments: %llu of %zu bytes moved straight",
                    (unsigned long long)moved, bytes);
        else
            T_CHECK(moved == 0, "segments (lie %d): %llu bytes moved straight, expected none",
                    lie, (unsigned long long)moved);
        T_RC(rmp_barrier(W));
        free(m);
    }
}

static void test_bad_args(void)
{
    rmp_request_t r;
    char x[8];
    rmp_layout_t no_unpack = {.pack = strided_pack};
    T_CHECK(rmp_isend_layout(NULL, 8, 1 - me, 1, W, &r) == RMP_ERR_ARG, "NULL send layout");
    T_CHECK(rmp_irecv_layout(NULL, 8, 1 - me, 1, W, &r) == RMP_ERR_ARG, "NULL recv layout");
    T_CHECK(rmp_irecv_layout(&no_unpack, 8, 1 - me, 1, W, &r) == RMP_ERR_ARG,
            "receive layout without unpack");
    rmp_layout_t no_pack = {.unpack = strided_unpack, .ctx = x};
    T_CHECK(rmp_isend_layout(&no_pack, 8, 1 - me, 1, W, &r) == RMP_ERR_ARG,
            "send layout without pack");
    T_CHECK(rmp_isend_layout(&no_unpack, 8, 5, 1, W, &r) == RMP_ERR_ARG, "dest out of range");
    T_CHECK(rmp_isend_layout(&no_unpack, 8, 1 - me, 1, W, NULL) == RMP_ERR_ARG, "NULL request");
    rmp_message_t m = RMP_MESSAGE_NULL;
    T_CHECK(rmp_imrecv_layout(&no_unpack, 8, &m, &r) == RMP_ERR_ARG, "imrecv without unpack");
}

int main(int argc, char **argv)
{
    int rc = rmp_init(&argc, &argv);
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "rmp_init: %s\n", rmp_strerror(rc));
        return 1;
    }
    W = rmp_comm_world();
    me = rmp_comm_rank(W);
    if (rmp_comm_size(W) != 2) {
        fprintf(stderr, "layout_test: 2 ranks\n");
        rmp_finalize();
        return 1;
    }
    static const size_t sizes[] = {0, 5, 4000, 70001, ((size_t)1 << 20) + 12,
                                   ((size_t)6 << 20) + 8};
    for (int c = 0; c < NCASES; c++)
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
            one(c, sizes[k]);
    test_memory(0);
    test_memory(1);
    test_segments(argc > 1 && strcmp(argv[1], "direct") == 0);
    test_bad_args();
    return t_finish();
}
