/* SPDX-License-Identifier: BSD-3-Clause */
/* Error handlers, error classes and codes, and the one path every MPI error
 * takes (mpii_err_comm / mpii_err_win). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpii_base.h"
#include "mpii_dtype.h"
/* after mpii.h, which includes mpi.h its own way */
#include "mpi-ext.h"

static mpii_errh_t errh_fatal = {MPII_MAGIC_ERRH, 1, MPII_ERRH_FATAL, MPII_OBJ_COMM, NULL};
static mpii_errh_t errh_return = {MPII_MAGIC_ERRH, 1, MPII_ERRH_RETURN, MPII_OBJ_COMM, NULL};
static mpii_errh_t errh_abort = {MPII_MAGIC_ERRH, 1, MPII_ERRH_ABORT, MPII_OBJ_COMM, NULL};
static mpii_pool_t errh_pool = MPII_POOL_INIT(mpii_errh_t);

static const char *const errh_class_names[] = {
    "MPI_SUCCESS", "MPI_ERR_BUFFER", "MPI_ERR_COUNT", "MPI_ERR_TYPE", "MPI_ERR_TAG",
    "MPI_ERR_COMM", "MPI_ERR_RANK", "MPI_ERR_REQUEST", "MPI_ERR_ROOT", "MPI_ERR_GROUP",
    "MPI_ERR_OP", "MPI_ERR_TOPOLOGY", "MPI_ERR_DIMS", "MPI_ERR_ARG", "MPI_ERR_UNKNOWN",
    "MPI_ERR_TRUNCATE", "MPI_ERR_OTHER", "MPI_ERR_INTERN", "MPI_ERR_PENDING",
    "MPI_ERR_IN_STATUS", "MPI_ERR_ACCESS", "MPI_ERR_AMODE", "MPI_ERR_ASSERT",
    "MPI_ERR_BAD_FILE", "MPI_ERR_BASE", "MPI_ERR_CONVERSION", "MPI_ERR_DISP",
    "MPI_ERR_DUP_DATAREP", "MPI_ERR_FILE_EXISTS", "MPI_ERR_FILE_IN_USE", "MPI_ERR_FILE",
    "MPI_ERR_INFO_KEY", "MPI_ERR_INFO_NOKEY", "MPI_ERR_INFO_VALUE", "MPI_ERR_INFO",
    "MPI_ERR_IO", "MPI_ERR_KEYVAL", "MPI_ERR_LOCKTYPE", "MPI_ERR_NAME", "MPI_ERR_NO_MEM",
    "MPI_ERR_NOT_SAME", "MPI_ERR_NO_SPACE", "MPI_ERR_NO_SUCH_FILE", "MPI_ERR_PORT",
    "MPI_ERR_QUOTA", "MPI_ERR_READ_ONLY", "MPI_ERR_RMA_ATTACH", "MPI_ERR_RMA_CONFLICT",
    "MPI_ERR_RMA_RANGE", "MPI_ERR_RMA_SHARED", "MPI_ERR_RMA_SYNC", "MPI_ERR_SERVICE",
    "MPI_ERR_SIZE", "MPI_ERR_SPAWN", "MPI_ERR_UNSUPPORTED_DATAREP",
    "MPI_ERR_UNSUPPORTED_OPERATION", "MPI_ERR_WIN", "MPI_ERR_RMA_FLAVOR",
    "MPI_ERR_PROC_ABORTED", "MPI_ERR_VALUE_TOO_LARGE", "MPI_ERR_SESSION",
    "MPI_ERR_ERRHANDLER", "MPI_ERR_ABI",
    /* mpi-ext.h's (ULFM); the classes between are holes (NULL) */
    [MPIX_ERR_PROC_FAILED] = "MPIX_ERR_PROC_FAILED",
    [MPIX_ERR_PROC_FAILED_PENDING] = "MPIX_ERR_PROC_FAILED_PENDING",
    [MPIX_ERR_REVOKED] = "MPIX_ERR_REVOKED",
};

