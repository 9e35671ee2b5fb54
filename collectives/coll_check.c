/* SPDX-License-Identifier: BSD-3-Clause */
/* RMP_COLL_CHECK=1: before each blocking collective the ranks exchange what they were
 * called with (collective, root, count, datatype, op) and, when any rank disagrees, every
 * rank returns RMP_ERR_ARG naming the first one that does, instead of messages that do not
 * match (wrong results) or a wait that never ends. Off by default: it costs one exchange
 * with every rank per call. Nonblocking collectives are not checked, because a blocking
 * exchange inside rmp_i* could deadlock a correct program that overlaps them with p2p. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_check.h"
#include "coll_core.h"
#include "coll_p2p.h"
#include "log.h"

typedef struct coll_sig {
    char name[16];
    int64_t root, count, dt, op;
} coll_sig_t;

static const char *const dt_names[RMP_DATATYPE_COUNT] = {
    "int8", "uint8", "int16", "uint16", "int32", "uint32",
    "int64", "uint64", "float16", "bfloat16", "float", "double"};
static const char *const op_names[RMP_OP_COUNT] = {"sum", "prod", "min", "max", "band",
                                                   "bor", "bxor", "land", "lor"};

static void coll_sig_describe(const coll_sig_t *s, char *buf, size_t len)
{
    /* Runs before the local argument checks: dt and op may be out of range. */
    snprintf(buf, len, "%s(count %lld, %s", s->name, (long long)s->count,
             s->dt >= 0 && s->dt < RMP_DATATYPE_COUNT ? dt_names[s->dt] : "?");
    size_t k = strlen(buf);
    if (s->root >= 0)
        k += (size_t)snprintf(buf + k, len - k, ", root %lld", (long long)s->root);
    if (s->op >= 0)
        k += (size_t)snprintf(buf + k, len - k, ", %s",
                              s->op < RMP_OP_COUNT ? op_names[s->op] : "?");
    snprintf(buf + k, len - k, ")");
}

int coll_check_call_all(rmp_comm_t comm, const char *name, int root, size_t count,
                        rmp_datatype_t dt, int op)
{
    coll_sig_t me, *all = calloc((size_t)comm->size, sizeof(*all));
    if (!all)
        return RMP_ERR_NOMEM;
    memset(&me, 0, sizeof(me)); /* the padding travels too */
    snprintf(me.name, sizeof(me.name), "%s", name);
    me.root = root;
    me.count = (int64_t)count;
    me.dt = dt;
    me.op = op;
    int rc = coll_exchange_all((const char *)&me, 0, sizeof(me), (char *)all, sizeof(me),
                               sizeof(me), comm, coll_next_tag(comm));
    all[comm->rank] = me;
    for (int i = 1; rc == RMP_SUCCESS && i < comm->size; i++) {
        if (memcmp(&all[i], &all[0], sizeof(me)) == 0)
            continue;
        char a[128], b[128];
        coll_sig_describe(&all[0], a, sizeof(a));
        coll_sig_describe(&all[i], b, sizeof(b));
        rmpi_error("collective mismatch on communicator %u (call %u): rank 0 called %s, "
                   "rank %d called %s",
                   comm->cid, comm->coll_seq - 1, a, i, b);
        rc = RMP_ERR_ARG;
    }
    free(all);
    return rc;
}
