/* SPDX-License-Identifier: BSD-3-Clause */
/* Soak: deterministic message contents, checksums and failure reports. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "soak.h"

void soak_fill(unsigned char *p, size_t n, uint64_t key)
{
    uint64_t x = soak_mix(key) | 1;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        memcpy(p + i, &x, 8);
    }
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    for (; i < n; i++)
        p[i] = (unsigned char)(x >> (8 * (i & 7)));
}

int soak_check_fill(const unsigned char *p, size_t n, uint64_t key)
{
    uint64_t x = soak_mix(key) | 1;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if (memcmp(p + i, &x, 8) != 0)
            return 0;
    }
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    for (; i < n; i++)
        if (p[i] != (unsigned char)(x >> (8 * (i & 7))))
            return 0;
    return 1;
}

/* FNV-1a over 64-bit words (bytes for the tail): position-sensitive, cheap. */
uint64_t soak_csum(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
    }
    for (; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h ^ n;
}

void soak_fail_at(soak_t *k, const char *file, int line, const char *fmt, ...)
{
    k->bad++;
    if (k->bad > 20)
        return; /* the count is reported at the end; the first ones say what */
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL rank %d round %llu (seed %llu) %s:%d: %s\n", k->me,
            (unsigned long long)k->round, (unsigned long long)k->seed, file, line, msg);
}
