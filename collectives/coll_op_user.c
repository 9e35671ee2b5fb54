/* SPDX-License-Identifier: BSD-3-Clause */
/* User-defined reduction ops (rmp_op_create): a table indexed by op - RMP_OP_USER, freed
 * slots reused; coll_op.c runs them for a user op, whatever the datatype. */
#include <stdlib.h>
#include <string.h>

#include "coll_blocks.h"
#include "coll_op.h"
#include "rmpi.h"

typedef struct user_op {
    rmp_op_fn_t fn;
    void *ctx;
    int commute;
    int live;
} user_op_t;

static user_op_t *user_ops;
static int user_nops;

static user_op_t *user_find(rmp_op_t op)
{
    long k = (long)op - RMP_OP_USER;
    return k >= 0 && k < user_nops && user_ops[k].live ? &user_ops[k] : NULL;
}

RMP_EXPORT int rmp_op_create(rmp_op_fn_t fn, void *ctx, int commute, rmp_op_t *op)
{
    if (!fn || !op)
        return RMP_ERR_ARG;
    int k = 0;
    while (k < user_nops && user_ops[k].live)
        k++;
    if (k == user_nops) {
        user_op_t *t = realloc(user_ops, (size_t)(user_nops + 16) * sizeof(*t));
        if (!t)
            return RMP_ERR_NOMEM;
        memset(t + user_nops, 0, 16 * sizeof(*t));
        user_ops = t;
        user_nops += 16;
    }
    user_ops[k] = (user_op_t){fn, ctx, commute != 0, 1};
    *op = (rmp_op_t)(RMP_OP_USER + k);
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_op_free(rmp_op_t *op)
{
    user_op_t *u = op ? user_find(*op) : NULL;
    if (!u)
        return RMP_ERR_ARG;
    u->live = 0;
    *op = RMP_OP_COUNT;
    return RMP_SUCCESS;
}

int coll_op_commutative(rmp_op_t op)
{
    user_op_t *u = user_find(op);
    return u ? u->commute : 1;
}

int coll_op_user_live(rmp_op_t op)
{
    return user_find(op) != NULL;
}

/* User op into out = a op b: 1, or 0 when op is not a live user op. The callback computes inout = in op inout, so out must be
 * the right operand: copy b there first when it is not, going through a bounce buffer
 * when out is a (a non-commutative op cannot swap the operands). */
int coll_op_user_reduce3(void *out, const void *a, const void *b, size_t n, rmp_datatype_t dt,
                         rmp_op_t op)
{
    const user_op_t *u = user_find(op);
    if (!u)
        return 0;
    size_t es = coll_dt_size(dt);
    if (out == b && a != b) {
        u->fn(a, out, n, dt, u->ctx);
        return 1;
    }
    if (out != a && out != b) {
        memcpy(out, b, n * es);
        u->fn(a, out, n, dt, u->ctx);
        return 1;
    }
    if (u->commute && a != b) { /* out == a: a = b op a is a op b */
        u->fn(b, out, n, dt, u->ctx);
        return 1;
    }
    /* out == a (and maybe == b): in = a through a bounce buffer, inout = out holding b. */
    _Alignas(64) char stack[COLL_STACK_BYTES];
    size_t per = es <= sizeof(stack) ? sizeof(stack) / es : 1;
    char *tmp = es <= sizeof(stack) ? stack : malloc(es);
    if (!tmp)
        return 1; /* cannot happen short of memory exhaustion for a > 4 KiB element */
    for (size_t i = 0; i < n; i += per) {
        size_t m = n - i < per ? n - i : per;
        char *o = (char *)out + i * es;
        memcpy(tmp, o, m * es); /* the a part */
        if (b != out)
            memcpy(o, (const char *)b + i * es, m * es);
        u->fn(tmp, o, m, dt, u->ctx);
    }
    if (tmp != stack)
        free(tmp);
    return 1;
}
