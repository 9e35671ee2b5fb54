/* SPDX-License-Identifier: BSD-3-Clause */
/* A section of the tuning-file grammar (docs/tuning.md) that a module above the
 * core owns: core/tuning.c reads the file, the section parses its own lines. */
#ifndef RMPI_TUNE_SECTION_H
#define RMPI_TUNE_SECTION_H

#include <stddef.h>
#include <stdint.h>

/* A section of the grammar: the lines whose first word it claims. Modules
 * above the core (the collectives: collectives/coll_tune.c) register theirs,
 * so the core knows no collective. What a section parses it keeps itself. */
typedef struct rmpi_tune_section {
    const char *what;                 /* "a collective: barrier, bcast, ..." for messages */
    int (*claims)(const char *word);  /* 1 when lines starting with word are its */
    void (*begin)(void);              /* a new file: forget what an earlier one gave */
    /* One line; RMP_ERR_ARG with a sentence in err (the caller prefixes path:line). */
    int (*line)(int lineno, char **w, int nw, char *err, size_t errlen);
    /* Put what the file gave in force (rmpi_tuning_load); err as for line. */
    int (*install)(char *err, size_t errlen);
    /* Fold what is in force into h (FNV-1a): every rank must agree on it. */
    uint64_t (*hash)(uint64_t h);
} rmpi_tune_section_t;

/* Register a section (from a constructor: before rmp_init). RMP_ERR_NOMEM when full. */
int rmpi_tuning_register(const rmpi_tune_section_t *s);

#endif
