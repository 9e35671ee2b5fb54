/* SPDX-License-Identifier: BSD-3-Clause */
/* The RMP_* parameter parser (core/config.c). Input: lines, each one
 * environment entry "NAME=VALUE" (or anything else).
 * Contract: every parser accepts only what its type allows and returns the
 * value the text denotes (sizes recomputed here in 128 bits, integers with
 * strtoll); a loaded configuration holds NUL-terminated strings that fit
 * their field and enum indices among the choices, and each value set from
 * the environment formats back to text that parses to the same value;
 * did-you-mean suggests only real names; an error names the variable. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "fuzz.h"
#include "log.h"
#include "rmp.h"

static int table_has(const char *name)
{
    rmpi_config_t scratch;
    rmpi_param_set_t sets[RMPI_PARAM_SETS_MAX];
    int n = rmpi_config_sets(&scratch, sets);
    for (int s = 0; s < n; s++)
        for (const rmpi_param_t *p = sets[s].params; p->name; p++)
            if (strcmp(p->name, name) == 0)
                return 1;
    return 0;
}

/* Every sentence the validator writes names an RMP_* variable first. */
static void on_report(bool is_error, const char *sentence, void *arg)
{
    (void)is_error;
    (*(int *)arg)++;
    FUZZ_CHECK(strncmp(sentence, "RMP_", 4) == 0);
    /* The suggestion ends the unknown-variable sentence: "...: unknown variable (did
     * you mean X?)". The value echoed earlier may contain the same words, so take the
     * last occurrence, and only in a sentence that ends that way. */
    static const char key[] = ": unknown variable (did you mean ";
    size_t len = strlen(sentence);
    const char *mean = NULL;
    for (const char *m = sentence; (m = strstr(m, key)) != NULL; m++)
        mean = m;
    if (mean && len >= 2 && strcmp(sentence + len - 2, "?)") == 0) {
        char sugg[128];
        const char *name = mean + sizeof(key) - 1;
        snprintf(sugg, sizeof(sugg), "%.*s", (int)(sentence + len - 2 - name), name);
        FUZZ_CHECK(table_has(sugg));
    }
}

static void check_size(const char *s)
{
    size_t v = 0;
    if (rmpi_parse_size(s, &v) != RMP_SUCCESS)
        return;
    unsigned __int128 n = 0;
    const char *p = s;
    for (; isdigit((unsigned char)*p); p++) {
        n = n * 10 + (unsigned)(*p - '0');
        FUZZ_CHECK(n <= (unsigned __int128)SIZE_MAX);
    }
    FUZZ_CHECK(p > s);
    int c = tolower((unsigned char)*p);
    if (c) {
        FUZZ_CHECK(c == 'k' || c == 'm' || c == 'g');
        n <<= c == 'k' ? 10 : c == 'm' ? 20 : 30;
        p++;
        if (*p == 'b' || *p == 'B')
            p++;
    }
    FUZZ_CHECK(*p == '\0' && n == (unsigned __int128)v);
}

static void check_int(const char *s)
{
    int v = 0;
    if (rmpi_parse_int(s, &v) != RMP_SUCCESS)
        return;
    char *end;
    errno = 0;
    long long w = strtoll(s, &end, 10);
    FUZZ_CHECK(errno == 0 && *end == '\0' && w == v && !isspace((unsigned char)*s));
}

static void check_bool(const char *s)
{
    bool v;
    if (rmpi_parse_bool(s, &v) != RMP_SUCCESS)
        return;
    static const char *const yes[] = {"1", "y", "yes", "true", "on"};
    int is_yes = 0;
    for (size_t i = 0; i < 5; i++)
        is_yes |= strcasecmp(s, yes[i]) == 0;
    FUZZ_CHECK(v == (bool)is_yes);
}

static void check_double(const char *s)
{
    double v;
    if (rmpi_parse_double(s, &v) == RMP_SUCCESS)
        FUZZ_CHECK(isfinite(v) && v >= 0);
}

