/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_T performance variables: rmp's point-to-point counters (rmp_stats_get).
 * All are MPI_UNSIGNED_LONG_LONG, bound to no object, continuous (running from
 * their handle's allocation: start and stop are MPI_T_ERR_PVAR_NO_STARTSTOP).
 * A counter's handle reads the total since MPI_Init, or since its last reset or
 * write (each handle keeps its own base); queue levels and the high-water mark
 * are read-only. Sessions and handles are malloc'ed and found again in lists, so
 * a stale or foreign one is refused, never dereferenced. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mpii_t.h"

typedef struct mpit_pvar {
    const char *name;
    int var_class;
    int verbosity;
    size_t field; /* offset of the value in rmp_stats_t */
    const char *desc;
} mpit_pvar_t;

#define F(x) offsetof(rmp_stats_t, x)
static const mpit_pvar_t pvars[] = {
    {"rmp_msgs_sent", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC, F(msgs_sent),
     "point-to-point messages this rank sent (collectives' included), every protocol"},
    {"rmp_bytes_sent", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC, F(bytes_sent),
     "bytes of the messages this rank sent"},
    {"rmp_msgs_received", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC, F(msgs_recvd),
     "messages that arrived at this rank, matched or not"},
    {"rmp_bytes_received", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC,
     F(bytes_recvd), "bytes of the messages that arrived at this rank"},
    {"rmp_unexpected_msgs", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC,
     F(unexpected), "messages that arrived before their receive was posted"},
    {"rmp_unexpected_recvq_length", MPI_T_PVAR_CLASS_LEVEL, MPI_T_VERBOSITY_USER_BASIC,
     F(unexpected_len), "messages now in the unexpected queue"},
    {"rmp_unexpected_recvq_high_water", MPI_T_PVAR_CLASS_HIGHWATERMARK,
     MPI_T_VERBOSITY_USER_BASIC, F(unexpected_high_water),
     "the longest the unexpected queue has been"},
    {"rmp_posted_recvq_length", MPI_T_PVAR_CLASS_LEVEL, MPI_T_VERBOSITY_USER_BASIC,
     F(posted_len), "receives now posted and waiting for their message"},
    {"rmp_eager_msgs_sent", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_DETAIL,
     F(eager_sent), "messages sent by the eager protocol"},
    {"rmp_eager_bytes_sent", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_DETAIL,
     F(eager_bytes), "bytes sent by the eager protocol"},
    {"rmp_rndv_msgs_sent", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_DETAIL,
     F(rndv_sent), "messages sent by the rendezvous protocol"},
    {"rmp_rndv_bytes_sent", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_DETAIL,
     F(rndv_bytes), "bytes sent by the rendezvous protocol"},
    {"rmp_frag_msgs_sent", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_DETAIL,
     F(frag_sent), "messages sent in fragments (no zero-copy path to the peer)"},
    {"rmp_frag_bytes_sent", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_DETAIL,
     F(frag_bytes), "bytes sent in fragments"},
    {"rmp_direct_bytes", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_DETAIL,
     F(direct_bytes), "non-contiguous bytes sent or received by straight copies between the "
                      "processes' memory, without packing (docs/protocols.md, Layouts)"},
};
#undef F
#define NPVARS ((int)(sizeof(pvars) / sizeof(pvars[0])))

enum { MPIT_MAGIC_SESSION = 0x6d7054a1u, MPIT_MAGIC_PHANDLE = 0x6d7054a2u };

typedef struct mpit_phandle {
    uint32_t magic;
    int pvar;
    struct mpit_phandle *next;
    unsigned long long accum, base; /* value = accum + (current - base) */
} mpit_phandle_t;

typedef struct mpit_session {
    uint32_t magic;
    struct mpit_session *next;
    mpit_phandle_t *handles;
} mpit_session_t;

static mpit_session_t *sessions;

int mpii_t_pvar_num(void)
{
    return NPVARS;
}

static int pvar_readonly(int i)
{
    return pvars[i].var_class != MPI_T_PVAR_CLASS_COUNTER;
}

static unsigned long long pvar_current(int i)
{
    rmp_stats_t st;
    rmp_stats_get(&st);
    unsigned long long v;
    memcpy(&v, (const char *)&st + pvars[i].field, sizeof(v));
    return v;
}

int PMPI_T_pvar_get_num(int *num_pvar)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_pvar)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    *num_pvar = NPVARS;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_pvar_get_num)

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                         int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                         int *desc_len, int *bind, int *readonly, int *continuous, int *atomic)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return mpii_t_leave(MPI_T_ERR_INVALID_INDEX);
    const mpit_pvar_t *p = &pvars[pvar_index];
    mpii_t_str(name, name_len, p->name);
    mpii_t_str(desc, desc_len, p->desc);
    if (verbosity)
        *verbosity = p->verbosity;
    if (var_class)
        *var_class = p->var_class;
    if (datatype)
        *datatype = MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly)
        *readonly = pvar_readonly(pvar_index);
    if (continuous)
        *continuous = 1;
    if (atomic)
        *atomic = 0;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_pvar_get_info)

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !pvar_index)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < NPVARS; i++) {
        if (pvars[i].var_class == var_class && strcmp(pvars[i].name, name) == 0) {
            *pvar_index = i;
            return mpii_t_leave(MPI_SUCCESS);
        }
    }
    return mpii_t_leave(MPI_T_ERR_INVALID_NAME);
}
MPII_WEAK(T_pvar_get_index)

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!session)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    mpit_session_t *s = calloc(1, sizeof(*s));
    if (!s)
        return mpii_t_leave(MPI_T_ERR_OUT_OF_SESSIONS);
    s->magic = MPIT_MAGIC_SESSION;
    s->next = sessions;
    sessions = s;
    *session = (MPI_T_pvar_session)s;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_pvar_session_create)