static const char *const errh_class_text[] = {
    "no error", "invalid buffer pointer", "invalid count argument", "invalid datatype",
    "invalid tag", "invalid communicator", "invalid rank", "invalid request",
    "invalid root", "invalid group", "invalid operation", "invalid topology",
    "invalid dimension argument", "invalid argument", "unknown error",
    "message truncated", "other error", "internal error in rmp", "pending request",
    "error code in status", "permission denied", "invalid file access mode",
    "invalid assertion", "invalid file name", "invalid base", "data conversion error",
    "invalid displacement", "data representation already defined", "file exists",
    "file in use", "invalid file", "invalid info key", "info key not defined",
    "invalid info value", "invalid info object", "I/O error", "invalid keyval",
    "invalid lock type", "name not published", "out of memory",
    "collective argument not the same on all processes", "no space left",
    "no such file", "invalid port", "quota exceeded", "read-only file or file system",
    "memory cannot be attached", "conflicting RMA accesses", "RMA target out of range",
    "memory cannot be shared", "wrong RMA synchronization", "invalid service name",
    "invalid size", "spawn error", "unsupported data representation",
    "operation not supported", "invalid window", "wrong window flavor",
    "a peer process aborted or failed", "value too large for the output",
    "invalid session", "invalid error handler", "ABI mismatch",
    [MPIX_ERR_PROC_FAILED] = "a process of the communicator failed",
    [MPIX_ERR_PROC_FAILED_PENDING] = "a process that could have matched the request failed",
    [MPIX_ERR_REVOKED] = "the communicator was revoked",
};

#define ERRH_NCLASSES ((int)(sizeof(errh_class_names) / sizeof(errh_class_names[0])))
/* A predefined class (not a hole between the standard's and mpi-ext.h's). */
#define ERRH_IS_CLASS(c) ((c) >= 0 && (c) < ERRH_NCLASSES && errh_class_names[c])

/* Classes and codes added with MPI_Add_error_class/code, above MPI_ERR_LASTCODE. */
typedef struct errh_user_code {
    int errclass;
    char *text;
} errh_user_code_t;
static errh_user_code_t *errh_user;
static int errh_nuser;

const char *mpii_err_name(int errclass)
{
    if (ERRH_IS_CLASS(errclass))
        return errh_class_names[errclass];
    if (errclass > MPI_ERR_LASTCODE && errclass <= MPI_ERR_LASTCODE + errh_nuser)
        return "user-defined error";
    return "unknown error class";
}

int mpii_err_from_rmp(int st)
{
    switch (st) {
    case RMP_SUCCESS: return MPI_SUCCESS;
    case RMP_ERR_ARG: return MPI_ERR_ARG;
    case RMP_ERR_NOMEM: return MPI_ERR_NO_MEM;
    case RMP_ERR_TRUNCATE: return MPI_ERR_TRUNCATE;
    case RMP_ERR_ACCESS: return MPI_ERR_RMA_RANGE;
    case RMP_ERR_PEER_FAILED: return MPIX_ERR_PROC_FAILED;
    case RMP_ERR_REVOKED: return MPIX_ERR_REVOKED;
    case RMP_ERR_PEER_FAILED_PENDING: return MPIX_ERR_PROC_FAILED_PENDING;
    case RMP_ERR_NOT_SUPPORTED: return MPI_ERR_UNSUPPORTED_OPERATION;
    case RMP_ERR_INTERNAL: return MPI_ERR_INTERN;
    case RMP_ERR_CANCELLED: return MPI_SUCCESS; /* a cancelled status, not an error */
    case RMP_ERR_TIMEOUT:
    case RMP_ERR_STATE:
    case RMP_ERR_TRANSPORT:
    case RMP_ERR_BOOTSTRAP:
    default: return MPI_ERR_OTHER;
    }
}

/* A removed user code's slot (MPI_Remove_error_code/class): free for the next add. */
#define ERRH_REMOVED (-2)

static int errh_class_of(int code)
{
    if (ERRH_IS_CLASS(code))
        return code;
    if (code > MPI_ERR_LASTCODE && code <= MPI_ERR_LASTCODE + errh_nuser) {
        int cls = errh_user[code - MPI_ERR_LASTCODE - 1].errclass;
        return cls == ERRH_REMOVED ? -1 : cls;
    }
    return -1;
}

mpii_errh_t *mpii_errh(MPI_Errhandler h)
{
    if (h == MPI_ERRORS_ARE_FATAL)
        return &errh_fatal;
    if (h == MPI_ERRORS_RETURN)
        return &errh_return;
    if (h == MPI_ERRORS_ABORT)
        return &errh_abort;
    return mpii_obj_valid(h, MPII_MAGIC_ERRH) ? (mpii_errh_t *)h : NULL;
}

MPI_Errhandler mpii_errh_handle(mpii_errh_t *e)
{
    if (e == &errh_fatal)
        return MPI_ERRORS_ARE_FATAL;
    if (e == &errh_return)
        return MPI_ERRORS_RETURN;
    if (e == &errh_abort)
        return MPI_ERRORS_ABORT;
    return (MPI_Errhandler)e;
}

