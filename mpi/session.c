/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI Sessions (MPI-4.1 chapter 11): the session object, its error handler and info.
 * A session holds a reference on the engine (env.c), so groups and communicators
 * derived from it work without MPI_Init, before it, alongside it and after it. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mpii.h"
#include "mpii_session.h"

#define SESSION_MAGIC 0x6d705e5au

static mpii_pool_t session_pool = MPII_POOL_INIT(mpii_session_t);

mpii_session_t *mpii_session(MPI_Session h)
{
    return mpii_obj_valid(h, SESSION_MAGIC) ? (mpii_session_t *)h : NULL;
}

int mpii_err_session(mpii_session_t *s, int code, const char *fn, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* No session: MPI_COMM_WORLD's handler under the world model, else the initial
     * error handler, MPI_ERRORS_ARE_FATAL (MPI-4.1 9.3). */
    if (!s && mpii_world_state == 1)
        return mpii_err_comm(NULL, code, fn, "%s", msg);
    MPI_Session h = s ? (MPI_Session)s : MPI_SESSION_NULL;
    return mpii_err_obj(s ? s->errh : NULL, &h, code, fn, "%s", msg);
}

/* The thread levels by name, as "thread_level" gives and takes them. */
static const struct {
    const char *name;
    int level;
} session_levels[] = {{"MPI_THREAD_SINGLE", MPI_THREAD_SINGLE},
                      {"MPI_THREAD_FUNNELED", MPI_THREAD_FUNNELED},
                      {"MPI_THREAD_SERIALIZED", MPI_THREAD_SERIALIZED},
                      {"MPI_THREAD_MULTIPLE", MPI_THREAD_MULTIPLE}};
#define SESSION_NLEVELS ((int)(sizeof(session_levels) / sizeof(session_levels[0])))

const char *mpii_session_level_name(int level)
{
    for (int i = 0; i < SESSION_NLEVELS; i++)
        if (session_levels[i].level == level)
            return session_levels[i].name;
    return "MPI_THREAD_SINGLE";
}

/* The level the info asks for (MPI_THREAD_SINGLE without the key); MPI_ERR_INFO_VALUE
 * for a value that names no level. The standard's key is "thread_level"; the older
 * "mpi_thread_support_level" is taken too. */
static int session_info_level(MPI_Info info, int *level)
{
    static const char *const keys[] = {"thread_level", "mpi_thread_support_level"};
    *level = MPI_THREAD_SINGLE;
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    for (int k = 0; k < 2; k++) {
        char v[64];
        int flag = 0;
        if (PMPI_Info_get(info, keys[k], (int)sizeof(v) - 1, v, &flag) != MPI_SUCCESS)
            return MPI_ERR_INFO;
        if (!flag)
            continue;
        for (int i = 0; i < SESSION_NLEVELS; i++)
            if (strcasecmp(v, session_levels[i].name) == 0) {
                *level = session_levels[i].level;
                return MPI_SUCCESS;
            }
        return MPI_ERR_INFO_VALUE;
    }
    return MPI_SUCCESS;
}

