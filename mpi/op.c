/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduction ops: the predefined ones map to rmp ops; user ops become rmp user ops
 * (rmp_op_create), one per (op, datatype) pair used, so that the callback gets the MPI
 * datatype handle and rmp's algorithms (shm paths included) run them. */
#include <limits.h>

#include "mpii_base.h"
#include "mpii_coll.h"
#include "mpii_dtype.h"

static mpii_pool_t op_pool = MPII_POOL_INIT(mpii_op_t);

#define OP_PREDEF(code, r) {MPII_MAGIC_OP, 1, 1, 0, r, NULL, NULL, NULL, 0, 0}
static mpii_op_t op_sum = OP_PREDEF(0x21, RMP_SUM), op_min = OP_PREDEF(0x22, RMP_MIN),
                 op_max = OP_PREDEF(0x23, RMP_MAX), op_prod = OP_PREDEF(0x24, RMP_PROD),
                 op_band = OP_PREDEF(0x28, RMP_BAND), op_bor = OP_PREDEF(0x29, RMP_BOR),
                 op_bxor = OP_PREDEF(0x2a, RMP_BXOR), op_land = OP_PREDEF(0x30, RMP_LAND),
                 op_lor = OP_PREDEF(0x31, RMP_LOR), op_lxor = OP_PREDEF(0x32, RMP_LXOR),
                 op_minloc = OP_PREDEF(0x38, RMP_MINLOC), op_maxloc = OP_PREDEF(0x39, RMP_MAXLOC),
                 op_replace = {MPII_MAGIC_OP, 1, 1, 1, RMP_OP_COUNT, NULL, NULL, NULL, 0, 0},
                 op_noop = {MPII_MAGIC_OP, 1, 1, 1, RMP_OP_COUNT, NULL, NULL, NULL, 0, 0};

static mpii_op_t *const op_predef[0x40] = {
    [0x21] = &op_sum,    [0x22] = &op_min,    [0x23] = &op_max,        [0x24] = &op_prod,
    [0x28] = &op_band,   [0x29] = &op_bor,    [0x2a] = &op_bxor,       [0x30] = &op_land,
    [0x31] = &op_lor,    [0x32] = &op_lxor,   [0x38] = &op_minloc,     [0x39] = &op_maxloc,
    [0x3c] = &op_replace, [0x3d] = &op_noop,
};

mpii_op_t *mpii_op(MPI_Op h)
{
    uintptr_t v = (uintptr_t)h;
    if (v < MPII_PREDEFINED_MAX)
        return v < 0x40 ? op_predef[v] : NULL;
    return mpii_obj_valid(h, MPII_MAGIC_OP) ? (mpii_op_t *)h : NULL;
}

static MPI_Op op_handle(mpii_op_t *o)
{
    for (unsigned i = 0; i < 0x40; i++)
        if (op_predef[i] == o)
            return (MPI_Op)(uintptr_t)i;
    return (MPI_Op)o;
}

