/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory that cannot be registered: sending from or receiving into PROT_NONE
 * memory returns an error on both sides, and the connection keeps working.
 * Read-only memory can be sent from (registered for remote read only) but not
 * received into. */
#include <stdlib.h>
#include <sys/mman.h>

#include "vt.h"

#define SZ (1u << 20)

static void *map(int prot)
{
    void *p = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    vt_fill(p, SZ, 9);
    mprotect(p, SZ, prot);
    return p;
}

int main(int argc, char **argv)
{
    if (rmp_init(&argc, &argv) != RMP_SUCCESS)
        return 1;
    vt_require_verbs();
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w);
    if (me < 2) {
        unsigned char *good = malloc(SZ), *none = map(PROT_NONE), *ro = map(PROT_READ);
        int rc;
        rmp_status_t st;
        /* 1: send from PROT_NONE */
        if (me == 0) {
            rc = rmp_send(none, SZ, 1, 1, w);
            T_CHECK(rc == RMP_ERR_ACCESS, "send from PROT_NONE: %s", rmp_strerror(rc));
        } else {
            rc = rmp_recv(good, SZ, 0, 1, w, &st);
            T_CHECK(rc != RMP_SUCCESS, "receiver of a PROT_NONE send: %s", rmp_strerror(rc));
        }
        /* 2: receive into PROT_NONE */
        if (me == 0) {
            vt_fill(good, SZ, 2);
            rc = rmp_send(good, SZ, 1, 2, w);
            T_CHECK(rc != RMP_SUCCESS, "send to a PROT_NONE receive: %s", rmp_strerror(rc));
        } else {
            rc = rmp_recv(none, SZ, 0, 2, w, &st);
            T_CHECK(rc == RMP_ERR_ACCESS, "receive into PROT_NONE: %s", rmp_strerror(rc));
        }
        /* 3: send from read-only memory works */
        if (me == 0) {
            T_RC(rmp_send(ro, SZ, 1, 3, w));
        } else {
            T_RC(rmp_recv(good, SZ, 0, 3, w, &st));
            T_CHECK(vt_check(good, SZ, 9) < 0, "data sent from read-only memory");
        }
        /* 4: receive into read-only memory fails */
        if (me == 0) {
            rc = rmp_send(good, SZ, 1, 4, w);
            T_CHECK(rc != RMP_SUCCESS, "send to a read-only receive: %s", rmp_strerror(rc));
        } else {
            rc = rmp_recv(ro, SZ, 0, 4, w, &st);
            T_CHECK(rc == RMP_ERR_ACCESS, "receive into read-only memory: %s",
                    rmp_strerror(rc));
        }
        /* 5: the connection still works, eager and rendezvous */
        for (int k = 0; k < 2; k++) {
            size_t n = k ? SZ : 100;
            if (me == 0) {
                vt_fill(good, n, 50 + k);
                T_RC(rmp_send(good, n, 1, 5, w));
            } else {
                memset(good, 0, n);
                T_RC(rmp_recv(good, n, 0, 5, w, &st));
                T_CHECK(vt_check(good, n, 50 + k) < 0, "data after the errors (%zu)", n);
            }
        }
        free(good);
        munmap(none, SZ);
        munmap(ro, SZ);
    }
    return t_finish();
}
