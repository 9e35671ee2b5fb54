/* SPDX-License-Identifier: BSD-3-Clause */
/* Info objects: ordered (key, value) string pairs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpii_base.h"
#include "mpii_rma.h"

struct mpii_info {
    uint32_t magic;
    int n, cap;
    char **keys, **vals;
};

static mpii_pool_t info_pool = MPII_POOL_INIT(mpii_info_t);
/* MPI_INFO_ENV: the standard's keys about how the job was started. */
static mpii_info_t info_env = {MPII_MAGIC_INFO, 0, 0, NULL, NULL};

mpii_info_t *mpii_info(MPI_Info h)
{
    if (h == MPI_INFO_ENV)
        return &info_env;
    return mpii_obj_valid(h, MPII_MAGIC_INFO) ? (mpii_info_t *)h : NULL;
}

static int info_find(const mpii_info_t *in, const char *key)
{
    for (int i = 0; i < in->n; i++)
        if (strcmp(in->keys[i], key) == 0)
            return i;
    return -1;
}

static int info_put(mpii_info_t *in, const char *key, const char *val)
{
    int i = info_find(in, key);
    char *v = strdup(val);
    if (!v)
        return MPI_ERR_NO_MEM;
    if (i >= 0) {
        free(in->vals[i]);
        in->vals[i] = v;
        return MPI_SUCCESS;
    }
    if (in->n == in->cap) {
        int cap = in->cap ? 2 * in->cap : 8;
        char **k = realloc(in->keys, (size_t)cap * sizeof(char *));
        if (k)
            in->keys = k;
        char **vv = k ? realloc(in->vals, (size_t)cap * sizeof(char *)) : NULL;
        if (!vv) {
            free(v);
            return MPI_ERR_NO_MEM;
        }
        in->vals = vv;
        in->cap = cap;
    }
    in->keys[in->n] = strdup(key);
    if (!in->keys[in->n]) {
        free(v);
        return MPI_ERR_NO_MEM;
    }
    in->vals[in->n++] = v;
    return MPI_SUCCESS;
}

static void info_clear(mpii_info_t *in)
{
    for (int i = 0; i < in->n; i++) {
        free(in->keys[i]);
        free(in->vals[i]);
    }
    free(in->keys);
    free(in->vals);
    in->keys = in->vals = NULL;
    in->n = in->cap = 0;
}

static int info_new(MPI_Info *out, mpii_info_t **in, const char *fn)
{
    if (!out)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "output handle is NULL");
    *in = mpii_obj_new(&info_pool, MPII_MAGIC_INFO);
    if (!*in)
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    *out = (MPI_Info)*in;
    return MPI_SUCCESS;
}

#define INFO_GET(h, in, fn)                                                            \
    mpii_info_t *in = mpii_info(h);                                                    \
    if (MPII_UNLIKELY(!in))                                                            \
        return mpii_err_comm(NULL, MPI_ERR_INFO, fn, "invalid info %p", (void *)(h));

static int info_check_key(const char *key, const char *fn)
{
    if (!key)
        return mpii_err_comm(NULL, MPI_ERR_INFO_KEY, fn, "key is NULL");
    size_t len = strlen(key);
    if (len == 0 || len >= MPI_MAX_INFO_KEY)
        return mpii_err_comm(NULL, MPI_ERR_INFO_KEY, fn,
                             "key is empty or longer than MPI_MAX_INFO_KEY - 1 (%zu)", len);
    return MPI_SUCCESS;
}

