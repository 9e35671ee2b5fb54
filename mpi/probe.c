/* SPDX-License-Identifier: BSD-3-Clause */
/* Probe, Iprobe, and the matched probes (Mprobe, Improbe, Mrecv, Imrecv): a
 * matched message is taken off rmp's unexpected queue, so no other receive
 * can match it before Mrecv (rmp_improbe). */
#include <stdlib.h>

#include "mpii_base.h"
#include "mpii_dtype.h"
#include "mpii_inter.h"
#include "mpii_p2p.h"

mpii_pool_t mpii_msg_pool = MPII_POOL_INIT(mpii_msg_t);

static int probe_check(mpii_comm_t *c, MPI_Comm comm, int source, int tag, const char *fn)
{
    return mpii_p2p_check(c, comm, NULL, 0, mpii_dtype(MPI_BYTE), source, tag, 1, fn);
}

static void probe_status(const mpii_comm_t *c, MPI_Status *status, const rmp_status_t *st)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = mpii_inter_source(c, st->source);
    status->MPI_TAG = st->tag;
    mpii_status_set_bytes(status, (MPI_Count)st->bytes);
    status->MPI_internal[2] = 0;
}

static void probe_null(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    int err = status->MPI_ERROR;
    mpii_status_set(status, MPI_PROC_NULL, MPI_ANY_TAG, err, 0);
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    mpii_comm_t *c = mpii_comm(comm);
    int rc = probe_check(c, comm, source, tag, "MPI_Probe");
    if (rc != MPI_SUCCESS)
        return rc;
    if (source == MPI_PROC_NULL) {
        probe_null(status);
        return MPI_SUCCESS;
    }
    rmp_status_t st;
    if (c->inter)
        source = mpii_inter_peer(c, source);
    rc = rmp_probe(source, mpii_tag_to_rmp(tag), c->rc, &st);
    if (rc != RMP_SUCCESS)
        return mpii_p2p_err(c, rc, "MPI_Probe");
    probe_status(c, status, &st);
    return MPI_SUCCESS;
}
MPII_WEAK(Probe)

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    mpii_comm_t *c = mpii_comm(comm);
    int rc = probe_check(c, comm, source, tag, "MPI_Iprobe");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!flag)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Iprobe", "flag is NULL");
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        probe_null(status);
        return MPI_SUCCESS;
    }
    rmp_status_t st;
    if (c->inter)
        source = mpii_inter_peer(c, source);
    rc = rmp_iprobe(source, mpii_tag_to_rmp(tag), c->rc, flag, &st);
    if (rc != RMP_SUCCESS)
        return mpii_p2p_err(c, rc, "MPI_Iprobe");
    if (*flag)
        probe_status(c, status, &st);
    return MPI_SUCCESS;
}
MPII_WEAK(Iprobe)

static int mprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                  MPI_Status *status, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    int rc = probe_check(c, comm, source, tag, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!message)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "message is NULL");
    if (source == MPI_PROC_NULL) {
        if (flag)
            *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        probe_null(status);
        return MPI_SUCCESS;
    }
    mpii_msg_t *m = mpii_obj_new(&mpii_msg_pool, MPII_MAGIC_MSG);
    if (!m)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    rmp_status_t st;
    int f = 1;
    if (c->inter)
        source = mpii_inter_peer(c, source);
    rc = flag ? rmp_improbe(source, mpii_tag_to_rmp(tag), c->rc, &f, &m->m, &st)
              : rmp_mprobe(source, mpii_tag_to_rmp(tag), c->rc, &m->m, &st);
    if (rc != RMP_SUCCESS || !f) {
        mpii_obj_free(&mpii_msg_pool, m);
        if (flag)
            *flag = 0;
        return rc == RMP_SUCCESS ? MPI_SUCCESS : mpii_p2p_err(c, rc, fn);
    }
    m->comm = c;
    m->bytes = (MPI_Count)st.bytes;
    if (flag)
        *flag = 1;
    *message = (MPI_Message)m;
    probe_status(c, status, &st);
    return MPI_SUCCESS;
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    return mprobe(source, tag, comm, NULL, message, status, "MPI_Mprobe");
}
MPII_WEAK(Mprobe)

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    if (!flag)
        return mpii_err_comm(mpii_comm(comm), MPI_ERR_ARG, "MPI_Improbe", "flag is NULL");
    return mprobe(source, tag, comm, flag, message, status, "MPI_Improbe");
}
MPII_WEAK(Improbe)