/* rmp type of a basic kind for a predefined op; -1 when MPI does not define op on it. */
static int op_basic_rmp(int basic, rmp_op_t op)
{
    static const int map[MPII_B_COUNT] = {
        [MPII_B_INT8] = RMP_INT8,     [MPII_B_UINT8] = RMP_UINT8,
        [MPII_B_INT16] = RMP_INT16,   [MPII_B_UINT16] = RMP_UINT16,
        [MPII_B_INT32] = RMP_INT32,   [MPII_B_UINT32] = RMP_UINT32,
        [MPII_B_INT64] = RMP_INT64,   [MPII_B_UINT64] = RMP_UINT64,
        [MPII_B_FLOAT] = RMP_FLOAT,   [MPII_B_DOUBLE] = RMP_DOUBLE,
        [MPII_B_LONG_DOUBLE] = RMP_LONG_DOUBLE, [MPII_B_BOOL] = RMP_C_BOOL,
        /* MPI leaves char out of the integer ops; MPICH and Open MPI accept it and OSU's
         * reductions use it by default: a small integer of the platform's signedness. */
        [MPII_B_CHAR] = CHAR_MIN < 0 ? RMP_INT8 : RMP_UINT8, [MPII_B_BYTE] = RMP_UINT8,
        [MPII_B_FLOAT_COMPLEX] = RMP_C_FLOAT_COMPLEX,
        [MPII_B_DOUBLE_COMPLEX] = RMP_C_DOUBLE_COMPLEX,
        [MPII_B_LONG_DOUBLE_COMPLEX] = RMP_C_LONG_DOUBLE_COMPLEX,
        [MPII_B_FLOAT_INT] = RMP_FLOAT_INT, [MPII_B_DOUBLE_INT] = RMP_DOUBLE_INT,
        [MPII_B_LONG_INT] = RMP_LONG_INT,   [MPII_B_2INT] = RMP_2INT,
        [MPII_B_SHORT_INT] = RMP_SHORT_INT, [MPII_B_LONG_DOUBLE_INT] = RMP_LONG_DOUBLE_INT,
        [MPII_B_PACKED] = -1, [MPII_B_FLOAT16] = RMP_FLOAT16,
    };
    if (basic < 0 || basic >= MPII_B_COUNT)
        return -1;
    int logical = op == RMP_LAND || op == RMP_LOR || op == RMP_LXOR;
    int bitwise = op == RMP_BAND || op == RMP_BOR || op == RMP_BXOR;
    /* MPI: bytes take bitwise ops only; floating types no logical ones (rmp allows them). */
    if (basic == MPII_B_BYTE && !bitwise)
        return -1;
    if (logical && (basic == MPII_B_FLOAT || basic == MPII_B_DOUBLE ||
                    basic == MPII_B_LONG_DOUBLE || basic == MPII_B_FLOAT16))
        return -1;
    int dt = map[basic];
    if (basic != MPII_B_INT8 && basic != MPII_B_CHAR && dt == 0)
        return -1; /* a kind without an entry */
    return dt >= 0 && rmp_op_check((rmp_datatype_t)dt, op) == RMP_SUCCESS ? dt : -1;
}

/* op_basic_rmp and the rmp type's size, remembered per (basic kind, predefined op): every
 * reduction call resolves its pair, and the answer never changes. Written racily by
 * threads that all store the same values. 0: not known yet. */
static struct {
    int8_t dt; /* the rmp type + 2 (1: op not defined on the kind) */
    uint8_t es;
} op_memo[MPII_B_COUNT][RMP_OP_COUNT + (RMP_OP_EXT_END - RMP_LXOR)];

static int op_basic_known(int basic, rmp_op_t op, size_t *es)
{
    int i = (unsigned)op < RMP_OP_COUNT                        ? (int)op
            : op >= RMP_LXOR && op < RMP_OP_EXT_END ? RMP_OP_COUNT + (int)(op - RMP_LXOR)
                                                                : -1;
    if (MPII_UNLIKELY(basic < 0 || basic >= MPII_B_COUNT || i < 0))
        return -1;
    int8_t m = __atomic_load_n(&op_memo[basic][i].dt, __ATOMIC_ACQUIRE);
    if (MPII_LIKELY(m != 0)) {
        *es = op_memo[basic][i].es;
        return m - 2;
    }
    int dt = op_basic_rmp(basic, op);
    *es = dt >= 0 ? rmp_datatype_size((rmp_datatype_t)dt) : 0;
    op_memo[basic][i].es = (uint8_t)*es;
    __atomic_store_n(&op_memo[basic][i].dt, (int8_t)(dt + 2), __ATOMIC_RELEASE);
    return dt;
}

static void op_user_cb(const void *in, void *inout, size_t count, rmp_datatype_t dt, void *ctx)
{
    mpii_op_dt_t *e = ctx;
    MPI_Datatype h = e->dt;
    char *a = (char *)in - e->lb, *b = (char *)inout - e->lb;
    (void)dt;
    if (e->op->fn_c) {
        MPI_Count len = (MPI_Count)count;
        e->op->fn_c(a, b, &len, &h);
        return;
    }
    while (count > 0) {
        int len = count > INT_MAX ? INT_MAX : (int)count;
        e->op->fn(a, b, &len, &h);
        a += (size_t)len * (size_t)e->extent;
        b += (size_t)len * (size_t)e->extent;
        count -= (size_t)len;
    }
}

