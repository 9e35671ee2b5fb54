/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault injection (see fault.h). Read on every call: the points are on the
 * start-up and tear-down paths only, never on the message path. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "fault.h"
#include "rmpi.h"

/* Does the variable name this point and this world rank (POINT:RANK)? */
static int fault_armed(rmpi_engine_t *e, const char *var, const char *where)
{
    const char *v = getenv(var);
    if (!v)
        return 0;
    size_t n = strlen(where);
    if (strncmp(v, where, n) != 0 || v[n] != ':')
        return 0;
    char *end;
    long r = strtol(v + n + 1, &end, 10);
    return end != v + n + 1 && *end == '\0' && r == e->job.rank;
}

void rmpi_fault_point(rmpi_engine_t *e, const char *where)
{
    if (fault_armed(e, "RMPI_FAULT", where))
        raise(SIGKILL);
}

void rmpi_fault_delay(rmpi_engine_t *e, const char *where)
{
    if (fault_armed(e, "RMPI_FAULT_DELAY", where)) {
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
    }
}
