/* SPDX-License-Identifier: BSD-3-Clause */
/* Partitioned communication's private communicator, its hellos and their matching,
 * its tags, and communicator ids (mpii_part.h). */
#include <stdlib.h>

#include "mpii_p2p.h"
#include "mpii_part.h"

rmp_comm_t mpii_part_comm;

static mpii_part_hello_t pm_in; /* the wildcard receive's buffer */
static rmp_request_t pm_rr;

/* Hellos nobody waits for yet, and receives waiting for one: both in arrival order. */
typedef struct pm_stash {
    struct pm_stash *next;
    int src;
    mpii_part_hello_t hello;
} pm_stash_t;
static pm_stash_t *pm_stash;
static mpii_part_wait_t *pm_waits;
static int pm_next_tag = 1;

/* How many communicators of each member list this process made (ids). */
typedef struct pm_count {
    struct pm_count *next;
    uint64_t hash, n;
} pm_count_t;
static pm_count_t *pm_counts;

static pthread_mutex_t pm_lock = PTHREAD_MUTEX_INITIALIZER;
#define PM_LOCK()                                                                          \
    do {                                                                                   \
        if (mpii_mt)                                                                       \
            pthread_mutex_lock(&pm_lock);                                                  \
    } while (0)
#define PM_UNLOCK()                                                                        \
    do {                                                                                   \
        if (mpii_mt)                                                                       \
            pthread_mutex_unlock(&pm_lock);                                                \
    } while (0)

static void pm_post(void)
{
    if (rmp_irecv(&pm_in, sizeof(pm_in), RMP_ANY_SOURCE, 0, mpii_part_comm, &pm_rr) !=
        RMP_SUCCESS)
        pm_rr = RMP_REQUEST_NULL;
}

void mpii_part_init(void)
{
    if (rmp_comm_dup(mpii_comm_world.rc, &mpii_part_comm) != RMP_SUCCESS) {
        mpii_part_comm = RMP_COMM_NULL; /* partitioned calls will fail */
        return;
    }
    pm_post();
}

void mpii_part_fini(void)
{
    int cancelled = 0;
    if (pm_rr && rmp_cancel(&pm_rr, &cancelled) == RMP_SUCCESS && !cancelled)
        rmp_wait(&pm_rr, NULL);
    pm_rr = RMP_REQUEST_NULL;
    while (pm_stash) {
        pm_stash_t *s = pm_stash;
        pm_stash = s->next;
        free(s);
    }
    while (pm_counts) {
        pm_count_t *n = pm_counts;
        pm_counts = n->next;
        free(n);
    }
    pm_waits = NULL;
    if (mpii_part_comm)
        rmp_comm_free(&mpii_part_comm);
}

int mpii_part_tags(int n)
{
    PM_LOCK();
    if (pm_next_tag > RMP_TAG_UB - n)
        pm_next_tag = 1; /* after a billion tags: the first ones are long done */
    int base = pm_next_tag;
    pm_next_tag += n > 0 ? n : 1;
    PM_UNLOCK();
    return base;
}

static int pm_same(const mpii_part_wait_t *w, int src, const mpii_part_hello_t *h)
{
    return w->src == src && w->comm_id == h->comm_id && w->tag == h->tag;
}

void mpii_part_progress(void)
{
    PM_LOCK();
    for (;;) {
        int done = 0;
        rmp_status_t st;
        if (!pm_rr || rmp_test(&pm_rr, &done, &st) != RMP_SUCCESS || !done)
            break;
        mpii_part_wait_t **pw = &pm_waits;
        while (*pw && !pm_same(*pw, st.source, &pm_in))
            pw = &(*pw)->next;
        if (*pw) {
            mpii_part_wait_t *w = *pw;
            *pw = w->next;
            w->hello = pm_in;
            w->matched = 1;
        } else {
            pm_stash_t *s = malloc(sizeof(*s)), **ps = &pm_stash;
            if (s) { /* without memory the hello is lost: its receive never matches */
                s->next = NULL;
                s->src = st.source;
                s->hello = pm_in;
                while (*ps)
                    ps = &(*ps)->next;
                *ps = s;
            }
        }
        pm_post();
    }
    PM_UNLOCK();
}

void mpii_part_wait_add(mpii_part_wait_t *w)
{
    mpii_part_progress();
    PM_LOCK();
    pm_stash_t **ps = &pm_stash;
    while (*ps && !pm_same(w, (*ps)->src, &(*ps)->hello))
        ps = &(*ps)->next;
    w->next = NULL;
    if (*ps) {
        pm_stash_t *s = *ps;
        *ps = s->next;
        w->hello = s->hello;
        w->matched = 1;
        free(s);
    } else {
        mpii_part_wait_t **pw = &pm_waits;
        while (*pw)
            pw = &(*pw)->next;
        *pw = w;
    }
    PM_UNLOCK();
}

void mpii_part_wait_remove(mpii_part_wait_t *w)
{
    PM_LOCK();
    for (mpii_part_wait_t **pw = &pm_waits; *pw; pw = &(*pw)->next)
        if (*pw == w) {
            *pw = w->next;
            break;
        }
    PM_UNLOCK();
}

uint64_t mpii_part_id(const mpii_comm_t *c)
{
    if (c == &mpii_comm_world)
        return 1;
    if (c == &mpii_comm_self)
        return 2;
    return c->part_id;
}

void mpii_part_comm_new(mpii_comm_t *c)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a over the members' world ranks */
    for (int i = 0; i < c->size; i++) {
        uint32_t w = (uint32_t)rmp_comm_world_rank(c->rc, i);
        for (int b = 0; b < 4; b++) {
            h ^= (w >> (8 * b)) & 0xff;
            h *= 1099511628211ull;
        }
    }
    PM_LOCK();
    pm_count_t *n = pm_counts;
    while (n && n->hash != h)
        n = n->next;
    if (!n && (n = calloc(1, sizeof(*n)))) {
        n->hash = h;
        n->next = pm_counts;
        pm_counts = n;
    }
    uint64_t k = n ? n->n++ : 0;
    PM_UNLOCK();
    /* Above the fixed ids of world (1) and self (2). */
    c->part_id = (h ^ (k * 0x9e3779b97f4a7c15ull)) | (1ull << 63);
}
