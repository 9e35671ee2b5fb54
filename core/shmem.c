/* SPDX-License-Identifier: BSD-3-Clause */
/* Nameless shared memory (see shmem.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "rmpi.h"
#include "shmem.h"

static int shmem_mmap_flags(unsigned flags)
{
    return MAP_SHARED | (flags & RMPI_SHMEM_POPULATE ? MAP_POPULATE : 0);
}

int rmpi_shmem_create(size_t len, const char *label, unsigned flags, rmpi_shmem_t *seg)
{
    seg->fd = -1;
    seg->addr = NULL;
    seg->len = len;
    seg->name[0] = '\0';
    int fd = memfd_create(label, MFD_CLOEXEC);
    if (fd < 0) {
        rmpi_error("memfd_create: %s", strerror(errno));
        return RMP_ERR_NOMEM;
    }
    if (ftruncate(fd, (off_t)len) != 0) {
        rmpi_error("cannot size a %zu-byte shared segment: %s", len, strerror(errno));
        close(fd);
        return RMP_ERR_NOMEM;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, shmem_mmap_flags(flags), fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return RMP_ERR_NOMEM;
    }
    seg->fd = fd;
    seg->addr = p;
    snprintf(seg->name, sizeof(seg->name), "%d:%d", (int)getpid(), fd);
    return RMP_SUCCESS;
}

void rmpi_shmem_prefault(void *addr, size_t len)
{
    if (len == 0 || madvise(addr, len, MADV_POPULATE_WRITE) == 0)
        return;
    /* Before Linux 5.14: a read of each page maps it (a write could race a peer's). */
    long pg = sysconf(_SC_PAGESIZE);
    for (size_t off = 0; off < len; off += (size_t)(pg > 0 ? pg : 4096))
        (void)*(volatile const char *)((const char *)addr + off);
}

int rmpi_shmem_parse_name(const char *name, int *pid, int *fd)
{
    long v[2];
    const char *s = name;
    for (int i = 0; i < 2; i++) {
        if (*s < '0' || *s > '9')
            return RMP_ERR_BOOTSTRAP;
        v[i] = 0;
        for (; *s >= '0' && *s <= '9'; s++) {
            v[i] = v[i] * 10 + (*s - '0');
            if (v[i] > 2147483647L)
                return RMP_ERR_BOOTSTRAP;
        }
        if (*s++ != (i == 0 ? ':' : '\0'))
            return RMP_ERR_BOOTSTRAP;
    }
    if (v[0] == 0)
        return RMP_ERR_BOOTSTRAP;
    *pid = (int)v[0];
    *fd = (int)v[1];
    return RMP_SUCCESS;
}

int rmpi_shmem_attach(const char *name, size_t len, unsigned flags, void **addr)
{
    int pid, fd;
    if (rmpi_shmem_parse_name(name, &pid, &fd) != RMP_SUCCESS) {
        rmpi_error("malformed shared segment name from a peer");
        return RMP_ERR_BOOTSTRAP;
    }
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
    int myfd = open(path, O_RDWR | O_CLOEXEC);
    if (myfd < 0) {
        rmpi_error("cannot open process %d's shared segment (%s): %s", pid, path,
                   strerror(errno));
        return errno == ENOENT || errno == ESRCH ? RMP_ERR_PEER_FAILED : RMP_ERR_TRANSPORT;
    }
    /* A mapping longer than the file faults (SIGBUS) where the file ends. */
    struct stat st;
    if (fstat(myfd, &st) != 0 || st.st_size < 0 || (uint64_t)st.st_size < len) {
        rmpi_error("process %d's shared segment is smaller than the %zu bytes announced", pid,
                   len);
        close(myfd);
        return RMP_ERR_BOOTSTRAP;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, shmem_mmap_flags(flags), myfd, 0);
    close(myfd);
    if (p == MAP_FAILED)
        return RMP_ERR_NOMEM;
    *addr = p;
    return RMP_SUCCESS;
}

void rmpi_shmem_seal(rmpi_shmem_t *seg)
{
    if (seg->fd >= 0)
        close(seg->fd);
    seg->fd = -1;
}

void rmpi_shmem_destroy(rmpi_shmem_t *seg)
{
    rmpi_shmem_seal(seg);
    if (seg->addr)
        munmap(seg->addr, seg->len);
    seg->addr = NULL;
}