void mpii_errh_retain(mpii_errh_t *e)
{
    if (e && e->kind == MPII_ERRH_USER)
        e->refs++;
}

void mpii_errh_release(mpii_errh_t *e)
{
    if (e && e->kind == MPII_ERRH_USER && --e->refs == 0)
        mpii_obj_free(&errh_pool, e);
}

/* The world rank for messages, before Init too. */
static int errh_rank(void)
{
    return mpii_state == 1 ? mpii_comm_world.rank : -1;
}

static void errh_die(mpii_comm_t *c, int fatal, int code, const char *fn, const char *msg)
{
    const char *user = code > MPI_ERR_LASTCODE && errh_class_of(code) >= 0
                           ? errh_user[code - MPI_ERR_LASTCODE - 1].text
                           : NULL; /* MPI_Add_error_string's */
    fprintf(stderr, "rmp MPI: %s on rank %d: %s: %s\n", fn, errh_rank(),
            user ? user : mpii_err_name(errh_class_of(code) < 0 ? code : errh_class_of(code)),
            msg);
    fflush(stderr);
    /* ERRORS_ABORT aborts the processes of the communicator (rmp aborts the job),
     * ERRORS_ARE_FATAL all of them. */
    if (mpii_state == 1)
        rmp_abort(!fatal && c && c->rc ? c->rc : mpii_comm_world.rc, code ? code : 1);
    _exit(code ? code : 1);
}

/* The detail of the last error raised per class ("MPI_Foo on rank 0: ..."),
 * which MPI_Error_string appends: the returned code is the class itself, so a
 * program under MPI_ERRORS_RETURN can still learn which call failed and why. */
static char errh_last[ERRH_NCLASSES][160];

static int errh_invoke(mpii_errh_t *e, mpii_comm_t *c, void *objh, int code, const char *fn,
                       const char *msg)
{
    int cls = errh_class_of(code);
    if (cls >= 0 && cls < ERRH_NCLASSES)
        snprintf(errh_last[cls], sizeof(errh_last[cls]), "%s on rank %d: %s", fn, errh_rank(),
                 msg);
    if (!e)
        e = &errh_fatal;
    switch (e->kind) {
    case MPII_ERRH_RETURN:
        return code;
    case MPII_ERRH_USER:
        if (e->obj == MPII_OBJ_COMM) {
            MPI_Comm h = objh ? *(MPI_Comm *)objh : MPI_COMM_WORLD;
            ((MPI_Comm_errhandler_function *)e->fn)(&h, &code, fn, msg);
        } else if (e->obj == MPII_OBJ_WIN) {
            MPI_Win h = objh ? *(MPI_Win *)objh : MPI_WIN_NULL;
            ((MPI_Win_errhandler_function *)e->fn)(&h, &code, fn, msg);
        } else if (e->obj == MPII_OBJ_SESSION) {
            MPI_Session h = objh ? *(MPI_Session *)objh : MPI_SESSION_NULL;
            ((MPI_Session_errhandler_function *)e->fn)(&h, &code, fn, msg);
        } else if (e->obj == MPII_OBJ_FILE) {
            MPI_File h = objh ? *(MPI_File *)objh : MPI_FILE_NULL;
            ((MPI_File_errhandler_function *)e->fn)(&h, &code, fn, msg);
        }
        return code;
    case MPII_ERRH_FATAL:
    case MPII_ERRH_ABORT:
    default:
        errh_die(c, e->kind != MPII_ERRH_ABORT, code, fn, msg);
        return code;
    }
}

int mpii_err_comm(mpii_comm_t *c, int code, const char *fn, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    mpii_comm_t *target = c ? c : &mpii_comm_world;
    MPI_Comm h = mpii_comm_handle(target);
    return errh_invoke(target->errh, target, &h, code, fn, msg);
}

int mpii_err_win(MPI_Win win, mpii_errh_t *errh, int code, const char *fn, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (!errh) /* no window: the error goes to MPI_COMM_WORLD */
        return mpii_err_comm(NULL, code, fn, "%s", msg);
    return errh_invoke(errh, NULL, &win, code, fn, msg);
}

int mpii_err_obj(mpii_errh_t *errh, void *objh, int code, const char *fn, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return errh_invoke(errh, NULL, objh, code, fn, msg);
}

int mpii_err_fileh(MPI_File fh, mpii_errh_t *errh, int code, const char *fn, const char *msg)
{
    return errh_invoke(errh, NULL, &fh, code, fn, msg);
}

