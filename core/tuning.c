/* SPDX-License-Identifier: BSD-3-Clause */
/* Tuning files: parse RMP_TUNING_FILE, apply it, and check that every rank of the job
 * runs the same collective table. The format is line based (docs/tuning.md):
 *   version 1
 *   shm rndv_threshold 32k
 *   allreduce ranks<=4 nodes=1 bytes<=256k recursive_doubling
 * Every error names the file and line, so a bad file stops rmp_init with a message the
 * user can act on instead of a job that silently runs untuned. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "bootstrap.h"
#include "config.h"
#include "log.h"
#include "rmpi.h"
#include "tune_default.h"
#include "tl_registry.h"
#include "tuning.h"

#define TUNING_MAX_WORDS 16

const char rmpi_tuning_default_file[] = RMPI_TUNE_DEFAULT_FILE;

/* A transport the tuning file may name (every registered one but self, built or
 * not: one file serves every build), or NULL. */
static const rmpi_tl_entry_t *tuning_tl(const char *name)
{
    const rmpi_tl_entry_t *e = rmpi_tl_lookup(name, strlen(name));
    return e == &rmpi_tl_registry[0] ? NULL : e;
}

static const rmpi_param_t *tuning_param(const rmpi_tl_iface_t *t, const char *name)
{
    for (const rmpi_param_t *p = t->params; p && p->name; p++)
        if (strcmp(p->name, name) == 0)
            return p;
    return NULL;
}

/* ", buf_bytes": the transport's own keys, for messages. */
static void tuning_keys(const rmpi_tl_entry_t *e, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (const rmpi_tl_tune_key_t *k = e->iface ? e->iface->tune_keys : NULL; k && k->key; k++)
        o += (size_t)snprintf(buf + o, o < len ? len - o : 0, ", %s", k->key);
}

__attribute__((format(printf, 5, 6))) static int
tuning_fail(char *err, size_t errlen, const char *path, int line, const char *fmt, ...)
{
    int o = snprintf(err, errlen, "%s:%d: ", path, line);
    if (o >= 0 && (size_t)o < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + o, errlen - (size_t)o, fmt, ap);
        va_end(ap);
    }
    return RMP_ERR_ARG;
}

/* "shm rndv_threshold 32k", "shm buf_bytes 32k": rndv_threshold for every
 * transport, the rest from the transport's tune_keys. */
static int tuning_p2p(const char *path, int line, char **w, int nw, rmpi_tuning_t *t, char *err,
                      size_t errlen)
{
    const rmpi_tl_entry_t *e = tuning_tl(w[0]);
    int tl = (int)(e - rmpi_tl_registry);
    char keys[128];
    size_t v;
    tuning_keys(e, keys, sizeof(keys));
    if (nw != 3)
        return tuning_fail(err, errlen, path, line,
                           "expected '%s KEY SIZE' (KEY: rndv_threshold%s)", w[0], keys);
    if (strcmp(w[1], "rndv_threshold") == 0) {
        if (rmpi_parse_size(w[2], &v) != RMP_SUCCESS || v == 0)
            return tuning_fail(err, errlen, path, line,
                               "'%s' is not a size above 0 (bytes, optionally with k, m or g)",
                               w[2]);
        t->rndv[tl] = v;
        return RMP_SUCCESS;
    }
    const rmpi_tl_tune_key_t *k = e->iface ? e->iface->tune_keys : NULL;
    while (k && k->key && strcmp(k->key, w[1]) != 0)
        k++;
    const rmpi_param_t *p = k && k->key ? tuning_param(e->iface, k->param) : NULL;
    if (!p)
        return tuning_fail(err, errlen, path, line, "unknown %s setting '%s' (valid: "
                           "rndv_threshold%s)", w[0], w[1], keys);
    /* Parse once here, so that a bad value names the file and line. */
    rmpi_param_t at0 = *p;
    _Alignas(max_align_t) char scratch[512];
    at0.offset = 0;
    if (strlen(w[2]) >= sizeof(t->sets[0].value) || p->size > sizeof(scratch) ||
        rmpi_config_set(scratch, &at0, w[2]) != RMP_SUCCESS ||
        (p->type == RMPI_PT_SIZE && rmpi_parse_size(w[2], &v) == RMP_SUCCESS && v == 0))
        return tuning_fail(err, errlen, path, line, "'%s' is not a valid %s %s (%s)", w[2],
                           w[0], w[1], p->help);
    if (t->nsets == RMPI_TUNE_MAX_SETS)
        return tuning_fail(err, errlen, path, line, "more than %d transport settings",
                           RMPI_TUNE_MAX_SETS);
    rmpi_tune_set_t *set = &t->sets[t->nsets++];
    set->tl = tl;
    set->param = p;
    snprintf(set->value, sizeof(set->value), "%s", w[2]);
    return RMP_SUCCESS;
}

