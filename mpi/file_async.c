/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO asynchronous independent access: the I/O thread behind iread/iwrite.
 *
 * One thread per process, started by the first nonblocking access and stopped when
 * the last file that used it closes (or at MPI_Finalize, through a delete callback on
 * MPI_COMM_SELF). It takes operations from a FIFO queue and does only POSIX I/O
 * (mpii_file_view_io on a snapshot of the view): no rmp or MPI call, so it is safe in
 * an MPI_THREAD_SINGLE program. Each operation is the context of a poll request
 * (MPII_REQ_POLL); the thread publishes completion with a release store, the poll
 * (on the application's thread, inside MPI_Test/Wait/...) reads it with an acquire
 * load, then unpacks a non-contiguous read and fills the status. Memory layouts are
 * packed and unpacked on the application's thread, so the thread never reads a
 * datatype.
 *
 * The thread uses its own descriptor (a dup of the file's): MPI_File_close closes
 * the file's descriptor before mpii_file_async_close drains the file's operations. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpii.h"
#include "mpii_file.h"
#include "mpii_p2p.h"

/* A file's asynchronous state (f->as). */
struct mpii_fasync {
    int fd;      /* the thread's descriptor */
    int pending; /* queued or running operations (under fas_mu) */
};

typedef struct fas_op {
    struct fas_op *next;
    mpii_file_t view; /* the file at submission: its view, fd replaced by the dup */
    struct mpii_fasync *as;
    MPI_Offset pos;
    char *pk; /* the bytes moved: the user's buffer or tmp */
    size_t n;
    int write;
    char *tmp;     /* a non-contiguous memory layout, packed */
    void *buf;     /* for the unpack of a read */
    MPI_Count count;
    mpii_dtype_t *d;
    int rc;        /* set by the thread before done */
    size_t got;
    int done;      /* atomic: the thread finished */
} fas_op_t;

static pthread_mutex_t fas_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fas_wake = PTHREAD_COND_INITIALIZER; /* work or stop, for the thread */
static pthread_cond_t fas_idle = PTHREAD_COND_INITIALIZER; /* an operation finished */
static fas_op_t *fas_head, *fas_tail;
static pthread_t fas_tid;
static int fas_running, fas_stop;
static int fas_files; /* files with an f->as */

static void *fas_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&fas_mu);
    for (;;) {
        while (!fas_head && !fas_stop)
            pthread_cond_wait(&fas_wake, &fas_mu);
        if (!fas_head)
            break; /* stop asked and nothing left */
        fas_op_t *op = fas_head;
        fas_head = op->next;
        if (!fas_head)
            fas_tail = NULL;
        pthread_mutex_unlock(&fas_mu);
        size_t got = 0;
        int rc = mpii_file_view_io(&op->view, op->pos, op->pk, op->n, op->write, &got);
        struct mpii_fasync *as = op->as;
        op->rc = rc;
        op->got = got;
        pthread_mutex_lock(&fas_mu);
        /* the last touch of op: after this store the application may free it */
        __atomic_store_n(&op->done, 1, __ATOMIC_RELEASE);
        as->pending--;
        pthread_cond_broadcast(&fas_idle);
    }
    pthread_mutex_unlock(&fas_mu);
    return NULL;
}

static int fas_thread_start(void);

/* Stop the thread once its queue is empty (callers hold no lock). An operation queued
 * after it exited starts a new one. */
static void fas_thread_stop(void)
{
    pthread_mutex_lock(&fas_mu);
    if (!fas_running || fas_stop) { /* not running, or another caller stops it */
        pthread_mutex_unlock(&fas_mu);
        return;
    }
    fas_stop = 1;
    pthread_t tid = fas_tid;
    pthread_cond_broadcast(&fas_wake);
    pthread_mutex_unlock(&fas_mu);
    pthread_join(tid, NULL);
    pthread_mutex_lock(&fas_mu);
    fas_running = fas_stop = 0;
    if (fas_head)
        fas_thread_start();
    pthread_mutex_unlock(&fas_mu);
}

static int fas_fini_cb(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)val;
    (void)extra;
    fas_thread_stop();
    return MPI_SUCCESS;
}

