/* SPDX-License-Identifier: BSD-3-Clause */
/* Layouts in the collectives (coll_vlayout.c). */
#ifndef COLL_VLAYOUT_H
#define COLL_VLAYOUT_H

#include "rmp.h"

/* NULL pack and unpack: the plain bytes at ctx. */
static inline int coll_layout_plain(const rmp_layout_t *l)
{
    return !l->pack && !l->unpack;
}
/* RMP_SUCCESS, or RMP_ERR_ARG (reported) for a NULL array, a layout with one callback of
 * two, or plain bytes at NULL, among the n blocks with bytes[i] > 0. */
int coll_layouts_check(const rmp_layout_t *lays, const size_t *bytes, int n, const char *call);
/* bytes of src's stream into dst's, through a small stack buffer. */
void coll_layout_copy(const rmp_layout_t *dst, const rmp_layout_t *src, size_t bytes);

#endif /* COLL_VLAYOUT_H */
