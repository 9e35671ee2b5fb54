/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI datatypes: the object behind an MPI_Datatype handle, and packing of
 * typed buffers to and from the packed byte stream (docs/mpi.md, "Datatypes").
 *
 * A datatype's layout is a small tree of "dataloop" nodes (runs, vectors,
 * indexed blocks), built once by the constructor, so that packing a large
 * vector is one tight loop and any byte range of the packed stream can be
 * reached without walking what precedes it (pipelined sends, collectives and
 * one-sided operations work on chunks). */
#ifndef MPII_DTYPE_H
#define MPII_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "mpii_base.h"

/* Basic element kinds (what a reduction needs to know): one per predefined C
 * type family. A derived type made of a single basic kind has that kind in
 * ->basic (so reductions run over size / mpii_basic_size(basic) elements). */
enum mpii_basic {
    MPII_B_NONE = -1,
    MPII_B_INT8 = 0, MPII_B_UINT8, MPII_B_INT16, MPII_B_UINT16, MPII_B_INT32, MPII_B_UINT32,
    MPII_B_INT64, MPII_B_UINT64,
    MPII_B_FLOAT, MPII_B_DOUBLE, MPII_B_LONG_DOUBLE,
    MPII_B_BOOL,        /* C _Bool / C++ bool: 1 byte, logical ops */
    MPII_B_CHAR,        /* MPI_CHAR, MPI_WCHAR-free text: no arithmetic (only REPLACE/NO_OP) */
    MPII_B_BYTE,        /* MPI_BYTE: bitwise ops only */
    MPII_B_FLOAT_COMPLEX, MPII_B_DOUBLE_COMPLEX, MPII_B_LONG_DOUBLE_COMPLEX,
    /* Pair types for MINLOC/MAXLOC, laid out as the C structs {value; int index}. */
    MPII_B_FLOAT_INT, MPII_B_DOUBLE_INT, MPII_B_LONG_INT, MPII_B_2INT, MPII_B_SHORT_INT,
    MPII_B_LONG_DOUBLE_INT,
    MPII_B_PACKED,      /* MPI_PACKED: bytes, no arithmetic */
    MPII_B_FLOAT16,     /* REAL2: IEEE half, reduced by rmp (RMP_FLOAT16) */
    /* Kinds only Fortran types have; op_fortran.c reduces them (rmp has no kernel). */
    MPII_B_INT128,      /* INTEGER16 */
    MPII_B_FLOAT128,    /* REAL16: IEEE quad (gfortran's REAL(16), not x87 long double) */
    MPII_B_COMPLEX_HALF, MPII_B_COMPLEX128, /* COMPLEX4, COMPLEX32 */
    MPII_B_FLOG1, MPII_B_FLOG2, MPII_B_FLOG4, MPII_B_FLOG8, MPII_B_FLOG16, /* LOGICALn */
    MPII_B_2FLOAT, MPII_B_2DOUBLE, MPII_B_2INT64, /* {value; index} of one type */
    MPII_B_COUNT        /* not a kind */
};

/* Layout node. Offsets are bytes relative to the start of one element of the
 * type the node describes; `extent` is the distance between consecutive
 * elements when the node is repeated. */
enum { MPII_DL_RUN = 1, MPII_DL_VEC, MPII_DL_IDX };

/* How a run's elements convert to external32 (pack_external.c): big-endian, element by
 * element (SWAP), each half of a complex (CPLX), x87 long doubles to IEEE quad and back
 * (LDBL: one per 16 bytes, a complex one is two), and the types external32 makes
 * narrower: long and unsigned long to 4 bytes, wchar_t to 2. */
enum { MPII_X_SWAP = 0, MPII_X_CPLX, MPII_X_LDBL, MPII_X_LONG, MPII_X_ULONG, MPII_X_WCHAR };

typedef struct mpii_dl {
    uint8_t kind;
    size_t size;      /* packed bytes of one element */
    MPI_Aint extent;
    MPI_Count nbasic; /* basic elements in one element (MPI_Get_elements) */
    union {
        struct {
            MPI_Aint off;
            size_t len;
            size_t esize; /* bytes of one basic element of the run; 0: mixed */
            uint8_t xconv; /* its external32 form (pack_external.c): MPII_X_* */
        } run;
        struct { /* count blocks at i*stride, each blocklen children at j*child->extent */
            MPI_Count count, blocklen;
            MPI_Aint stride;
            const struct mpii_dl *child;
        } vec;
        struct { /* n blocks of blocklen[i] children[i] at disp[i] */
            MPI_Count n;
            MPI_Count *blocklen;
            MPI_Aint *disp;
            const struct mpii_dl **child;
            size_t *psum; /* packed bytes before block i (n + 1 entries) */
            /* Every block one run (blocklen 1, child a RUN): where block i's bytes
             * start (disp[i] + its run's off), so packing is a gather loop without
             * recursion; else NULL. ulen: the runs' common length, else 0. */
            const MPI_Aint *roff;
            size_t ulen;
        } idx;
    } u;
} mpii_dl_t;

