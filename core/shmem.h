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

int rmpi_shmem_create(size_t len, const char *label, rmpi_shmem_t *seg);
/* Split a peer's segment name "PID:FD" (decimal, PID > 0, nothing else).
 * RMP_SUCCESS, or RMP_ERR_BOOTSTRAP when name is anything else. */
int rmpi_shmem_parse_name(const char *name, int *pid, int *fd);
/* Map a peer's segment of len bytes (RMP_ERR_BOOTSTRAP when the name is
 * malformed or the segment is shorter than len). */
int rmpi_shmem_attach(const char *name, size_t len, void **addr);
/* Every peer has attached: drop the descriptor, keep the mapping. */
void rmpi_shmem_seal(rmpi_shmem_t *seg);
void rmpi_shmem_destroy(rmpi_shmem_t *seg);

#endif
