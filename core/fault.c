/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault injection (see fault.h). Read on every call: the points are on the
 * start-up and tear-down paths only, never on the message path. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "rmpi.h"

void rmpi_fault_point(const char *where)
{
    const char *v = getenv("RMPI_FAULT");
    if (!v)
        return;
    size_t n = strlen(where);
    if (strncmp(v, where, n) != 0 || v[n] != ':')
        return;
    char *end;
    long r = strtol(v + n + 1, &end, 10);
    if (end != v + n + 1 && *end == '\0' && r == rmpi_g.rank)
        raise(SIGKILL);
}
