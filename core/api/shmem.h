/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared memory segments without names: a memfd, which same-job peers open
 * through /proc/PID/fd/FD. Nothing ever appears in /dev/shm, so nothing can
 * be left behind whatever kills the job, and the kernel's ptrace access
 * check keeps other users out. */
#ifndef RMPI_SHMEM_H
#define RMPI_SHMEM_H

#include <stddef.h>

typedef struct rmpi_shmem {
    int fd;          /* -1 once peers have attached */
    void *addr;
    size_t len;
    char name[48];   /* "PID:FD", what peers pass to rmpi_shmem_attach */
} rmpi_shmem_t;

/* flags for rmpi_shmem_create and rmpi_shmem_attach */
#define RMPI_SHMEM_POPULATE 1 /* every page made and mapped now: no faults later */

/* A zero-filled segment of len bytes. Without RMPI_SHMEM_POPULATE a page is made
 * when first touched, as malloc's are: creating, mapping and freeing a large
 * segment costs nothing per page (a 1 GiB window is not zeroed until used). */
int rmpi_shmem_create(size_t len, const char *label, unsigned flags, rmpi_shmem_t *seg);
/* Make and map the pages of [addr, addr + len) now (a prefix of a segment created or
 * attached without RMPI_SHMEM_POPULATE): what is hot from the first message on costs no
 * fault later, the rest is made when first touched. Best effort: nothing to fail. */
void rmpi_shmem_prefault(void *addr, size_t len);
/* Split a peer's segment name "PID:FD" (decimal, PID > 0, nothing else).
 * RMP_SUCCESS, or RMP_ERR_BOOTSTRAP when name is anything else. */
int rmpi_shmem_parse_name(const char *name, int *pid, int *fd);
/* Map a peer's segment of len bytes (RMP_ERR_BOOTSTRAP when the name is
 * malformed or the segment is shorter than len). */
int rmpi_shmem_attach(const char *name, size_t len, unsigned flags, void **addr);
/* Every peer has attached: drop the descriptor, keep the mapping. */
void rmpi_shmem_seal(rmpi_shmem_t *seg);
void rmpi_shmem_destroy(rmpi_shmem_t *seg);

#endif