/* Both Mrecv and Imrecv: a request receiving the message. */
static int imrecv(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *message,
                  mpii_req_t **out, const char *fn)
{
    if (!message)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "message is NULL");
    mpii_dtype_t *d = mpii_dtype(dt);
    if (*message == MPI_MESSAGE_NO_PROC) {
        int rc = mpii_p2p_check(&mpii_comm_self, MPI_COMM_SELF, buf, count, d, 0, 0, 1, fn);
        if (rc != MPI_SUCCESS)
            return rc;
        mpii_req_t *r = mpii_req_new(&mpii_comm_self, MPII_REQ_DONE);
        if (!r)
            return mpii_err_comm(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        r->done = 1;
        mpii_status_set(&r->status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
        *message = MPI_MESSAGE_NULL;
        *out = r;
        return MPI_SUCCESS;
    }
    mpii_msg_t *m = mpii_msg(*message);
    if (!m)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "invalid message handle %p",
                             (void *)*message);
    mpii_comm_t *c = m->comm;
    int rc = mpii_p2p_check(c, MPI_COMM_NULL, buf, count, d, 0, 0, 1, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    mpii_req_t *r = mpii_req_new(c, MPII_REQ_RMP);
    if (!r)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    r->recv = 1;
    size_t bytes = (size_t)count * d->size;
    if (d->contig) {
        rc = rmp_imrecv(mpii_buf_at(buf, d->true_lb), bytes, &m->m, &r->rr);
    } else {
        r->dt = d;
        mpii_dtype_retain(d);
        mpii_layout_init(&r->lay, &r->typed, d, buf, count);
        rc = rmp_imrecv_layout(&r->lay, bytes, &m->m, &r->rr);
    }
    if (rc != RMP_SUCCESS) {
        mpii_req_free(r);
        return mpii_p2p_err(c, rc, fn);
    }
    mpii_obj_free(&mpii_msg_pool, m);
    *message = MPI_MESSAGE_NULL;
    *out = r;
    return MPI_SUCCESS;
}

static int mrecv(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *message,
                 MPI_Status *status, const char *fn)
{
    mpii_req_t *r;
    int rc = imrecv(buf, count, dt, message, &r, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    mpii_comm_t *c = r->comm;
    int err = mpii_req_wait(r);
    if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = r->status.MPI_SOURCE;
        status->MPI_TAG = r->status.MPI_TAG;
        mpii_status_set_bytes(status, mpii_status_bytes(&r->status));
        status->MPI_internal[2] = 0;
    }
    mpii_req_free(r);
    return err == MPI_SUCCESS ? MPI_SUCCESS
                              : mpii_err_comm(c, err, fn, "%s",
                                              err == MPI_ERR_TRUNCATE ? "message truncated"
                                                                      : "receive failed");
}

MPII_TWINS(Mrecv, mrecv(buf, count, datatype, message, status, FN))

static int imrecv_out(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *message,
                      MPI_Request *request, const char *fn)
{
    if (!request)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "request is NULL");
    mpii_req_t *r;
    int rc = imrecv(buf, count, dt, message, &r, fn);
    if (rc == MPI_SUCCESS)
        *request = (MPI_Request)r;
    return rc;
}

MPII_TWINS(Imrecv, imrecv_out(buf, count, datatype, message, request, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "probe.twins.h"
