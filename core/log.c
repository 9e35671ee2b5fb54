/* SPDX-License-Identifier: BSD-3-Clause */
/* Logging. Lines are formatted into one buffer and written with one write(2)
 * so that lines of several ranks sharing a pipe never interleave. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "log.h"
#include "rmpi.h"

int rmpi_log_level = RMPI_LOG_WARN;

static const char *const log_names[] = {"error", "warn", "info", "debug", "trace"};

void rmpi_log_at(int level, const char *fmt, ...)
{
    rmpi_engine_t *e = &rmpi_eng;
    if (level > rmpi_log_level)
        return;
    char line[1024];
    int n;
    if (e->thr.state == RMPI_STATE_NONE && e->job.size == 0)
        n = snprintf(line, sizeof(line), "[rmp] %s: ", log_names[level]);
    else
        n = snprintf(line, sizeof(line), "[rmp %d] %s: ", e->job.rank, log_names[level]);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof(line) - 2)
        len = sizeof(line) - 2;
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}
