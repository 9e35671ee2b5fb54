/* SPDX-License-Identifier: BSD-3-Clause */
/* Every rank says who and where it is. */
#include <rmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rc = rmp_init(&argc, &argv);
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "rmp_init: %s\n", rmp_strerror(rc));
        return 1;
    }
    rmp_comm_t world = rmp_comm_world();
    char host[256] = "?";
    gethostname(host, sizeof(host) - 1);
    const char *binding = getenv("RMP_RRUN_BINDING");
    printf("hello from rank %d of %d on %s (bound to %s)\n", rmp_comm_rank(world),
           rmp_comm_size(world), host, binding ? binding : "nothing");
    return rmp_finalize() == RMP_SUCCESS ? 0 : 1;
}