int mpii_unsupported(MPI_Comm comm, const char *fn)
{
    mpii_comm_t *c = comm ? mpii_comm(comm) : NULL;
    return mpii_err_comm(c, MPI_ERR_UNSUPPORTED_OPERATION, fn, "%s is not supported by rmp yet",
                         fn);
}

/* ---- Error classes, codes and strings ---- */

int PMPI_Error_class(int errorcode, int *errorclass)
{
    int cls = errh_class_of(errorcode);
    if (cls < 0)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Error_class", "unknown error code %d",
                             errorcode);
    if (!errorclass)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Error_class", "errorclass is NULL");
    *errorclass = cls;
    return MPI_SUCCESS;
}
MPII_WEAK(Error_class)

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    const char *text = NULL;
    if (ERRH_IS_CLASS(errorcode))
        text = errh_class_text[errorcode];
    else if (errh_class_of(errorcode) >= 0)
        text = errh_user[errorcode - MPI_ERR_LASTCODE - 1].text;
    else
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Error_string", "unknown error code %d",
                             errorcode);
    if (!string || !resultlen)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Error_string", "NULL output argument");
    if (errorcode < ERRH_NCLASSES && errh_last[errorcode][0])
        snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s (last: %s)", errh_class_names[errorcode],
                 text, errh_last[errorcode]);
    else if (errorcode < ERRH_NCLASSES)
        snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", errh_class_names[errorcode], text);
    else
        snprintf(string, MPI_MAX_ERROR_STRING, "%s", text ? text : "");
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}
MPII_WEAK(Error_string)

static int errh_add(int errclass, int *out, const char *fn)
{
    if (!out)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "output argument is NULL");
    int slot = 0; /* the first removed one, else a new one */
    while (slot < errh_nuser && errh_user[slot].errclass != ERRH_REMOVED)
        slot++;
    if (slot == errh_nuser) {
        errh_user_code_t *n = realloc(errh_user, (size_t)(errh_nuser + 1) * sizeof(*n));
        if (!n)
            return mpii_err_comm(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        errh_user = n;
        errh_nuser++;
    }
    int code = MPI_ERR_LASTCODE + 1 + slot;
    errh_user[slot] = (errh_user_code_t){errclass < 0 ? code : errclass, NULL};
    *out = code;
    return MPI_SUCCESS;
}

/* The user code's slot, or NULL after reporting: predefined, unknown, or (want_class
 * 1) not a class / (0) a class. */
static errh_user_code_t *errh_user_slot(int code, int want_class, const char *fn)
{
    if (code >= 0 && code <= MPI_ERR_LASTCODE) {
        mpii_err_comm(NULL, MPI_ERR_ARG, fn, "%d is predefined: it cannot be removed", code);
        return NULL;
    }
    int cls = errh_class_of(code);
    if (cls < 0 || (cls == code) != want_class) {
        mpii_err_comm(NULL, MPI_ERR_ARG, fn, "%d is not a user-added error %s", code,
                      want_class ? "class" : "code");
        return NULL;
    }
    return &errh_user[code - MPI_ERR_LASTCODE - 1];
}

static void errh_remove(errh_user_code_t *u)
{
    free(u->text);
    u->text = NULL;
    u->errclass = ERRH_REMOVED;
    while (errh_nuser > 0 && errh_user[errh_nuser - 1].errclass == ERRH_REMOVED)
        errh_nuser--; /* MPI_LASTUSEDCODE comes down again */
}

/* The largest code in use: the MPI_LASTUSEDCODE attribute of MPI_COMM_WORLD. */
int mpii_err_lastused(void)
{
    return MPI_ERR_LASTCODE + errh_nuser;
}

int PMPI_Add_error_class(int *errorclass)
{
    return errh_add(-1, errorclass, "MPI_Add_error_class");
}
MPII_WEAK(Add_error_class)

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    if (errh_class_of(errorclass) != errorclass)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Add_error_code",
                             "%d is not an error class", errorclass);
    return errh_add(errorclass, errorcode, "MPI_Add_error_code");
}
MPII_WEAK(Add_error_code)

int PMPI_Add_error_string(int errorcode, const char *string)
{
    if (errorcode <= MPI_ERR_LASTCODE || errh_class_of(errorcode) < 0)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Add_error_string",
                             "%d is not a user-added error code", errorcode);
    if (!string || strlen(string) >= MPI_MAX_ERROR_STRING)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Add_error_string",
                             "string is NULL or longer than MPI_MAX_ERROR_STRING");
    char *dup = strdup(string);
    if (!dup)
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, "MPI_Add_error_string", "out of memory");
    free(errh_user[errorcode - MPI_ERR_LASTCODE - 1].text);
    errh_user[errorcode - MPI_ERR_LASTCODE - 1].text = dup;
    return MPI_SUCCESS;
}
MPII_WEAK(Add_error_string)

