/* SPDX-License-Identifier: BSD-3-Clause */
/* Registration-cache coherence across ranks: send from a buffer, give the
 * memory back (munmap, free, madvise DONTNEED), get new memory at the same
 * address, fill it with other data, send again: the receiver must see the new
 * data. The same on the receiving side (the buffer the peer writes into). A
 * stale registration would move the old physical pages. */
#include <stdlib.h>
#include <sys/mman.h>

#include "vt.h"

#define SZ (4u << 20)

static void *map_at(void *hint)
{
    void *p = mmap(hint, SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* One transfer 0 -> 1 with data of salt; the receiver checks. */
static void xfer(int me, unsigned char *buf, int salt, const char *what)
{
    rmp_comm_t w = rmp_comm_world();
    if (me == 0) {
        vt_fill(buf, SZ, salt);
        T_RC(rmp_send(buf, SZ, 1, salt, w));
    } else {
        memset(buf, 0, SZ);
        rmp_status_t st;
        T_RC(rmp_recv(buf, SZ, 0, salt, w, &st));
        long bad = vt_check(buf, SZ, salt);
        T_CHECK(bad < 0, "%s: receiver sees stale data at byte %ld", what, bad);
    }
}

int main(int argc, char **argv)
{
    if (rmp_init(&argc, &argv) != RMP_SUCCESS)
        return 1;
    vt_require_verbs();
    int me = rmp_comm_rank(rmp_comm_world());
    if (me < 2) {
        unsigned char *rbuf = map_at(NULL); /* the side not under test */
        /* A: munmap, then mmap with a hint at the same address (sender side). */
        unsigned char *p = me == 0 ? map_at(NULL) : rbuf;
        xfer(me, p, 1, "munmap+mmap (sender)");
        if (me == 0) {
            munmap(p, SZ);
            unsigned char *q = map_at(p);
            T_CHECK(q == p, "mmap hint not honoured (%p != %p)", (void *)q, (void *)p);
            p = q;
        }
        xfer(me, p, 2, "munmap+mmap (sender)");
        /* B: madvise(DONTNEED) gives fresh zero pages at the same address. */
        if (me == 0)
            madvise(p, SZ, MADV_DONTNEED);
        xfer(me, p, 3, "madvise DONTNEED (sender)");
        if (me == 0)
            munmap(p, SZ);
        /* C: free and malloc of a large block (glibc mmaps it). */
        for (int i = 0; i < 4; i++) {
            unsigned char *m = me == 0 ? malloc(SZ) : rbuf;
            xfer(me, m, 10 + i, "free+malloc (sender)");
            if (me == 0)
                free(m);
        }
        /* D: the receiving side: munmap + mmap at the same address, DONTNEED. */
        unsigned char *sbuf = rbuf;
        unsigned char *r = me == 1 ? map_at(NULL) : sbuf;
        xfer(me, r, 20, "receiver first");
        if (me == 1) {
            munmap(r, SZ);
            unsigned char *q = map_at(r);
            T_CHECK(q == r, "mmap hint not honoured (%p != %p)", (void *)q, (void *)r);
            r = q;
        }
        xfer(me, r, 21, "munmap+mmap (receiver)");
        if (me == 1)
            madvise(r, SZ, MADV_DONTNEED);
        xfer(me, r, 22, "madvise DONTNEED (receiver)");
        if (me == 1)
            munmap(r, SZ);
        rcache_stats_t st = vt_rcache();
        printf("coherence rank %d: rcache %llu hits, %llu misses, %llu invalidations\n", me,
               (unsigned long long)st.hits, (unsigned long long)st.misses,
               (unsigned long long)st.invalidations);
        T_CHECK(st.invalidations > 0, "no invalidation seen");
        munmap(rbuf, SZ);
    }
    return t_finish();
}
