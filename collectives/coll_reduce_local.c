/* SPDX-License-Identifier: BSD-3-Clause */
/* The public entry points to the reduction kernels: rmp_op_check, rmp_reduce_local. */
#include "coll_op.h"
#include "rmpi.h"

RMP_EXPORT int rmp_op_check(rmp_datatype_t dt, rmp_op_t op)
{
    return coll_dt_size(dt) ? coll_op_check(dt, op) : RMP_ERR_ARG;
}

RMP_EXPORT int rmp_reduce_local(const void *in, void *inout, size_t count, rmp_datatype_t dt,
                                rmp_op_t op)
{
    if (rmp_op_check(dt, op) != RMP_SUCCESS || (count && (!in || !inout)))
        return RMP_ERR_ARG;
    coll_op_reduce3(inout, in, inout, count, dt, op);
    return RMP_SUCCESS;
}
