/* SPDX-License-Identifier: BSD-3-Clause */
/* Output forwarding: each rank's stdout and stderr arrive on pipes and are
 * written out in whole lines, each with one write(2), so that lines of
 * different ranks never interleave mid-line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rrun.h"

#define IO_BUF 65536

typedef struct io_stream {
    char *buf;
    size_t len;
} io_stream_t;

static io_stream_t *io_streams; /* [rank * 2 + stream - 1] */
static bool io_tag;
static int io_np;
static char *io_out; /* staging for prefixed writes */
static size_t io_out_cap;

void rrun_io_init(int np, bool tag)
{
    io_np = np;
    io_tag = tag;
    io_streams = calloc((size_t)np * 2, sizeof(*io_streams));
}

static void io_write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Emit complete lines [p, p+n) (n ends with '\n' unless at EOF). */
static void io_emit(int rank, int stream, const char *p, size_t n)
{
    int fd = stream == 1 ? STDOUT_FILENO : STDERR_FILENO;
    if (!io_tag) {
        io_write_all(fd, p, n);
        return;
    }
    char prefix[32];
    int pl = snprintf(prefix, sizeof(prefix), "[%d] ", rank);
    /* Prefix every line; build one buffer so each batch is one write. */
    size_t lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += p[i] == '\n';
    size_t need = n + (lines + 1) * (size_t)pl + 1;
    if (need > io_out_cap) {
        char *b = realloc(io_out, need);
        if (!b) {
            io_write_all(fd, p, n);
            return;
        }
        io_out = b;
        io_out_cap = need;
    }
    size_t o = 0;
    bool at_start = true;
    for (size_t i = 0; i < n; i++) {
        if (at_start) {
            memcpy(io_out + o, prefix, (size_t)pl);
            o += (size_t)pl;
        }
        io_out[o++] = p[i];
        at_start = p[i] == '\n';
    }
    io_write_all(fd, io_out, o);
}

int rrun_io_read(int rank, int stream, int fd)
{
    io_stream_t *s = &io_streams[rank * 2 + stream - 1];
    if (!s->buf && !(s->buf = malloc(IO_BUF)))
        return 0;
    ssize_t n = read(fd, s->buf + s->len, IO_BUF - s->len);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN ? -1 : 0;
    if (n == 0)
        return 0;
    s->len += (size_t)n;
    /* Everything up to the last newline goes out now. */
    size_t last = s->len;
    while (last > 0 && s->buf[last - 1] != '\n')
        last--;
    if (last == 0 && s->len == IO_BUF)
        last = s->len; /* a line longer than the buffer: pass it through in pieces */
    if (last > 0) {
        io_emit(rank, stream, s->buf, last);
        memmove(s->buf, s->buf + last, s->len - last);
        s->len -= last;
    }
    return 1;
}

void rrun_io_flush(int rank, int stream)
{
    io_stream_t *s = &io_streams[rank * 2 + stream - 1];
    if (s->len > 0) {
        if (s->len < IO_BUF)
            s->buf[s->len++] = '\n';
        io_emit(rank, stream, s->buf, s->len);
        s->len = 0;
    }
}

void rrun_io_fini(void)
{
    for (int i = 0; io_streams && i < io_np * 2; i++)
        free(io_streams[i].buf);
    free(io_streams);
    free(io_out);
    io_streams = NULL;
    io_out = NULL;
}
