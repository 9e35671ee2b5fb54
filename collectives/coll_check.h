/* SPDX-License-Identifier: BSD-3-Clause */
/* Argument checks. Every collective call runs several: the passing case is inline
 * (a few instructions, no call), the failing case logs out of line (coll_p2p.c).
 * RMP_COLL_CHECK's cross-rank check of the call (coll_check.c). */
#ifndef COLL_CHECK_H
#define COLL_CHECK_H

#include <stdint.h>

#include "coll_core.h"
#include "coll_op.h"
#include "coll_tune.h"

/* rmpi_comm_check, then RMP_ERR_PEER_FAILED if a member of comm has failed; records
 * the call name for the SIGUSR1 report. */
static inline int coll_check_comm(rmp_comm_t comm, const char *call)
{
    int rc = rmpi_comm_check(comm);
    if (RMPI_UNLIKELY(rc != RMP_SUCCESS))
        return rc;
    rmpi_diag_coll_enter(call);
    /* Without a member the collective cannot complete anywhere: fail at once,
     * the same on every survivor, rather than after a partial exchange. */
    return RMPI_UNLIKELY(rmpi_comm_lost_member(comm)) ? RMP_ERR_PEER_FAILED : RMP_SUCCESS;
}
/* Each returns RMP_SUCCESS or RMP_ERR_ARG (logged). */
int coll_check_dt(rmp_datatype_t dt);
int coll_check_dt_op_fail(rmp_datatype_t dt, rmp_op_t op);
static inline int coll_check_dt_op(rmp_datatype_t dt, rmp_op_t op)
{
    return RMPI_LIKELY(coll_op_check(dt, op) == RMP_SUCCESS) ? RMP_SUCCESS
                                                             : coll_check_dt_op_fail(dt, op);
}
int coll_check_root(int root, rmp_comm_t comm);
/* buf must be non-NULL and not RMP_IN_PLACE (unless in_place_ok) when bytes > 0. */
void coll_check_buf_fail(const void *buf, const char *what) __attribute__((cold));
static inline int coll_check_buf(const void *buf, int in_place_ok, const char *what)
{
    if (RMPI_LIKELY(buf != NULL && (in_place_ok || buf != RMP_IN_PLACE)))
        return RMP_SUCCESS;
    coll_check_buf_fail(buf, what);
    return RMP_ERR_ARG;
}
/* count * es * mult in *bytes, RMP_ERR_ARG on overflow. */
void coll_bytes_overflow(size_t count) __attribute__((cold));
static inline int coll_bytes(size_t count, size_t es, size_t mult, size_t *bytes)
{
    size_t b;
    if (RMPI_UNLIKELY(__builtin_mul_overflow(count, es, &b) ||
                      __builtin_mul_overflow(b, mult, &b) || b > (SIZE_MAX >> 1))) {
        coll_bytes_overflow(count);
        return RMP_ERR_ARG;
    }
    *bytes = b;
    return RMP_SUCCESS;
}


/* RMP_COLL_CHECK: every rank agrees on the call (root/op < 0: not applicable). */
int coll_check_call_all(rmp_comm_t comm, const char *name, int root, size_t count,
                        rmp_datatype_t dt, int op);
static inline int coll_check_call(rmp_comm_t comm, const char *name, int root, size_t count,
                                  rmp_datatype_t dt, int op)
{
    if (RMPI_LIKELY(!coll_tune_check()) || comm->size == 1)
        return RMP_SUCCESS;
    return coll_check_call_all(comm, name, root, count, dt, op);
}

#endif /* COLL_CHECK_H */