int PMPI_Remove_error_class(int errorclass)
{
    errh_user_code_t *u = errh_user_slot(errorclass, 1, "MPI_Remove_error_class");
    if (!u)
        return MPI_ERR_ARG;
    for (int i = 0; i < errh_nuser; i++)
        if (errh_user[i].errclass == errorclass && MPI_ERR_LASTCODE + 1 + i != errorclass)
            return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Remove_error_class",
                                 "class %d still has error code %d", errorclass,
                                 MPI_ERR_LASTCODE + 1 + i);
    errh_remove(u);
    return MPI_SUCCESS;
}
MPII_WEAK(Remove_error_class)

int PMPI_Remove_error_code(int errorcode)
{
    errh_user_code_t *u = errh_user_slot(errorcode, 0, "MPI_Remove_error_code");
    if (!u)
        return MPI_ERR_ARG;
    errh_remove(u);
    return MPI_SUCCESS;
}
MPII_WEAK(Remove_error_code)

int PMPI_Remove_error_string(int errorcode)
{
    int cls = errh_class_of(errorcode);
    if (errorcode <= MPI_ERR_LASTCODE || cls < 0)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Remove_error_string",
                             "%d is not a user-added error code or class", errorcode);
    errh_user_code_t *u = &errh_user[errorcode - MPI_ERR_LASTCODE - 1];
    free(u->text);
    u->text = NULL;
    return MPI_SUCCESS;
}
MPII_WEAK(Remove_error_string)

/* ---- Error handler objects ---- */

static int errh_create(void (*fn)(void), mpii_obj_kind_t obj, MPI_Errhandler *out,
                       const char *name)
{
    if (!fn || !out)
        return mpii_err_comm(NULL, MPI_ERR_ARG, name, "function or output handle is NULL");
    mpii_errh_t *e = mpii_obj_new(&errh_pool, MPII_MAGIC_ERRH);
    if (!e)
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, name, "out of memory");
    e->refs = 1;
    e->kind = MPII_ERRH_USER;
    e->obj = obj;
    e->fn = fn;
    *out = (MPI_Errhandler)e;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return errh_create((void (*)(void))fn, MPII_OBJ_COMM, errhandler,
                       "MPI_Comm_create_errhandler");
}
MPII_WEAK(Comm_create_errhandler)

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return errh_create((void (*)(void))fn, MPII_OBJ_WIN, errhandler,
                       "MPI_Win_create_errhandler");
}
MPII_WEAK(Win_create_errhandler)

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *fn,
                                   MPI_Errhandler *errhandler)
{
    return errh_create((void (*)(void))fn, MPII_OBJ_SESSION, errhandler,
                       "MPI_Session_create_errhandler");
}
MPII_WEAK(Session_create_errhandler)

int PMPI_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return errh_create((void (*)(void))fn, MPII_OBJ_FILE, errhandler,
                       "MPI_File_create_errhandler");
}
MPII_WEAK(File_create_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    mpii_errh_t *e = errhandler ? mpii_errh(*errhandler) : NULL;
    if (!e)
        return mpii_err_comm(NULL, MPI_ERR_ERRHANDLER, "MPI_Errhandler_free",
                             "invalid error handler");
    mpii_errh_release(e);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
MPII_WEAK(Errhandler_free)

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, "MPI_Comm_set_errhandler",
                             "invalid communicator");
    mpii_errh_t *e = mpii_errh(errhandler);
    if (!e || (e->kind == MPII_ERRH_USER && e->obj != MPII_OBJ_COMM))
        return mpii_err_comm(c, MPI_ERR_ERRHANDLER, "MPI_Comm_set_errhandler",
                             "invalid error handler for a communicator");
    mpii_errh_retain(e);
    mpii_errh_release(c->errh);
    c->errh = e;
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, "MPI_Comm_get_errhandler",
                             "invalid communicator");
    if (!errhandler)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Comm_get_errhandler", "errhandler is NULL");
    mpii_errh_retain(c->errh);
    *errhandler = mpii_errh_handle(c->errh);
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_get_errhandler)

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, "MPI_Comm_call_errhandler",
                             "invalid communicator");
    mpii_err_comm(c, errorcode, "MPI_Comm_call_errhandler", "error code %d raised by the user",
                  errorcode);
    /* MPI_SUCCESS when the handler returned (standard: the call itself succeeded) */
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_call_errhandler)