int mpii_red_resolve(mpii_op_t *o, mpii_dtype_t *d, MPI_Datatype dh, MPI_Count count,
                     mpii_red_t *r)
{
    if (!o || o->rma_only)
        return MPI_ERR_OP;
    if (!o->predefined) {
        /* Elements of the type's extent, the callback's pointers moved back by lb. */
        if (d->extent <= 0 || d->extent >= (1L << 30) || d->true_lb < d->lb ||
            d->true_lb + d->true_extent > d->lb + d->extent)
            return MPI_ERR_TYPE;
        mpii_op_dt_t *e = o->per_dt;
        while (e && e->dt != dh)
            e = e->next;
        if (!e) {
            if (!(e = calloc(1, sizeof(*e))))
                return MPI_ERR_NO_MEM;
            e->op = o;
            e->dt = dh;
            e->lb = d->lb;
            e->extent = d->extent;
            if (rmp_op_create(op_user_cb, e, o->commute, &e->rop) != RMP_SUCCESS) {
                free(e);
                return MPI_ERR_NO_MEM;
            }
            e->next = o->per_dt;
            o->per_dt = e;
        }
        r->dt = RMP_OPAQUE(d->extent);
        r->op = e->rop;
        r->count = (size_t)count;
        r->shift = d->lb;
        r->packed = 0;
        return MPI_SUCCESS;
    }
    size_t es;
    if (MPII_UNLIKELY(d->basic >= MPII_B_INT128)) {
        /* Fortran-only kinds: op_fortran.c's kernels as rmp user ops on elements of es. */
        rmp_op_t rop;
        int rc = mpii_fortran_red(d->basic, o->rop, &rop, &es);
        if (rc != MPI_SUCCESS)
            return rc;
        if (d->size % es)
            return MPI_ERR_TYPE;
        r->dt = RMP_OPAQUE(es);
        r->op = rop;
        r->count = (size_t)count * (d->size / es);
        r->shift = d->true_lb;
        r->packed = !d->contig;
        return MPI_SUCCESS;
    }
    int dt = op_basic_known(d->basic, o->rop, &es);
    if (dt < 0)
        return MPI_ERR_OP;
    r->dt = (rmp_datatype_t)dt;
    if (d->basic >= MPII_B_FLOAT_INT && d->basic <= MPII_B_LONG_DOUBLE_INT) {
        /* Pairs are C structs with padding (size 12, extent 16 for DOUBLE_INT): reduce the
         * structs in place, for the predefined type and contiguous runs of it. */
        /* The MPI size of one pair (the predefined handles follow the MPII_B_ order). */
        const mpii_dtype_t *pd = mpii_dtype(
            (MPI_Datatype)(uintptr_t)((uintptr_t)MPI_FLOAT_INT + (unsigned)(d->basic - MPII_B_FLOAT_INT)));
        size_t ps = pd ? pd->size : 0, k = (size_t)d->extent / es;
        if (d->extent <= 0 || (size_t)d->extent % es || d->size != k * ps || d->lb != 0)
            return MPI_ERR_TYPE;
        r->op = o->rop;
        r->count = (size_t)count * k;
        r->shift = 0;
        r->packed = 0;
        return MPI_SUCCESS;
    }
    r->op = o->rop;
    r->count = (size_t)count * (d->size / es);
    r->shift = d->true_lb;
    r->packed = !d->contig;
    return MPI_SUCCESS;
}

static int op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute,
                     MPI_Op *op, const char *name)
{
    mpii_check_init(name);
    if ((!fn && !fn_c) || !op)
        return mpii_err_comm(NULL, MPI_ERR_ARG, name, "%s is NULL", op ? "user_fn" : "op");
    mpii_op_t *o = mpii_obj_new(&op_pool, MPII_MAGIC_OP);
    if (!o)
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, name, "out of memory");
    o->commute = commute != 0;
    o->fn = fn;
    o->fn_c = fn_c;
    o->rop = RMP_OP_COUNT;
    *op = (MPI_Op)o;
    return MPI_SUCCESS;
}

MPII_TWINS(Op_create, op_create(TWIN(user_fn, NULL), TWIN(NULL, user_fn), commute, op, FN))

static void op_destroy(mpii_op_t *o)
{
    for (mpii_op_dt_t *e = o->per_dt, *next; e; e = next) {
        next = e->next;
        rmp_op_free(&e->rop);
        free(e);
    }
    o->per_dt = NULL;
    o->refs = o->freed = 0;
    mpii_obj_free(&op_pool, o);
}

