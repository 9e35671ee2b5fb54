/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal header of the MPI layer (mpi/): handles, objects, errors. Each module has
 * its own header (mpii_dtype.h, mpii_p2p.h, mpii_coll.h, ...) that includes this one;
 * a file includes this one and the module headers it uses.
 *
 * Conventions (docs/mpi.md):
 * - Every function is defined once as PMPI_Name and MPII_WEAK(Name) after the
 *   definition makes MPI_Name a weak alias of it (profilers interpose on MPI_).
 *   Inside the library call PMPI_ or internal functions, never MPI_.
 * - A handle of a created object is a pointer to our struct, which starts with
 *   a uint32_t magic per kind; free clears it and keeps the memory in a pool of
 *   that kind, so a freed handle is refused (never a use after free). Predefined
 *   handles are the ABI's small integers, mapped to static objects.
 * - One converter per kind (mpii_comm, mpii_group, mpii_info, mpii_errh, and
 *   the other helpers' mpii_dtype, mpii_op, mpii_req, mpii_msg, mpii_win)
 *   returns NULL for an invalid handle.
 * - Errors go through mpii_err_comm / mpii_err_win, which call the object's
 *   error handler and return the code to return to the user. */
#ifndef MPII_BASE_H
#define MPII_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The MPI_ and PMPI_ functions are the library's interface: exported whatever
 * -fvisibility says. */
#pragma GCC visibility push(default)
#include "mpi.h"
#pragma GCC visibility pop

#include "rmp.h"

#define MPII_WEAK(name)                                                                \
    extern __typeof__(PMPI_##name) MPI_##name                                          \
        __attribute__((weak, alias("PMPI_" #name), visibility("default")));

/* MPII_TWINS(Name, expression): MPI_Name and its large-count twin MPI_Name_c, both
 * returning the expression (mpi.h's parameter names, FN for the name string, TWIN,
 * NARROW and WIDEN for what differs: mpi/gen_twins.py), written by mpi/gen_twins.py into
 * FILE.twins.h, which FILE.c includes. Nothing in C. */
#define MPII_TWINS(name, expression)

/* WIDEN's copy (gen_twins.py): in *w a malloc'd MPI_Count copy of the n ints at a (room
 * for one when n < 1, so that NULL means out of memory) or NULL when a is NULL (the
 * callee's NULL check sees it). 0: out of memory. */
static inline int mpii_widen(const int *a, MPI_Count n, MPI_Count **w)
{
    *w = NULL;
    if (!a)
        return 1;
    if (!(*w = malloc((size_t)(n > 0 ? n : 1) * sizeof(**w))))
        return 0;
    for (MPI_Count i = 0; i < n; i++)
        (*w)[i] = a[i];
    return 1;
}

/* An output count as an int: MPI_UNDEFINED when it does not fit (MPI_Get_count, ...). */
static inline int mpii_int_or_undefined(MPI_Count n)
{
    return n > INT32_MAX ? MPI_UNDEFINED : (int)n;
}

#define MPII_LIKELY(x) __builtin_expect(!!(x), 1)
#define MPII_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Predefined handles of every kind are below this bound. */
#define MPII_PREDEFINED_MAX 0x1000
#define MPII_HANDLE_INT(h) ((uintptr_t)(h))

/* Per-kind magic numbers (first word of every object). */
enum {
    MPII_MAGIC_FREED = 0xdeadf7eeu,
    MPII_MAGIC_COMM = 0x6d70c0a1u,
    MPII_MAGIC_GROUP = 0x6d70a7a2u,
    MPII_MAGIC_INFO = 0x6d701f03u,
    MPII_MAGIC_ERRH = 0x6d70e4b4u,
    MPII_MAGIC_DTYPE = 0x6d70d7a5u,
    MPII_MAGIC_OP = 0x6d700b06u,
    MPII_MAGIC_REQ = 0x6d70e907u,
    MPII_MAGIC_MSG = 0x6d70a508u,
    MPII_MAGIC_WIN = 0x6d70a109u,
};

/* ---- Object memory: pools per kind (objects are never returned to malloc
 * while the library runs, so reading the magic of a freed handle is safe). */
typedef struct mpii_pool {
    void *free; /* freed objects, linked through their second word */
    size_t size;
} mpii_pool_t;
#define MPII_POOL_INIT(type) {NULL, sizeof(type)}

/* A zeroed object of the pool's size with its magic set; NULL without memory. */
void *mpii_obj_new(mpii_pool_t *pool, uint32_t magic);
/* Clear the magic and keep the memory for the next mpii_obj_new. */
void mpii_obj_free(mpii_pool_t *pool, void *obj);
/* Check that a non-predefined handle points at a live object of this kind:
 * aligned, and its magic matches. */
static inline int mpii_obj_valid(const void *h, uint32_t magic)
{
    return h && ((uintptr_t)h & 7) == 0 && (uintptr_t)h >= MPII_PREDEFINED_MAX &&
           *(const uint32_t *)h == magic;
}

/* ---- Error handlers ---- */
typedef enum { MPII_ERRH_FATAL, MPII_ERRH_RETURN, MPII_ERRH_ABORT, MPII_ERRH_USER } mpii_errh_kind_t;
typedef enum { MPII_OBJ_COMM, MPII_OBJ_WIN, MPII_OBJ_FILE, MPII_OBJ_SESSION } mpii_obj_kind_t;

typedef struct mpii_errh {
    uint32_t magic;
    int refs; /* predefined handlers are never freed */
    mpii_errh_kind_t kind;
    mpii_obj_kind_t obj; /* the kind of object a user handler is for */
    void (*fn)(void); /* the user function, cast back by obj kind */
} mpii_errh_t;

mpii_errh_t *mpii_errh(MPI_Errhandler h);
MPI_Errhandler mpii_errh_handle(mpii_errh_t *e);
void mpii_errh_retain(mpii_errh_t *e);
void mpii_errh_release(mpii_errh_t *e);

/* ---- Attributes ---- */
typedef struct mpii_attr {
    struct mpii_attr *next;
    int keyval;
    void *value;
} mpii_attr_t;

/* ---- Communicators ---- */
typedef struct mpii_topo mpii_topo_t; /* topo.c */
typedef struct mpii_group mpii_group_t;

typedef struct mpii_inter mpii_inter_t; /* mpii_inter.h */

typedef struct mpii_comm {
    uint32_t magic;
    int rank, size; /* an intercomm: in the local group */
    /* 0, or 0x80000000 on an intercomm: or'ed into a rank it pushes every rank out of
     * the p2p fast path's range, so intercomm calls take the slow path (which maps
     * remote ranks) at no extra branch for intracomms. */
    unsigned p2p_slow;
    rmp_comm_t rc; /* an intercomm: over the union of both groups (mpii_inter.h) */
    mpii_inter_t *inter; /* NULL for an intracomm */
    /* The same on every member: its parent's key and its place among the parent's
     * children (creations are collective, so in the same order everywhere). Pending
     * MPI_Comm_idups run in key order (comm.c). */
    uint64_t key;
    uint32_t nchild;
    mpii_errh_t *errh;
    mpii_attr_t *attrs;
    mpii_topo_t *topo;   /* cart or dist graph, NULL otherwise */
    mpii_group_t *group; /* cached by Comm_group, released at free */
    void *coll_priv;     /* owned by the collectives module (mpi-c) */
    void (*coll_priv_free)(void *);
    struct mpii_bsbuf *bsbuf; /* MPI_Comm_attach_buffer's (bsend.c), NULL before */
    struct mpii_bsbuf *sbs;   /* its session's buffer (session.c), NULL under the world */
    uint64_t part_id;         /* the same on all members (part_match.c) */
    char name[MPI_MAX_OBJECT_NAME];
} mpii_comm_t;

extern mpii_comm_t mpii_comm_world, mpii_comm_self;
extern int mpii_state; /* the engine: 0 before Init, 1 initialized, 2 finalized */
extern int mpii_world_state; /* the world model (MPI_Init/MPI_Finalize), the same values */

/* The object of a communicator handle, NULL when invalid (inline: every call has one). */
static inline mpii_comm_t *mpii_comm(MPI_Comm h)
{
    if (h == MPI_COMM_WORLD)
        return MPII_LIKELY(mpii_state == 1) ? &mpii_comm_world : NULL;
    if (h == MPI_COMM_SELF)
        return mpii_state == 1 ? &mpii_comm_self : NULL;
    return mpii_obj_valid(h, MPII_MAGIC_COMM) ? (mpii_comm_t *)h : NULL;
}
MPI_Comm mpii_comm_handle(mpii_comm_t *c);
/* Wrap a new rmp communicator (takes ownership); errh inherited from parent. */
int mpii_comm_wrap(rmp_comm_t rc, const mpii_comm_t *parent, mpii_comm_t **out);
/* The key of the next communicator created collectively over parent. */
uint64_t mpii_comm_child_key(mpii_comm_t *parent);
/* A key from two values (splitmix64 of their mix). */
uint64_t mpii_key_mix(uint64_t a, uint64_t b);
/* The key of a communicator of world ranks w[0..n-1] made by its members under tag. */
uint64_t mpii_key_of_members(int n, const int *w, int tag);
/* World rank of a member, for groups and translate_ranks. */
int mpii_comm_world_rank(const mpii_comm_t *c, int rank);

/* ---- Groups ---- */
struct mpii_group {
    uint32_t magic;
    int refs;
    int size;
    int rank;   /* of the calling process, MPI_UNDEFINED if not a member */
    int *world; /* group rank -> world rank */
    struct mpii_bsbuf *sbs; /* a session pset's: the session's buffer, for its comms */
};
extern mpii_group_t mpii_group_empty;
mpii_group_t *mpii_group(MPI_Group h);
MPI_Group mpii_group_handle(mpii_group_t *g);
/* A new group of n world ranks (copied); NULL without memory. */
mpii_group_t *mpii_group_new(int n, const int *world);
void mpii_group_release(mpii_group_t *g);

/* ---- Info ---- */
typedef struct mpii_info mpii_info_t;
mpii_info_t *mpii_info(MPI_Info h);
/* Fill MPI_INFO_ENV (called by Init). */
int mpii_info_env_init(int argc, char **argv);

/* ---- Errors ---- */
/* Report an error on a communicator (NULL: MPI_COMM_WORLD's handler): format
 * the message, call the handler (ERRORS_ARE_FATAL prints
 * "rmp MPI: MPI_Send on rank 3: MPI_ERR_RANK: invalid rank 7 (size 4)" and
 * aborts the job) and return the code for the caller to return. */
int mpii_err_comm(mpii_comm_t *c, int errclass, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same on a window (mpi-c passes its window's handler; NULL: world). */
int mpii_err_win(MPI_Win win, mpii_errh_t *errh, int errclass, const char *fn,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The same through handler errh (NULL: fatal) of an object of its kind, whose handle is
 * at objh (sessions; a creation's errhandler argument, objh at a null handle). */
int mpii_err_obj(mpii_errh_t *errh, void *objh, int errclass, const char *fn, const char *fmt,
                 ...) __attribute__((format(printf, 5, 6)));
/* The same on a file (file_*.c formats msg; errh is the file's or MPI_FILE_NULL's). */
int mpii_err_fileh(MPI_File fh, mpii_errh_t *errh, int errclass, const char *fn,
                   const char *msg);
/* For the stubs: MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Name is not supported by rmp yet". */
int mpii_unsupported(MPI_Comm comm, const char *fn);
/* rmp status (negative) -> MPI error class. */
int mpii_err_from_rmp(int rmp_status);
/* Name of an error class ("MPI_ERR_RANK"), for messages. */
const char *mpii_err_name(int errclass);

/* Library state (mpii_state, above): every call but the few allowed before Init/after
 * Finalize checks it. */

/* MPI_THREAD_MULTIPLE: the layer's own shared state (object pools, reference counts,
 * the orphaned-request list, the handle table) is changed under one mutex; below
 * MULTIPLE it is never taken. Leaf lock: nothing is called into rmp while holding it
 * except completion tests, and rmp never calls back into mpi/ under its own lock. */
extern int mpii_mt;
extern pthread_mutex_t mpii_mt_lock;
#define MPII_LOCK()                                                                        \
    do {                                                                                   \
        if (MPII_UNLIKELY(mpii_mt))                                                        \
            pthread_mutex_lock(&mpii_mt_lock);                                             \
    } while (0)
#define MPII_UNLOCK()                                                                      \
    do {                                                                                   \
        if (MPII_UNLIKELY(mpii_mt))                                                        \
            pthread_mutex_unlock(&mpii_mt_lock);                                           \
    } while (0)
int mpii_check_init(const char *fn);
/* Sessions (session.c) take and drop a reference on the engine (env.c): get starts it
 * if needed (MPI_ERR_OTHER once rmp has finalized: it cannot restart). */
int mpii_session_engine_get(int required, int *provided, const char *fn);
int mpii_session_engine_put(void);

/* Attributes on communicators (attr.c), called by comm.c. */
int mpii_attr_copy_all(mpii_comm_t *old, mpii_comm_t *newc, const char *fn);
int mpii_attr_delete_all(mpii_comm_t *c, const char *fn);
int mpii_attr_init(void);

/* Topologies (topo.c) */
void mpii_topo_free(mpii_topo_t *t);
int mpii_topo_dup(const mpii_topo_t *t, mpii_topo_t **out);
/* Neighbour lists for the neighbourhood collectives (mpi-c): for a dist graph
 * its sources and destinations; for a cart 2 per dimension, the -1 then the +1
 * neighbour, MPI_PROC_NULL past an open edge (the same list in and out).
 * MPI_ERR_TOPOLOGY for a communicator without topology. */
int mpii_topo_neighbors(const mpii_comm_t *c, int *indeg, const int **in, int *outdeg,
                        const int **out);

/* Free a communicator object without communication (Finalize and Comm_free). */
void mpii_comm_destroy(mpii_comm_t *c);
/* A new context for c's group, without topology or attributes; errors reported as fn. */
int mpii_comm_dup_bare(mpii_comm_t *c, mpii_comm_t **out, const char *fn);

#endif