int PMPI_Info_create(MPI_Info *info)
{
    mpii_info_t *in;
    return info_new(info, &in, "MPI_Info_create");
}
MPII_WEAK(Info_create)

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    INFO_GET(info, in, "MPI_Info_set");
    if (in == &info_env)
        return mpii_err_comm(NULL, MPI_ERR_INFO, "MPI_Info_set", "MPI_INFO_ENV is read-only");
    int err = info_check_key(key, "MPI_Info_set");
    if (err != MPI_SUCCESS)
        return err;
    if (!value || strlen(value) >= MPI_MAX_INFO_VAL)
        return mpii_err_comm(NULL, MPI_ERR_INFO_VALUE, "MPI_Info_set",
                             "value is NULL or longer than MPI_MAX_INFO_VAL - 1");
    err = info_put(in, key, value);
    return err ? mpii_err_comm(NULL, err, "MPI_Info_set", "out of memory") : MPI_SUCCESS;
}
MPII_WEAK(Info_set)

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    INFO_GET(info, in, "MPI_Info_delete");
    int err = info_check_key(key, "MPI_Info_delete");
    if (err != MPI_SUCCESS)
        return err;
    int i = info_find(in, key);
    if (i < 0)
        return mpii_err_comm(NULL, MPI_ERR_INFO_NOKEY, "MPI_Info_delete", "no key '%s'", key);
    free(in->keys[i]);
    free(in->vals[i]);
    memmove(&in->keys[i], &in->keys[i + 1], (size_t)(in->n - i - 1) * sizeof(char *));
    memmove(&in->vals[i], &in->vals[i + 1], (size_t)(in->n - i - 1) * sizeof(char *));
    in->n--;
    return MPI_SUCCESS;
}
MPII_WEAK(Info_delete)

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    INFO_GET(info, in, "MPI_Info_get");
    int err = info_check_key(key, "MPI_Info_get");
    if (err != MPI_SUCCESS)
        return err;
    if (valuelen < 0 || !value || !flag)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Info_get", "invalid output argument");
    int i = info_find(in, key);
    *flag = i >= 0;
    if (i >= 0) { /* valuelen excludes the terminating NUL (MPI-3 semantics) */
        size_t n = strnlen(in->vals[i], (size_t)valuelen);
        memcpy(value, in->vals[i], n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}
MPII_WEAK(Info_get)

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    INFO_GET(info, in, "MPI_Info_get_valuelen");
    int err = info_check_key(key, "MPI_Info_get_valuelen");
    if (err != MPI_SUCCESS)
        return err;
    if (!valuelen || !flag)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Info_get_valuelen", "NULL output");
    int i = info_find(in, key);
    *flag = i >= 0;
    if (i >= 0)
        *valuelen = (int)strlen(in->vals[i]);
    return MPI_SUCCESS;
}
MPII_WEAK(Info_get_valuelen)

int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    INFO_GET(info, in, "MPI_Info_get_string");
    int err = info_check_key(key, "MPI_Info_get_string");
    if (err != MPI_SUCCESS)
        return err;
    if (!buflen || *buflen < 0 || (*buflen > 0 && !value) || !flag)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Info_get_string",
                             "invalid buffer length or NULL argument");
    int i = info_find(in, key);
    *flag = i >= 0;
    if (i < 0)
        return MPI_SUCCESS;
    int len = (int)strlen(in->vals[i]);
    /* copies at most *buflen - 1 characters; *buflen becomes the size needed */
    if (*buflen > 0) {
        int n = len < *buflen - 1 ? len : *buflen - 1;
        memcpy(value, in->vals[i], (size_t)n);
        value[n] = '\0';
    }
    *buflen = len + 1;
    return MPI_SUCCESS;
}
MPII_WEAK(Info_get_string)

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    INFO_GET(info, in, "MPI_Info_get_nkeys");
    if (!nkeys)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Info_get_nkeys", "nkeys is NULL");
    *nkeys = in->n;
    return MPI_SUCCESS;
}
MPII_WEAK(Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    INFO_GET(info, in, "MPI_Info_get_nthkey");
    if (n < 0 || n >= in->n || !key)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Info_get_nthkey",
                             "key number %d out of range (%d keys) or NULL key", n, in->n);
    snprintf(key, MPI_MAX_INFO_KEY, "%s", in->keys[n]);
    return MPI_SUCCESS;
}
MPII_WEAK(Info_get_nthkey)

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    INFO_GET(info, in, "MPI_Info_dup");
    mpii_info_t *out;
    int err = info_new(newinfo, &out, "MPI_Info_dup");
    for (int i = 0; i < in->n && err == MPI_SUCCESS; i++)
        err = info_put(out, in->keys[i], in->vals[i]);
    if (err != MPI_SUCCESS && out) {
        info_clear(out);
        mpii_obj_free(&info_pool, out);
        *newinfo = MPI_INFO_NULL;
        return mpii_err_comm(NULL, err, "MPI_Info_dup", "out of memory");
    }
    return err;
}
MPII_WEAK(Info_dup)