static void check_enum(const char *s)
{
    static const char choices[] = "error|warn|info|debug|trace";
    static const char *const each[] = {"error", "warn", "info", "debug", "trace"};
    int idx = -1;
    if (rmpi_parse_enum(s, choices, &idx) == RMP_SUCCESS)
        FUZZ_CHECK(idx >= 0 && idx < 5 && strcasecmp(s, each[idx]) == 0);
}

/* Format the value of p (in values) and parse it back: the same value. */
static void check_roundtrip(const void *values, const rmpi_param_t *p)
{
    char text[512];
    rmpi_config_format(values, p, text, sizeof(text));
    const void *src = (const char *)values + p->offset;
    switch (p->type) {
    case RMPI_PT_BOOL: {
        bool b;
        FUZZ_CHECK(rmpi_parse_bool(text, &b) == RMP_SUCCESS && b == *(const bool *)src);
        break;
    }
    case RMPI_PT_INT: {
        int i;
        FUZZ_CHECK(rmpi_parse_int(text, &i) == RMP_SUCCESS && i == *(const int *)src);
        break;
    }
    case RMPI_PT_SIZE: {
        size_t z;
        FUZZ_CHECK(rmpi_parse_size(text, &z) == RMP_SUCCESS && z == *(const size_t *)src);
        break;
    }
    case RMPI_PT_ENUM: {
        int e;
        FUZZ_CHECK(rmpi_parse_enum(text, p->choices, &e) == RMP_SUCCESS &&
                   e == *(const int *)src);
        break;
    }
    case RMPI_PT_STRING:
        FUZZ_CHECK(strnlen(src, p->size) < p->size && strcmp(text, src) == 0);
        break;
    case RMPI_PT_DOUBLE:
        FUZZ_CHECK(isfinite(*(const double *)src) && *(const double *)src >= 0);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rmpi_log_level = -1;
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    char *env[17];
    int n = 0;
    for (char *line = text; n < 16;) {
        env[n++] = line;
        char *nl = strchr(line, '\n');
        if (!nl)
            break;
        *nl = '\0';
        line = nl + 1;
    }
    env[n] = NULL;
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(env[i], '=');
        const char *val = eq ? eq + 1 : env[i];
        check_size(val);
        check_int(val);
        check_bool(val);
        check_double(val);
        check_enum(val);
        if (eq && eq - env[i] < 128) { /* the name, as the loader passes it */
            char name[128];
            snprintf(name, sizeof(name), "%.*s", (int)(eq - env[i]), env[i]);
            const char *sug = rmpi_config_suggest(name);
            FUZZ_CHECK(sug == NULL || table_has(sug));
            if (table_has(name))
                FUZZ_CHECK(sug && strcmp(sug, name) == 0); /* distance 0 wins */
        }
    }
    rmpi_config_t cfg;
    char err[256];
    memset(err, 0x7f, sizeof(err));
    int rc = rmpi_config_load_from(env, &cfg, err, sizeof(err), NULL);
    int reports = 0;
    int nerr = rmpi_config_check_env(env, &cfg, on_report, &reports);
    FUZZ_CHECK((nerr == 0) == (rc == RMP_SUCCESS) && reports >= nerr);
    if (rc != RMP_SUCCESS) {
        FUZZ_CHECK(rc == RMP_ERR_ARG && memchr(err, '\0', sizeof(err)) != NULL);
        FUZZ_CHECK(strncmp(err, "RMP_", 4) == 0 &&
                   (strstr(err, "is malformed") != NULL || strstr(err, "out of range") ||
                    strstr(err, "unknown variable") || strstr(err, "is not one of") ||
                    strstr(err, "unknown transport")));
    } else {
        rmpi_param_set_t sets[RMPI_PARAM_SETS_MAX];
        int n = rmpi_config_sets(&cfg, sets);
        for (int s = 0; s < n; s++)
            for (const rmpi_param_t *p = sets[s].params; p->name; p++)
                check_roundtrip(sets[s].values, p);
    }
    free(text);
    return 0;
}