#define TUNING_MAX_SECTIONS 4
static const rmpi_tune_section_t *tuning_sections[TUNING_MAX_SECTIONS];
static int tuning_nsections;

int rmpi_tuning_register(const rmpi_tune_section_t *sec)
{
    if (tuning_nsections == TUNING_MAX_SECTIONS)
        return RMP_ERR_NOMEM;
    tuning_sections[tuning_nsections++] = sec;
    return RMP_SUCCESS;
}

static void tuning_begin(void)
{
    for (int i = 0; i < tuning_nsections; i++)
        tuning_sections[i]->begin();
}

static int tuning_line(const char *path, int line, char **w, int nw, rmpi_tuning_t *t,
                       char *err, size_t errlen)
{
    if (strcmp(w[0], "version") == 0) {
        if (nw != 2 || strcmp(w[1], "1") != 0)
            return tuning_fail(err, errlen, path, line,
                               "unsupported version line (this rmp reads 'version 1')");
        return RMP_SUCCESS;
    }
    if (tuning_tl(w[0]))
        return tuning_p2p(path, line, w, nw, t, err, errlen);
    char msg[384], what[384] = "";
    for (int i = 0; i < tuning_nsections; i++) {
        const rmpi_tune_section_t *sec = tuning_sections[i];
        if (sec->claims(w[0])) {
            if (sec->line(line, w, nw, msg, sizeof(msg)) == RMP_SUCCESS)
                return RMP_SUCCESS;
            return tuning_fail(err, errlen, path, line, "%s", msg);
        }
        size_t o = strlen(what);
        snprintf(what + o, sizeof(what) - o, "; or %s", sec->what);
    }
    return tuning_fail(err, errlen, path, line,
                       "unknown keyword '%s' (expected version; a transport: %s%s)", w[0],
                       rmpi_tl_names(), what);
}

int rmpi_tuning_parse(const char *path, rmpi_tuning_t *t, char *err, size_t errlen)
{
    int rc = RMP_SUCCESS, line = 0;
    char buf[512];
    memset(t, 0, sizeof(*t));
    tuning_begin();
    if (strlen(path) >= sizeof(t->path)) {
        snprintf(err, errlen, "%.64s...: path longer than %zu characters", path,
                 sizeof(t->path) - 1);
        return RMP_ERR_ARG;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return RMP_ERR_ARG;
    }
    while (rc == RMP_SUCCESS && fgets(buf, sizeof(buf), f)) {
        line++;
        size_t len = strlen(buf);
        if (len == sizeof(buf) - 1 && buf[len - 1] != '\n' && !feof(f)) {
            rc = tuning_fail(err, errlen, path, line, "line longer than %zu characters",
                             sizeof(buf) - 2);
            break;
        }
        buf[strcspn(buf, "#")] = '\0';
        char *w[TUNING_MAX_WORDS], *save = NULL;
        int nw = 0;
        for (char *tok = strtok_r(buf, " \t\r\n", &save); tok && rc == RMP_SUCCESS;
             tok = strtok_r(NULL, " \t\r\n", &save)) {
            if (nw == TUNING_MAX_WORDS)
                rc = tuning_fail(err, errlen, path, line, "more than %d words",
                                 TUNING_MAX_WORDS);
            else
                w[nw++] = tok;
        }
        if (rc == RMP_SUCCESS && nw > 0)
            rc = tuning_line(path, line, w, nw, t, err, errlen);
    }
    if (rc == RMP_SUCCESS && ferror(f)) {
        snprintf(err, errlen, "%s: read error after line %d", path, line);
        rc = RMP_ERR_ARG;
    }
    fclose(f);
    if (rc == RMP_SUCCESS)
        snprintf(t->path, sizeof(t->path), "%s", path);
    return rc;
}