int PMPI_Info_free(MPI_Info *info)
{
    mpii_info_t *in = info ? mpii_info(*info) : NULL;
    if (!in || in == &info_env)
        return mpii_err_comm(NULL, MPI_ERR_INFO, "MPI_Info_free", "invalid info");
    info_clear(in);
    mpii_obj_free(&info_pool, in);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
MPII_WEAK(Info_free)

/* The library's ABI facts (MPI-5.0 section 20.3). */
int PMPI_Abi_get_info(MPI_Info *info)
{
    mpii_info_t *in;
    int err = info_new(info, &in, "MPI_Abi_get_info");
    if (err != MPI_SUCCESS)
        return err;
    char buf[32];
    snprintf(buf, sizeof(buf), "%zu", sizeof(MPI_Aint));
    err |= info_put(in, "mpi_aint_size", buf);
    snprintf(buf, sizeof(buf), "%zu", sizeof(MPI_Count));
    err |= info_put(in, "mpi_count_size", buf);
    snprintf(buf, sizeof(buf), "%zu", sizeof(MPI_Offset));
    err |= info_put(in, "mpi_offset_size", buf);
    err |= info_put(in, "mpi_abi_version", "1.0");
    err |= info_put(in, "library", "rmp " RMP_VERSION_STRING);
    if (err) {
        info_clear(in);
        mpii_obj_free(&info_pool, in);
        *info = MPI_INFO_NULL;
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, "MPI_Abi_get_info", "out of memory");
    }
    return MPI_SUCCESS;
}
MPII_WEAK(Abi_get_info)

/* The standard's keys about how this process was started (MPI_INFO_ENV and
 * MPI_Info_create_env): command, argv, maxprocs, wdir, host, thread_level. */
static int info_fill_env(mpii_info_t *in, int argc, char **argv)
{
    char buf[MPI_MAX_INFO_VAL];
    int err = 0;
    const char *cmd = argc > 0 && argv && argv[0] ? argv[0] : program_invocation_name;
    err |= info_put(in, "command", cmd ? cmd : "");
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 1; i < argc && argv && argv[i]; i++) {
        int n = snprintf(buf + used, sizeof(buf) - used, "%s%s", i > 1 ? " " : "", argv[i]);
        if (n < 0 || (size_t)n >= sizeof(buf) - used)
            break; /* cut at MPI_MAX_INFO_VAL */
        used += (size_t)n;
    }
    err |= info_put(in, "argv", buf);
    snprintf(buf, sizeof(buf), "%d", mpii_state == 1 ? mpii_comm_world.size : 1);
    err |= info_put(in, "maxprocs", buf);
    if (getcwd(buf, sizeof(buf)))
        err |= info_put(in, "wdir", buf);
    if (gethostname(buf, sizeof(buf)) == 0) {
        buf[sizeof(buf) - 1] = '\0';
        err |= info_put(in, "host", buf);
    }
    int level = MPI_THREAD_SINGLE;
    if (mpii_state == 1)
        PMPI_Query_thread(&level);
    err |= info_put(in, "thread_level", level == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED"
                                                                      : "MPI_THREAD_SINGLE");
    return err ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

int mpii_info_env_init(int argc, char **argv)
{
    info_clear(&info_env);
    return info_fill_env(&info_env, argc, argv);
}

int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    mpii_info_t *in;
    int err = info_new(info, &in, "MPI_Info_create_env");
    if (err != MPI_SUCCESS)
        return err;
    if (info_fill_env(in, argc, argv) != MPI_SUCCESS) {
        info_clear(in);
        mpii_obj_free(&info_pool, in);
        *info = MPI_INFO_NULL;
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, "MPI_Info_create_env", "out of memory");
    }
    return MPI_SUCCESS;
}
MPII_WEAK(Info_create_env)

/* No info key changes a communicator's behaviour: set checks the object,
 * get returns a new empty info (the hints in use). */
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    mpii_check_init("MPI_Comm_set_info");
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, "MPI_Comm_set_info", "invalid communicator");
    if (!mpii_info(info))
        return mpii_err_comm(c, MPI_ERR_INFO, "MPI_Comm_set_info", "invalid info");
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    mpii_check_init("MPI_Comm_get_info");
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, "MPI_Comm_get_info", "invalid communicator");
    mpii_info_t *in;
    return info_new(info_used, &in, "MPI_Comm_get_info");
}
MPII_WEAK(Comm_get_info)

/* rmp takes no window hints: set checks its arguments, get returns an empty info (the
 * hints in use), as for communicators. */
int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    mpii_check_init("MPI_Win_set_info");
    mpii_win_t *w = mpii_win(win);
    if (!w)
        return MPII_WIN_ERR(NULL, MPI_ERR_WIN, "MPI_Win_set_info", "invalid window");
    if (!mpii_info(info))
        return MPII_WIN_ERR(w, MPI_ERR_INFO, "MPI_Win_set_info", "invalid info");
    return MPI_SUCCESS;
}
MPII_WEAK(Win_set_info)

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    mpii_check_init("MPI_Win_get_info");
    mpii_win_t *w = mpii_win(win);
    if (!w)
        return MPII_WIN_ERR(NULL, MPI_ERR_WIN, "MPI_Win_get_info", "invalid window");
    mpii_info_t *in;
    return info_new(info_used, &in, "MPI_Win_get_info");
}
MPII_WEAK(Win_get_info)
