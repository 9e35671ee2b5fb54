/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the libFuzzer targets: a contract check that fails loudly. */
#ifndef RMP_FUZZ_H
#define RMP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A broken contract is a crash for libFuzzer: it keeps the input. */
#define FUZZ_CHECK(cond)                                                               \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: contract violated: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                   \
        }                                                                              \
    } while (0)

/* Reads n bytes from the input, or zeros past its end. */
typedef struct {
    const uint8_t *p;
    size_t left;
} fuzz_in_t;

static inline void fuzz_take(fuzz_in_t *in, void *out, size_t n)
{
    unsigned char *o = out;
    for (size_t i = 0; i < n; i++)
        o[i] = in->left ? (in->left--, *in->p++) : 0;
}

static inline uint8_t fuzz_u8(fuzz_in_t *in)
{
    uint8_t v;
    fuzz_take(in, &v, 1);
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