/* The live session h names, or NULL. */
static mpit_session_t *session_of(MPI_T_pvar_session h)
{
    for (mpit_session_t *s = sessions; s; s = s->next)
        if ((MPI_T_pvar_session)s == h)
            return s;
    return NULL;
}

static void session_free(mpit_session_t *s)
{
    while (s->handles) {
        mpit_phandle_t *h = s->handles;
        s->handles = h->next;
        free(h);
    }
    free(s);
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!session)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    mpit_session_t *s = session_of(*session);
    if (!s)
        return mpii_t_leave(MPI_T_ERR_INVALID_SESSION);
    for (mpit_session_t **pp = &sessions; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    session_free(s);
    *session = MPI_T_PVAR_SESSION_NULL;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_pvar_session_free)

void mpii_t_pvar_free_all(void)
{
    while (sessions) {
        mpit_session_t *s = sessions;
        sessions = s->next;
        session_free(s);
    }
}

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    (void)obj_handle; /* every pvar is bound to no object */
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    mpit_session_t *s = session_of(session);
    if (!s)
        return mpii_t_leave(MPI_T_ERR_INVALID_SESSION);
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return mpii_t_leave(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    mpit_phandle_t *h = calloc(1, sizeof(*h));
    if (!h)
        return mpii_t_leave(MPI_T_ERR_OUT_OF_HANDLES);
    h->magic = MPIT_MAGIC_PHANDLE;
    h->pvar = pvar_index;
    h->next = s->handles;
    s->handles = h;
    *handle = (MPI_T_pvar_handle)h;
    *count = 1;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_pvar_handle_alloc)

