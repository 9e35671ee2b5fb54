/* SPDX-License-Identifier: BSD-3-Clause */
/* Datatype properties. */
#include "coll_op.h"

#ifndef RMP_EXPORT
#define RMP_EXPORT __attribute__((visibility("default")))
#endif

const unsigned char coll_dt_sizes[RMP_DATATYPE_COUNT] = {
    [RMP_INT8] = 1,    [RMP_UINT8] = 1,    [RMP_INT16] = 2, [RMP_UINT16] = 2,
    [RMP_INT32] = 4,   [RMP_UINT32] = 4,   [RMP_INT64] = 8, [RMP_UINT64] = 8,
    [RMP_FLOAT16] = 2, [RMP_BFLOAT16] = 2, [RMP_FLOAT] = 4, [RMP_DOUBLE] = 8,
};

RMP_EXPORT size_t rmp_datatype_size(rmp_datatype_t dt)
{
    return coll_dt_size(dt);
}