/* A handler a session may use: predefined, or made by MPI_Session_create_errhandler. */
static mpii_errh_t *session_errh_ok(MPI_Errhandler h)
{
    mpii_errh_t *e = mpii_errh(h);
    return e && (e->kind != MPII_ERRH_USER || e->obj == MPII_OBJ_SESSION) ? e : NULL;
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    const char *fn = "MPI_Session_init";
    mpii_errh_t *e = session_errh_ok(errhandler);
    if (!e)
        return mpii_err_obj(NULL, NULL, MPI_ERR_ERRHANDLER, fn,
                            "invalid error handler for a session");
    MPI_Session nul = MPI_SESSION_NULL;
    if (!session)
        return mpii_err_obj(e, &nul, MPI_ERR_ARG, fn, "session is NULL");
    *session = MPI_SESSION_NULL;
    if (info != MPI_INFO_NULL && !mpii_info(info))
        return mpii_err_obj(e, &nul, MPI_ERR_INFO, fn, "invalid info");
    int level, err = session_info_level(info, &level);
    if (err != MPI_SUCCESS)
        return mpii_err_obj(e, &nul, err, fn, "thread_level names no MPI thread level");
    int provided = MPI_THREAD_SINGLE;
    err = mpii_session_engine_get(level, &provided, fn);
    if (err != MPI_SUCCESS)
        return mpii_err_obj(e, &nul, err, fn,
                            "rmp finalized already (MPI_Finalize with no session live) and "
                            "cannot start again in this process");
    mpii_session_t *s = mpii_obj_new(&session_pool, SESSION_MAGIC);
    if (!s) {
        mpii_session_engine_put();
        return mpii_err_obj(e, &nul, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    mpii_errh_retain(e);
    s->errh = e;
    s->thread_level = provided;
    *session = (MPI_Session)s;
    return MPI_SUCCESS;
}
MPII_WEAK(Session_init)

/* Objects derived from the session (communicators, groups) live on: the engine stays
 * up for them until the program ends or MPI_Finalize stops it. */
int PMPI_Session_finalize(MPI_Session *session)
{
    const char *fn = "MPI_Session_finalize";
    mpii_session_t *s = session ? mpii_session(*session) : NULL;
    if (!s)
        return mpii_err_session(NULL, MPI_ERR_SESSION, fn, "invalid session");
    void *buf;
    MPI_Count size;
    mpii_bs_detach(&s->bs, &buf, &size); /* its buffered messages leave first */
    mpii_errh_release(s->errh);
    mpii_obj_free(&session_pool, s);
    *session = MPI_SESSION_NULL;
    int err = mpii_session_engine_put();
    return err == MPI_SUCCESS ? MPI_SUCCESS
                              : mpii_err_session(NULL, err, fn, "rmp_finalize failed");
}
MPII_WEAK(Session_finalize)

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    const char *fn = "MPI_Session_get_info";
    mpii_session_t *s = mpii_session(session);
    if (!s)
        return mpii_err_session(NULL, MPI_ERR_SESSION, fn, "invalid session");
    if (!info_used)
        return mpii_err_session(s, MPI_ERR_ARG, fn, "info_used is NULL");
    int err = PMPI_Info_create(info_used);
    if (err == MPI_SUCCESS)
        err = PMPI_Info_set(*info_used, "thread_level",
                            mpii_session_level_name(s->thread_level));
    if (err != MPI_SUCCESS)
        return mpii_err_session(s, err, fn, "cannot fill the info");
    return MPI_SUCCESS;
}
MPII_WEAK(Session_get_info)

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    const char *fn = "MPI_Session_set_errhandler";
    mpii_session_t *s = mpii_session(session);
    if (!s)
        return mpii_err_session(NULL, MPI_ERR_SESSION, fn, "invalid session");
    mpii_errh_t *e = session_errh_ok(errhandler);
    if (!e)
        return mpii_err_session(s, MPI_ERR_ERRHANDLER, fn, "invalid error handler for a session");
    mpii_errh_retain(e);
    mpii_errh_release(s->errh);
    s->errh = e;
    return MPI_SUCCESS;
}
MPII_WEAK(Session_set_errhandler)

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_Session_get_errhandler";
    mpii_session_t *s = mpii_session(session);
    if (!s)
        return mpii_err_session(NULL, MPI_ERR_SESSION, fn, "invalid session");
    if (!errhandler)
        return mpii_err_session(s, MPI_ERR_ARG, fn, "errhandler is NULL");
    mpii_errh_retain(s->errh);
    *errhandler = mpii_errh_handle(s->errh);
    return MPI_SUCCESS;
}
MPII_WEAK(Session_get_errhandler)

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    const char *fn = "MPI_Session_call_errhandler";
    mpii_session_t *s = mpii_session(session);
    if (!s)
        return mpii_err_session(NULL, MPI_ERR_SESSION, fn, "invalid session");
    mpii_err_session(s, errorcode, fn, "error code %d raised by the user", errorcode);
    /* MPI_SUCCESS when the handler returned (the call itself succeeded) */
    return MPI_SUCCESS;
}
MPII_WEAK(Session_call_errhandler)

/* ---- a session's buffer for buffered sends (MPI-4.1 3.6) ---- */

static int session_attach(MPI_Session session, void *buffer, MPI_Count size, const char *fn)
{
    mpii_session_t *s = mpii_session(session);
    if (!s)
        return mpii_err_session(NULL, MPI_ERR_SESSION, fn, "invalid session");
    if (mpii_bs_attach(&s->bs, buffer, size) != MPI_SUCCESS)
        return mpii_err_session(s, MPI_ERR_BUFFER, fn,
                                "invalid buffer, or one is attached already");
    return MPI_SUCCESS;
}

MPII_TWINS(Session_attach_buffer, session_attach(session, buffer, size, FN))

/* Detach waits until every message buffered in it has left. */
static int session_detach(MPI_Session session, void *buffer_addr, int *isize,
                          MPI_Count *size, const char *fn)
{
    mpii_session_t *s = mpii_session(session);
    if (!s)
        return mpii_err_session(NULL, MPI_ERR_SESSION, fn, "invalid session");
    if (!buffer_addr || (!isize && !size))
        return mpii_err_session(s, MPI_ERR_ARG, fn, "NULL argument");
    MPI_Count n = 0;
    mpii_bs_detach(&s->bs, (void **)buffer_addr, &n);
    if (size)
        *size = n;
    else
        *isize = n > INT32_MAX ? INT32_MAX : (int)n; /* attached with the _c form */
    return MPI_SUCCESS;
}

MPII_TWINS(Session_detach_buffer, session_detach(session, buffer_addr, TWIN(size, NULL),
           TWIN(NULL, size), FN))

int PMPI_Session_flush_buffer(MPI_Session session)
{
    mpii_session_t *s = mpii_session(session);
    if (!s)
        return mpii_err_session(NULL, MPI_ERR_SESSION, "MPI_Session_flush_buffer",
                                "invalid session");
    mpii_bs_flush(&s->bs);
    return MPI_SUCCESS;
}
MPII_WEAK(Session_flush_buffer)

int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    const char *fn = "MPI_Session_iflush_buffer";
    mpii_session_t *s = mpii_session(session);
    if (!s)
        return mpii_err_session(NULL, MPI_ERR_SESSION, fn, "invalid session");
    if (!request)
        return mpii_err_session(s, MPI_ERR_ARG, fn, "request is NULL");
    int rc = mpii_bs_iflush(&s->bs, &mpii_comm_world, request);
    return rc == MPI_SUCCESS ? rc : mpii_err_session(s, rc, fn, "out of memory");
}
MPII_WEAK(Session_iflush_buffer)

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "session.twins.h"