/* Session and handle of a call on one handle: MPI_SUCCESS or the error class. */
static int pvar_lookup(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                       mpit_session_t **sp, mpit_phandle_t **hp)
{
    mpit_session_t *s = session_of(session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    *sp = s;
    for (mpit_phandle_t *h = s->handles; h; h = h->next) {
        if ((MPI_T_pvar_handle)h == handle) {
            *hp = h;
            return MPI_SUCCESS;
        }
    }
    return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!handle)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    mpit_session_t *s;
    mpit_phandle_t *h;
    rc = pvar_lookup(session, *handle, &s, &h);
    if (rc != MPI_SUCCESS)
        return mpii_t_leave(rc);
    for (mpit_phandle_t **pp = &s->handles; *pp; pp = &(*pp)->next) {
        if (*pp == h) {
            *pp = h->next;
            break;
        }
    }
    free(h);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_pvar_handle_free)

/* Start and stop: every variable is continuous. MPI_T_PVAR_ALL_HANDLES means
 * the session's non-continuous handles: there are none, which succeeds. */
static int pvar_startstop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (handle == MPI_T_PVAR_ALL_HANDLES)
        return mpii_t_leave(session_of(session) ? MPI_SUCCESS : MPI_T_ERR_INVALID_SESSION);
    mpit_session_t *s;
    mpit_phandle_t *h;
    rc = pvar_lookup(session, handle, &s, &h);
    return mpii_t_leave(rc != MPI_SUCCESS ? rc : MPI_T_ERR_PVAR_NO_STARTSTOP);
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return pvar_startstop(session, handle);
}
MPII_WEAK(T_pvar_start)

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return pvar_startstop(session, handle);
}
MPII_WEAK(T_pvar_stop)

enum { PVAR_READ = 1, PVAR_RESET = 2, PVAR_WRITE = 4 };

/* PVAR_READ: h's value into out. PVAR_RESET: then set it to 0; PVAR_WRITE: to *in. */
static int pvar_access(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int mode,
                       void *out, const void *in)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    mpit_session_t *s;
    mpit_phandle_t *h;
    if (mode == PVAR_RESET && handle == MPI_T_PVAR_ALL_HANDLES) {
        if (!(s = session_of(session)))
            return mpii_t_leave(MPI_T_ERR_INVALID_SESSION);
        for (h = s->handles; h; h = h->next) {
            if (!pvar_readonly(h->pvar)) {
                h->accum = 0;
                h->base = pvar_current(h->pvar);
            }
        }
        return mpii_t_leave(MPI_SUCCESS);
    }
    rc = pvar_lookup(session, handle, &s, &h);
    if (rc != MPI_SUCCESS)
        return mpii_t_leave(rc);
    if (((mode & PVAR_READ) && !out) || ((mode & PVAR_WRITE) && !in))
        return mpii_t_leave(MPI_T_ERR_INVALID);
    if ((mode & (PVAR_RESET | PVAR_WRITE)) && pvar_readonly(h->pvar))
        return mpii_t_leave(MPI_T_ERR_PVAR_NO_WRITE);
    unsigned long long cur = pvar_current(h->pvar);
    if (mode & PVAR_READ) {
        unsigned long long v = pvar_readonly(h->pvar) ? cur : h->accum + (cur - h->base);
        memcpy(out, &v, sizeof(v));
    }
    if (mode & (PVAR_RESET | PVAR_WRITE)) {
        h->accum = 0;
        if (mode & PVAR_WRITE)
            memcpy(&h->accum, in, sizeof(h->accum));
        h->base = cur;
    }
    return mpii_t_leave(MPI_SUCCESS);
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    return pvar_access(session, handle, PVAR_READ, buf, NULL);
}
MPII_WEAK(T_pvar_read)

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    return pvar_access(session, handle, PVAR_READ | PVAR_RESET, buf, NULL);
}
MPII_WEAK(T_pvar_readreset)

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return pvar_access(session, handle, PVAR_RESET, NULL, NULL);
}
MPII_WEAK(T_pvar_reset)

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    return pvar_access(session, handle, PVAR_WRITE, NULL, buf);
}
MPII_WEAK(T_pvar_write)
