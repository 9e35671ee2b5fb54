/* SPDX-License-Identifier: BSD-3-Clause */
/* Context ids and tags of collective traffic: the one owner of their layout.
 *
 * A communicator's point-to-point context id is even (comm->cid); cid + 1 is
 * its collective context, so collective traffic never matches a user receive.
 * On the collective context, each collective call takes the next value of
 * comm->coll_seq (every rank calls the collectives of a communicator in the
 * same order, so the values agree) and uses tags rmpi_coll_tag(seq, phase),
 * phase < RMPI_COLL_PHASE_MAX, one phase per step of the algorithm. Those
 * tags stay below 1 << 28; core's own exchanges on the same context
 * (communicator split and create_group, window creation) use the RMPI_TAG_CORE_*
 * tags above.
 * Users: collectives/ (encode), core/failure.c and core/diag.c (decode). */
#ifndef RMPI_COLL_ID_H
#define RMPI_COLL_ID_H

#include <stdint.h>

#include "comm_obj.h"

#define RMPI_COLL_PHASE_BITS 10
#define RMPI_COLL_PHASE_MAX (1 << RMPI_COLL_PHASE_BITS)
#define RMPI_COLL_SEQ_MASK 0x3ffffu /* 18 bits of sequence: tags below 1 << 28 */

/* Core's exchanges on the collective context (core/xchg.c). */
enum {
    RMPI_TAG_CORE_SPLIT = 0x3ffffff0, /* rmp_comm_split's entries */
    RMPI_TAG_CORE_WIN = 0x3ffffff1,   /* window creation's entries */
    RMPI_TAG_CORE_SYNC = 0x3ffffff2,  /* a barrier among members */
    /* rmp_comm_create_group(tag): RMPI_TAG_CORE_GROUP + (tag & RMPI_TAG_CORE_GROUP_MASK),
     * between the collectives' tags and the ones above */
    RMPI_TAG_CORE_GROUP = 0x20000000,
    RMPI_TAG_CORE_GROUP_MASK = 0x0fffffff
};

/* The collective context of comm. */
static inline uint32_t rmpi_cid_coll(const struct rmp_comm *comm)
{
    return comm->cid + 1;
}

/* Is cid a collective context? */
static inline int rmpi_cid_is_coll(uint32_t cid)
{
    return (int)(cid & 1);
}

/* The communicator's (point-to-point) context id of context cid. */
static inline uint32_t rmpi_cid_comm(uint32_t cid)
{
    return cid & ~1u;
}

/* Tag of phase phase of the collective call numbered seq. */
static inline int rmpi_coll_tag(uint32_t seq, int phase)
{
    return (int)(((seq & RMPI_COLL_SEQ_MASK) << RMPI_COLL_PHASE_BITS) | (uint32_t)phase);
}

/* Tag base (phase 0) of a new collective call on comm. */
static inline int rmpi_coll_next_tag(struct rmp_comm *comm)
{
    return rmpi_coll_tag(comm->coll_seq++, 0);
}

/* Tag base of the collective call comm is in (the last one started). */
static inline int rmpi_coll_current_tag(const struct rmp_comm *comm)
{
    return rmpi_coll_tag(comm->coll_seq - 1, 0);
}

/* The call number and phase a collective tag encodes. */
static inline long rmpi_coll_tag_seq(int tag)
{
    return (long)((uint32_t)tag >> RMPI_COLL_PHASE_BITS);
}

static inline int rmpi_coll_tag_phase(int tag)
{
    return tag & (RMPI_COLL_PHASE_MAX - 1);
}

#endif