/* On the application's thread, with fas_mu held. */
static int fas_thread_start(void)
{
    if (fas_running)
        return MPI_SUCCESS;
    if (pthread_create(&fas_tid, NULL, fas_main, NULL) != 0)
        return MPI_ERR_OTHER;
    fas_running = 1;
    return MPI_SUCCESS;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: the thread stops then. Tried
 * once (a sessions-only process has no MPI_COMM_SELF: its thread stops at close). */
static void fas_hook_once(void)
{
    int kv = MPI_KEYVAL_INVALID;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, fas_fini_cb, &kv, NULL) == MPI_SUCCESS)
        PMPI_Comm_set_attr(MPI_COMM_SELF, kv, NULL);
}

static void fas_hook_finalize(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, fas_hook_once);
}

static int fas_poll(mpii_req_t *r)
{
    fas_op_t *op = r->ctx;
    if (!__atomic_load_n(&op->done, __ATOMIC_ACQUIRE))
        return 0;
    size_t got = op->got;
    if (op->tmp && !op->write && got)
        mpii_dtype_unpack(op->d, op->buf, op->count, 0, op->tmp, got);
    r->err = op->rc;
    mpii_status_set(&r->status, MPI_ANY_SOURCE, MPI_ANY_TAG, op->rc, (MPI_Count)got);
    return 1;
}

static void fas_release(mpii_req_t *r)
{
    fas_op_t *op = r->ctx;
    if (!op)
        return;
    free(op->tmp);
    free(op);
    r->ctx = NULL;
}

int mpii_file_async_start(mpii_file_t *f, MPI_Offset pos, void *buf, MPI_Count count,
                          mpii_dtype_t *d, int write, MPI_Request *req)
{
    size_t n = (size_t)count * d->size;
    fas_op_t *op = calloc(1, sizeof(*op));
    if (!op)
        return MPI_ERR_NO_MEM;
    op->pos = pos;
    op->n = n;
    op->write = write;
    op->buf = buf;
    op->count = count;
    op->d = d;
    if (d->contig) {
        op->pk = (char *)buf + d->true_lb;
    } else if (!(op->tmp = malloc(n))) {
        free(op);
        return MPI_ERR_NO_MEM;
    } else {
        op->pk = op->tmp;
        if (write)
            mpii_dtype_pack(d, buf, count, 0, op->tmp, n);
    }
    mpii_req_t *r = mpii_req_new_poll(&mpii_comm_self, fas_poll, fas_release, op);
    if (!r) {
        free(op->tmp);
        free(op);
        return MPI_ERR_NO_MEM;
    }
    mpii_dtype_retain(d);
    r->dt = d; /* released with the request; the unpack of a read needs it */
    int rc = MPI_SUCCESS;
    fas_hook_finalize();
    pthread_mutex_lock(&fas_mu);
    if (!f->as) {
        struct mpii_fasync *as = calloc(1, sizeof(*as));
        if (as && (as->fd = dup(f->fd)) < 0) {
            rc = mpii_file_errno_class(errno);
            free(as);
        } else if (!as) {
            rc = MPI_ERR_NO_MEM;
        } else {
            f->as = as;
            fas_files++;
        }
    }
    if (rc == MPI_SUCCESS)
        rc = fas_thread_start();
    if (rc == MPI_SUCCESS) {
        op->view = *f;
        op->view.fd = f->as->fd;
        op->as = f->as;
        f->as->pending++;
        if (fas_tail)
            fas_tail->next = op;
        else
            fas_head = op;
        fas_tail = op;
        pthread_cond_signal(&fas_wake);
    }
    pthread_mutex_unlock(&fas_mu);
    if (rc != MPI_SUCCESS) {
        mpii_req_free(r); /* frees op through fas_release */
        return rc;
    }
    *req = (MPI_Request)r;
    return MPI_SUCCESS;
}

void mpii_file_async_drain(mpii_file_t *f)
{
    pthread_mutex_lock(&fas_mu);
    while (f->as && f->as->pending > 0)
        pthread_cond_wait(&fas_idle, &fas_mu);
    pthread_mutex_unlock(&fas_mu);
}

void mpii_file_async_close(mpii_file_t *f)
{
    if (!f->as)
        return;
    mpii_file_async_drain(f);
    pthread_mutex_lock(&fas_mu);
    struct mpii_fasync *as = f->as;
    f->as = NULL;
    int last = --fas_files == 0;
    pthread_mutex_unlock(&fas_mu);
    close(as->fd);
    free(as);
    if (last)
        fas_thread_stop();
}