/* Destroy a freed op once: Op_free and the last release may both see refs 0. */
static void op_claim_destroy(mpii_op_t *o)
{
    int one = 1;
    if (__atomic_compare_exchange_n(&o->freed, &one, 2, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        op_destroy(o);
}

int PMPI_Op_free(MPI_Op *op)
{
    mpii_check_init("MPI_Op_free");
    mpii_op_t *o = op ? mpii_op(*op) : NULL;
    if (!o || o->predefined)
        return mpii_err_comm(NULL, MPI_ERR_OP, "MPI_Op_free", "%s",
                             o ? "a predefined op cannot be freed" : "invalid op");
    *op = MPI_OP_NULL;
    if (__atomic_load_n(&o->refs, __ATOMIC_ACQUIRE) == 0) {
        op_destroy(o);
        return MPI_SUCCESS;
    }
    /* the requests still hold the handle; the last one's release frees it */
    __atomic_store_n(&o->freed, 1, __ATOMIC_RELEASE);
    if (__atomic_load_n(&o->refs, __ATOMIC_ACQUIRE) == 0)
        op_claim_destroy(o); /* the last release ran before freed was set */
    return MPI_SUCCESS;
}
MPII_WEAK(Op_free)

void mpii_op_retain(mpii_op_t *o)
{
    if (o && !o->predefined)
        __atomic_add_fetch(&o->refs, 1, __ATOMIC_ACQ_REL);
}

void mpii_op_release(mpii_op_t *o)
{
    if (o && !o->predefined && __atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL) == 0)
        op_claim_destroy(o);
}

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    mpii_check_init("MPI_Op_commutative");
    mpii_op_t *o = mpii_op(op);
    if (!o || !commute)
        return mpii_err_comm(NULL, o ? MPI_ERR_ARG : MPI_ERR_OP, "MPI_Op_commutative",
                             "%s", o ? "commute is NULL" : "invalid op");
    *commute = o->commute;
    return MPI_SUCCESS;
}
MPII_WEAK(Op_commutative)

static int op_reduce_local(const void *inbuf, void *inoutbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op, const char *fn)
{
    mpii_check_init(fn);
    mpii_dtype_t *d = mpii_dtype(datatype);
    mpii_red_t r;
    if (!mpii_dtype_ok(d))
        return mpii_err_comm(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    if (count < 0)
        return mpii_err_comm(NULL, MPI_ERR_COUNT, fn, "negative count %lld", (long long)count);
    int rc = mpii_red_resolve(mpii_op(op), d, datatype, count, &r);
    if (rc != MPI_SUCCESS)
        return mpii_err_comm(NULL, rc, fn, "%s", rc == MPI_ERR_OP ? "invalid op for this datatype"
                                                                : "datatype unsupported by user op");
    if (count == 0)
        return MPI_SUCCESS;
    /* MPI_IN_PLACE is no buffer here (neither argument), and the operation reads inbuf
     * while it writes inoutbuf: the same buffer twice is refused as the collectives do. */
    if (!inbuf || !inoutbuf || inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return mpii_err_comm(NULL, MPI_ERR_BUFFER, fn, "invalid buffer");
    if (inbuf == inoutbuf)
        return mpii_err_comm(NULL, MPI_ERR_BUFFER, fn, "inbuf and inoutbuf are the same buffer");
    mpii_view_t a, b;
    if ((rc = mpii_view_in(inbuf, count, d, &a)) != MPI_SUCCESS)
        return mpii_err_comm(NULL, rc, fn, "out of memory");
    if ((rc = mpii_view_in(inoutbuf, count, d, &b)) != MPI_SUCCESS) {
        mpii_view_done(&a, NULL, 0, d);
        return mpii_err_comm(NULL, rc, fn, "out of memory");
    }
    char *pa = r.packed ? a.p : (char *)inbuf + r.shift;
    char *pb = r.packed ? b.p : (char *)inoutbuf + r.shift;
    rc = rmp_reduce_local(pa, pb, r.count, r.dt, r.op);
    mpii_view_done(&a, NULL, 0, d);
    mpii_view_done(&b, r.packed ? inoutbuf : NULL, count, d);
    return rc == RMP_SUCCESS ? MPI_SUCCESS : mpii_err_comm(NULL, MPI_ERR_OP, fn, "%s", rmp_strerror(rc));
}

MPII_TWINS(Reduce_local, op_reduce_local(inbuf, inoutbuf, count, datatype, op, FN))

/* MPI_Op_f2c / c2f equivalents live with mpi-a's converters; op_handle serves them. */
MPI_Op mpii_op_handle(mpii_op_t *o)
{
    return op_handle(o);
}

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "op.twins.h"