/* The block of indexed node d holding packed byte skip: the last one starting at or
 * before it (psum is increasing; empty blocks share their start). */
static inline MPI_Count mpii_dl_idx_block(const mpii_dl_t *d, size_t skip)
{
    const size_t *ps = d->u.idx.psum;
    MPI_Count lo = 0, hi = d->u.idx.n - 1;
    while (lo < hi) {
        MPI_Count mid = (lo + hi + 1) / 2;
        if (ps[mid] <= skip)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}
typedef struct mpii_dtype_env mpii_dtype_env_t; /* dtype_env.c */

typedef struct mpii_dtype {
    uint32_t magic;
    int refs;       /* the handle and every derived type built on it */
    int committed;  /* predefined types: 1 */
    int predefined;
    int contig;     /* count elements are one run of count*size bytes at buf + true_lb */
    int basic;      /* enum mpii_basic when made of one basic kind, else MPII_B_NONE */
    int rmp;        /* rmp_datatype_t of a predefined type rmp reduces, else -1 */
    int align;      /* alignment of the most aligned basic element (struct padding) */
    size_t size;    /* MPI_Type_size */
    MPI_Aint lb, extent, true_lb, true_extent;
    const mpii_dl_t *dl; /* layout of one element */
    mpii_dl_t *own;      /* nodes this type allocated (freed with it) */
    void *own_arrays;    /* and the arrays of its indexed node */
    int combiner;        /* MPI_COMBINER_* */
    int ntypes;          /* the types it was built from (referenced while it lives) */
    struct mpii_dtype **types;
    mpii_dtype_env_t *env; /* the constructor's arguments (get_envelope/contents) */
    mpii_attr_t *attrs;    /* attr_obj.c */
    char name[MPI_MAX_OBJECT_NAME];
} mpii_dtype_t;

#define MPII_DTYPE_BASE 0x200u
#define MPII_DTYPE_SLOTS 0x100u
extern mpii_dtype_t *mpii_dtype_predef[MPII_DTYPE_SLOTS];

/* The object of a handle, or NULL when it is MPI_DATATYPE_NULL, freed or garbage
 * (told apart where possible: a freed handle's magic is cleared). */
static inline mpii_dtype_t *mpii_dtype(MPI_Datatype h)
{
    uintptr_t v = (uintptr_t)h;
    if (v < MPII_PREDEFINED_MAX)
        return v >= MPII_DTYPE_BASE && v < MPII_DTYPE_BASE + MPII_DTYPE_SLOTS
                   ? mpii_dtype_predef[v - MPII_DTYPE_BASE]
                   : NULL;
    return mpii_obj_valid(h, MPII_MAGIC_DTYPE) ? (mpii_dtype_t *)h : NULL;
}

/* Usable in communication: valid and committed. */
static inline int mpii_dtype_ok(const mpii_dtype_t *d)
{
    return d && d->committed;
}

/* Objects of derived types (never returned to malloc: freed handles stay readable). */
extern mpii_pool_t mpii_dtype_pool;

/* Fill the predefined table (MPI_Init; idempotent). */
void mpii_dtype_init(void);
/* The predefined object of handle h (dtype.c, for dtype_fortran.c): one run of size
 * bytes made of `size / esize` basic elements. */
void mpii_dtype_run(mpii_dl_t *r, MPI_Aint off, size_t len, size_t esize, MPI_Aint extent);
void mpii_dtype_predef_obj(mpii_dtype_t *d, MPI_Datatype h, const char *name, size_t size,
                           MPI_Aint extent, int align, int basic, int rmp, const mpii_dl_t *dl);
/* The Fortran types (dtype_fortran.c), at their configured sizes (MPI_Abi_set_fortran_info). */
void mpii_dtype_fortran_init(void);
/* The Fortran LOGICAL values of a size (1, 2, 4, 8, 16 bytes): *t and *f point at size
 * bytes each (MPI_Abi_set_fortran_booleans; default 1 and 0). */
void mpii_fortran_booleans(size_t size, const unsigned char **t, const unsigned char **f);
/* A predefined op on a Fortran-only kind (>= MPII_B_INT128): the rmp op reducing elements
 * of *es bytes; MPI_ERR_OP when op is not defined on the kind (or this compiler has no such
 * type), MPI_ERR_NO_MEM (op_fortran.c). */
int mpii_fortran_red(int basic, rmp_op_t op, rmp_op_t *rop, size_t *es);
/* The external32 conversion of a basic kind's elements (MPII_X_*). */
int mpii_dtype_xconv(int basic);
/* Bytes of one element of a basic kind. */
size_t mpii_basic_size(int basic);
/* The handle of a type object (predefined: its constant). */
MPI_Datatype mpii_dtype_handle(const mpii_dtype_t *d);
/* Another holder of a derived type (a request): released with mpii_dtype_release. */
void mpii_dtype_retain(mpii_dtype_t *d);

/* Record what d was built from (dtype_env.c), in the classic binding's layout; fn is the
 * constructor (a name ending in _c: a large-count type). Out of memory: not recorded. */
void mpii_dtype_env_simple(mpii_dtype_t *d, const char *fn, int ni, const MPI_Count *ints,
                           int na, const MPI_Aint *addrs, MPI_Datatype old);
void mpii_dtype_env_index(mpii_dtype_t *d, const char *fn, MPI_Count count,
                          const MPI_Count *bl, MPI_Count bl1, const MPI_Aint *disp,
                          MPI_Datatype old, const MPI_Datatype *types);
void mpii_dtype_env_subarray(mpii_dtype_t *d, const char *fn, int ndims, const MPI_Count *sizes,
                             const MPI_Count *subsizes, const MPI_Count *starts, int order,
                             MPI_Datatype old);
/* Integers only, no datatypes (the MPI_Type_create_f90_* types). */
void mpii_dtype_env_ints(mpii_dtype_t *d, const char *fn, int ni, const MPI_Count *ints);
void mpii_dtype_env_darray(mpii_dtype_t *d, const char *fn, int size, int rank, int ndims,
                           const MPI_Count *gsizes, const int *distribs, const int *dargs,
                           const int *psizes, int order, MPI_Datatype old);
void mpii_dtype_env_free(mpii_dtype_t *d);

/* Attributes of derived types (attr_obj.c): copied by MPI_Type_dup, deleted (their
 * callbacks run) when the type is destroyed. */
int mpii_type_attr_copy_all(mpii_dtype_t *old, mpii_dtype_t *d, const char *fn);
int mpii_type_attr_delete_all(mpii_dtype_t *d, const char *fn);
/* Drop a reference (handle freed, or a type built on it freed). */
void mpii_dtype_release(mpii_dtype_t *d);

/* Choose the packing form of an indexed node (dtype_compile.c): its runs' offsets in
 * roff (n entries, the node's arrays), or the vector it is (return 1: then its arrays
 * are unused). */
int mpii_dtype_idx_compile(mpii_dl_t *top, MPI_Aint *roff);
/* Packed stream of count elements of d at buf: copy bytes [offset, offset + max)
 * of it to out (pack) or from in (unpack). Return the bytes moved (less than
 * max only at the end of the stream). */
size_t mpii_dtype_pack(const mpii_dtype_t *d, const void *buf, MPI_Count count, size_t offset,
                       void *out, size_t max);
size_t mpii_dtype_unpack(const mpii_dtype_t *d, void *buf, MPI_Count count, size_t offset,
                         const void *in, size_t max);
/* A typed buffer as an rmp layout (rmp.h): rmp packs and unpacks it piece by piece
 * as the message moves, so no protocol copies a whole non-contiguous message. t
 * holds what lay->ctx points to; both must live until the message has moved. */
typedef struct mpii_typed {
    const mpii_dtype_t *d;
    void *buf;
    MPI_Count count;
} mpii_typed_t;
void mpii_layout_init(rmp_layout_t *lay, mpii_typed_t *t, const mpii_dtype_t *d, const void *buf,
                      MPI_Count count);
/* rmp_layout_t.segments of a typed buffer (ctx an mpii_typed_t; pack_iov.c). */
size_t mpii_dtype_segments(void *ctx, size_t off, size_t len, struct iovec *iov, size_t max,
                           size_t *n);
/* Basic elements in the first `bytes` bytes of the packed stream of d
 * (MPI_Get_elements: only whole basic elements count). */
MPI_Count mpii_dtype_elements(const mpii_dtype_t *d, size_t bytes);

#endif
