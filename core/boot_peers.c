/* SPDX-License-Identifier: BSD-3-Clause */
/* PMIX_LOCAL_PEERS, as the launcher's PMIx server reports it: a pure parser,
 * fuzzed as it is (tests/fuzz/fuzz_boot.c). */
#include <stdlib.h>

#include "bootstrap.h"
#include "rmp.h"

int rmpi_boot_parse_peers(const char *s, int size, int me, int *out, int *n)
{
    if (!s || size < 1 || me < 0 || me >= size)
        return RMP_ERR_BOOTSTRAP;
    unsigned char *seen = calloc((size_t)size, 1);
    if (!seen)
        return RMP_ERR_NOMEM;
    int rc = RMP_ERR_BOOTSTRAP, k = 0;
    for (;;) {
        if (*s < '0' || *s > '9')
            goto out;
        long r = 0;
        for (; *s >= '0' && *s <= '9'; s++)
            if ((r = r * 10 + (*s - '0')) >= size)
                goto out; /* not a rank of this job */
        if (seen[r]++)
            goto out; /* a duplicate would shift every local index after it */
        out[k++] = (int)r;
        if (*s == '\0')
            break;
        if (*s++ != ',')
            goto out;
    }
    if (!seen[me])
        goto out;
    /* Ascending, so that every local rank computes the same local indices. */
    k = 0;
    for (int r = 0; r < size; r++)
        if (seen[r])
            out[k++] = r;
    *n = k;
    rc = RMP_SUCCESS;
out:
    free(seen);
    return rc;
}