int rmpi_tuning_load(rmpi_engine_t *e)
{
    char err[512];
    int rc = RMP_SUCCESS;
    memset(&e->tuning, 0, sizeof(e->tuning));
    if (e->cfg.tuning_file[0])
        rc = rmpi_tuning_parse(e->cfg.tuning_file, &e->tuning, err, sizeof(err));
    if (rc != RMP_SUCCESS) {
        rmpi_error("RMP_TUNING_FILE: %s", err);
        memset(&e->tuning, 0, sizeof(e->tuning));
        tuning_begin();
        goto out;
    }
    if (!e->cfg.tuning_file[0])
        tuning_begin();
    for (int i = 0; i < tuning_nsections && rc == RMP_SUCCESS; i++) {
        rc = tuning_sections[i]->install(err, sizeof(err));
        if (rc != RMP_SUCCESS)
            rmpi_error("%s%s%s", e->tuning.path, e->tuning.path[0] ? ": " : "", err);
    }
    if (rc != RMP_SUCCESS)
        goto out;
    for (size_t i = 0; i < e->tuning.nsets; i++) {
        const rmpi_tune_set_t *set = &e->tuning.sets[i];
        const rmpi_tl_iface_t *tl = rmpi_tl_registry[set->tl].iface;
        if (!rmpi_config_from_env(&e->cfg, set->param->name))
            (void)rmpi_config_set(tl->param_values, set->param, set->value);
    }
    if (e->tuning.path[0])
        rmpi_debug("tuning file %s in force", e->tuning.path);
out:
    return rc;
}

size_t rmpi_tuning_rndv(rmpi_engine_t *e, const char *tl, size_t dflt, rmpi_from_t *from)
{
    rmpi_from_t f = RMPI_FROM_DEFAULT;
    size_t v = dflt;
    const rmpi_tl_entry_t *te = tuning_tl(tl);
    int i = te ? (int)(te - rmpi_tl_registry) : -1;
    if (e->cfg.rndv_threshold > 0) {
        f = RMPI_FROM_ENV;
        v = e->cfg.rndv_threshold;
    } else if (i >= 0 && e->tuning.rndv[i] > 0) {
        f = RMPI_FROM_FILE;
        v = e->tuning.rndv[i];
    }
    if (from)
        *from = f;
    return v;
}

rmpi_from_t rmpi_tuning_param_from(rmpi_engine_t *e, const char *name)
{
    if (rmpi_config_from_env(&e->cfg, name))
        return RMPI_FROM_ENV;
    for (size_t i = 0; i < e->tuning.nsets; i++)
        if (strcmp(e->tuning.sets[i].param->name, name) == 0)
            return RMPI_FROM_FILE;
    return RMPI_FROM_DEFAULT;
}

const char *rmpi_tuning_from_name(rmpi_from_t from)
{
    switch (from) {
    case RMPI_FROM_ENV: return "environment";
    case RMPI_FROM_FILE: return "tuning file";
    default: return "default";
    }
}

/* FNV-1a over what every section has in force. */
static uint64_t tuning_hash(void)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < tuning_nsections; i++)
        h = tuning_sections[i]->hash(h);
    return h;
}

int rmpi_tuning_publish(void)
{
    uint64_t h = tuning_hash();
    return rmpi_boot_put("rmp.tune", &h, sizeof(h));
}

int rmpi_tuning_check(rmpi_engine_t *e)
{
    void *data = NULL;
    size_t len = 0;
    if (e->job.rank == 0)
        return RMP_SUCCESS;
    int rc = rmpi_boot_get(0, "rmp.tune", &data, &len);
    if (rc != RMP_SUCCESS)
        goto out;
    uint64_t mine = tuning_hash(), theirs = 0;
    if (len == sizeof(theirs))
        memcpy(&theirs, data, sizeof(theirs));
    if (len != sizeof(theirs) || theirs != mine) {
        rmpi_error("the collective table differs from rank 0's (RMP_TUNING_FILE=%s here): every "
                   "rank must read the same tuning file, or collectives would hang",
                   e->tuning.path[0] ? e->tuning.path : "unset");
        rc = RMP_ERR_ARG;
    }
out:
    free(data);
    return rc;
}
