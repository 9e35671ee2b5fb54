/* SPDX-License-Identifier: BSD-3-Clause */
/* Datatype properties. */
#include "coll_op.h"

#ifndef RMP_EXPORT
#define RMP_EXPORT __attribute__((visibility("default")))
#endif

RMP_EXPORT size_t rmp_datatype_size(rmp_datatype_t dt)
{
    static const unsigned char sizes[RMP_DATATYPE_COUNT] = {
        [RMP_INT8] = 1,    [RMP_UINT8] = 1,    [RMP_INT16] = 2, [RMP_UINT16] = 2,
        [RMP_INT32] = 4,   [RMP_UINT32] = 4,   [RMP_INT64] = 8, [RMP_UINT64] = 8,
        [RMP_FLOAT16] = 2, [RMP_BFLOAT16] = 2, [RMP_FLOAT] = 4, [RMP_DOUBLE] = 8,
    };

    /* Through unsigned so that a negative value is rejected too. */
    return (unsigned)dt < RMP_DATATYPE_COUNT ? sizes[dt] : coll_ext_size(dt);
}
