/* Nameless shared memory (see shmem.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log.h"
#include "rmpi.h"
#include "shmem.h"

int rmpi_shmem_create(size_t len, const char *label, rmpi_shmem_t *seg)
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
    /* Populated now: no page faults on the message path later. */
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return RMP_ERR_NOMEM;
    }
    seg->fd = fd;
    seg->addr = p;
    snprintf(seg->name, sizeof(seg->name), "%d:%d", (int)getpid(), fd);
    return RMP_SUCCESS;
}

int rmpi_shmem_attach(const char *name, size_t len, void **addr)
{
    int pid, fd;
    if (sscanf(name, "%d:%d", &pid, &fd) != 2)
        return RMP_ERR_BOOTSTRAP;
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
    int myfd = open(path, O_RDWR | O_CLOEXEC);
    if (myfd < 0) {
        rmpi_error("cannot open process %d's shared segment (%s): %s", pid, path,
                   strerror(errno));
        return errno == ENOENT || errno == ESRCH ? RMP_ERR_PEER_FAILED : RMP_ERR_TRANSPORT;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, myfd, 0);
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
