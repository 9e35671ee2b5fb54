/* SPDX-License-Identifier: BSD-3-Clause */
/* A rank that dies of a fatal signal says where: its backtrace, symbolised by
 * backtrace_symbols_fd (async-signal-safe: it writes, it does not allocate), then the
 * signal's default action, so that the launcher still sees the death by that signal.
 * RMP_BACKTRACE=0 turns it off; an application's own handler is left alone. */
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "config.h"
#include "log.h"
#include "rmpi.h"

#define BT_MAX_FRAMES 64

static const int bt_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

/* Decimal into b (no stdio in a handler); returns the length. */
static size_t bt_itoa(long v, char *b)
{
    char t[24];
    size_t n = 0, o = 0;
    if (v < 0) {
        b[o++] = '-';
        v = -v;
    }
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && n < sizeof(t));
    while (n)
        b[o++] = t[--n];
    return o;
}

static void bt_put(char *b, size_t *o, size_t cap, const char *s)
{
    size_t n = strlen(s);
    if (*o + n > cap)
        n = cap - *o;
    memcpy(b + *o, s, n);
    *o += n;
}

static void bt_on_signal(int sig)
{
    rmpi_engine_t *e = &rmpi_eng;
    char b[256];
    size_t o = 0;
    bt_put(b, &o, sizeof(b), "[rmp ");
    o += bt_itoa(e->job.rank, b + o);
    bt_put(b, &o, sizeof(b), "] fatal: signal ");
    o += bt_itoa(sig, b + o);
    bt_put(b, &o, sizeof(b), " (");
    bt_put(b, &o, sizeof(b), sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
    bt_put(b, &o, sizeof(b), ") in pid ");
    o += bt_itoa((long)getpid(), b + o);
    bt_put(b, &o, sizeof(b), "; backtrace (RMP_BACKTRACE=0 turns this off):\n");
    ssize_t w = write(STDERR_FILENO, b, o);
    void *frames[BT_MAX_FRAMES];
    int n = backtrace(frames, BT_MAX_FRAMES);
    /* frame 0 is this handler */
    backtrace_symbols_fd(frames + 1, n > 1 ? n - 1 : 0, STDERR_FILENO);
    (void)w;
    /* SA_RESETHAND restored the default action: the signal kills us as it would have. */
    raise(sig);
}

void rmpi_backtrace_install(void)
{
    rmpi_engine_t *e = &rmpi_eng;
    if (!e->cfg.backtrace)
        return;
    /* backtrace() loads libgcc on its first call, which allocates: not in a handler. */
    void *warm[2];
    (void)backtrace(warm, 2);
    for (size_t i = 0; i < sizeof(bt_signals) / sizeof(bt_signals[0]); i++) {
        struct sigaction old, sa;
        if (sigaction(bt_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
            (old.sa_flags & SA_SIGINFO))
            continue; /* the application's, or a sanitizer's */
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = bt_on_signal;
        sa.sa_flags = (int)(SA_RESETHAND | SA_NODEFER);
        sigemptyset(&sa.sa_mask);
        sigaction(bt_signals[i], &sa, NULL);
    }
}
