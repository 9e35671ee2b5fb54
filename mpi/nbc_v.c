/* SPDX-License-Identifier: BSD-3-Clause */
/* Nonblocking v/w collectives over rmp's schedules. Contiguous datatypes only for now
 * (a derived type is refused with MPI_ERR_TYPE naming the limit). */
#include "mpii.h"

static int nv_type(mpii_comm_t *c, MPI_Datatype dt, const char *fn, mpii_dtype_t **d)
{
    int rc = mpii_coll_type(c, dt, 0, fn, d);
    if (rc == MPI_SUCCESS && !(*d)->contig)
        rc = mpii_err_comm(c, MPI_ERR_TYPE, fn,
                           "non-contiguous datatypes in nonblocking v-collectives are not "
                           "supported by rmp yet");
    return rc;
}

/* len/off (2n entries) from counts and displacements in elements of d; units: bytes per
 * displacement unit (d's extent, or 1). */
static int nv_arrays(mpii_comm_t *c, const int *cnt, const int *dsp, const mpii_dtype_t *d,
                     size_t **out, const char *fn)
{
    int n = c->size;
    if (!cnt || !dsp)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "a count or displacement array is NULL");
    size_t *a = malloc(2 * (size_t)n * sizeof(size_t));
    if (!a)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++) {
        if (cnt[i] < 0) {
            free(a);
            return mpii_err_comm(c, MPI_ERR_COUNT, fn, "negative count for rank %d", i);
        }
        a[i] = (size_t)cnt[i] * d->size;
        a[n + i] = (size_t)((MPI_Aint)dsp[i] * d->extent + d->true_lb);
    }
    *out = a;
    return MPI_SUCCESS;
}

static int nv_done(mpii_comm_t *c, int rc, rmp_request_t rr, MPI_Request *req, const char *fn)
{
    if (rc != RMP_SUCCESS)
        return mpii_coll_err(c, rc, fn);
    mpii_req_t *r = mpii_req_new_rmp(c, rr, NULL);
    if (!r) {
        rmp_wait(&rr, NULL);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    *req = (MPI_Request)r;
    return MPI_SUCCESS;
}

static int nv_begin(MPI_Comm comm, MPI_Request *req, const char *fn, mpii_comm_t **c)
{
    int rc = mpii_coll_comm(comm, fn, c);
    if (rc == MPI_SUCCESS && !req)
        rc = mpii_err_comm(*c, MPI_ERR_ARG, fn, "request is NULL");
    return rc;
}

/* gatherv (is_gather) or scatterv. */
static int nv_gsv(int is_gather, const void *one, int one_cnt, MPI_Datatype one_type,
                  const void *big, const int *cnt, const int *dsp, MPI_Datatype big_type,
                  int root, MPI_Comm comm, MPI_Request *req, const char *fn)
{
    mpii_comm_t *c;
    mpii_dtype_t *od = NULL, *bd = NULL;
    size_t *a = NULL;
    rmp_request_t rr = RMP_REQUEST_NULL;
    int rc;
    if ((rc = nv_begin(comm, req, fn, &c)) != MPI_SUCCESS ||
        (rc = mpii_coll_root(c, root, fn)) != MPI_SUCCESS)
        return rc;
    int is_root = c->rank == root, in_place = is_root && one == MPI_IN_PLACE;
    if (!in_place && (rc = nv_type(c, one_type, fn, &od)) != MPI_SUCCESS)
        return rc;
    if (is_root && ((rc = nv_type(c, big_type, fn, &bd)) != MPI_SUCCESS ||
                    (rc = nv_arrays(c, cnt, dsp, bd, &a, fn)) != MPI_SUCCESS))
        return rc;
    if (!in_place && one_cnt < 0) {
        free(a);
        return mpii_err_comm(c, MPI_ERR_COUNT, fn, "negative count");
    }
    void *p = in_place ? RMP_IN_PLACE : mpii_coll_at(one, od->true_lb);
    size_t bytes = in_place ? 0 : (size_t)one_cnt * od->size;
    int n = c->size;
    rc = is_gather ? rmp_igatherv(p, bytes, (void *)big, a, a ? a + n : NULL, root, c->rc, &rr)
                   : rmp_iscatterv(big, a, a ? a + n : NULL, p, bytes, root, c->rc, &rr);
    free(a);
    return nv_done(c, rc, rr, req, fn);
}

int PMPI_Igatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                  const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
                  MPI_Comm comm, MPI_Request *req)
{
    return nv_gsv(1, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req,
                  "MPI_Igatherv");
}
MPII_WEAK(Igatherv)

int PMPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[],
                   MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
                   MPI_Comm comm, MPI_Request *req)
{
    return nv_gsv(0, rbuf, rcount, rtype, sbuf, scounts, displs, stype, root, comm, req,
                  "MPI_Iscatterv");
}
MPII_WEAK(Iscatterv)

int PMPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                     const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm,
                     MPI_Request *req)
{
    const char *fn = "MPI_Iallgatherv";
    mpii_comm_t *c;
    mpii_dtype_t *sd = NULL, *rd;
    size_t *a;
    rmp_request_t rr = RMP_REQUEST_NULL;
    int rc, in_place = sbuf == MPI_IN_PLACE;
    if ((rc = nv_begin(comm, req, fn, &c)) != MPI_SUCCESS ||
        (!in_place && (rc = nv_type(c, stype, fn, &sd)) != MPI_SUCCESS) ||
        (rc = nv_type(c, rtype, fn, &rd)) != MPI_SUCCESS ||
        (rc = nv_arrays(c, rcounts, displs, rd, &a, fn)) != MPI_SUCCESS)
        return rc;
    size_t bytes = in_place ? 0 : (size_t)(scount > 0 ? scount : 0) * sd->size;
    rc = rmp_iallgatherv(in_place ? RMP_IN_PLACE : mpii_coll_at(sbuf, sd->true_lb), bytes, rbuf,
                         a, a + c->size, c->rc, &rr);
    free(a);
    return nv_done(c, rc, rr, req, fn);
}
MPII_WEAK(Iallgatherv)

int PMPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                    MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[],
                    MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    const char *fn = "MPI_Ialltoallv";
    mpii_comm_t *c;
    mpii_dtype_t *sd = NULL, *rd;
    size_t *sa = NULL, *ra;
    rmp_request_t rr = RMP_REQUEST_NULL;
    int rc, in_place = sbuf == MPI_IN_PLACE;
    if ((rc = nv_begin(comm, req, fn, &c)) != MPI_SUCCESS ||
        (rc = nv_type(c, rtype, fn, &rd)) != MPI_SUCCESS ||
        (rc = nv_arrays(c, rcounts, rdispls, rd, &ra, fn)) != MPI_SUCCESS)
        return rc;
    if (!in_place && ((rc = nv_type(c, stype, fn, &sd)) != MPI_SUCCESS ||
                      (rc = nv_arrays(c, scounts, sdispls, sd, &sa, fn)) != MPI_SUCCESS)) {
        free(ra);
        return rc;
    }
    int n = c->size;
    rc = rmp_ialltoallv(in_place ? RMP_IN_PLACE : sbuf, sa, sa ? sa + n : NULL, rbuf, ra,
                        ra + n, c->rc, &rr);
    free(sa);
    free(ra);
    return nv_done(c, rc, rr, req, fn);
}
MPII_WEAK(Ialltoallv)
