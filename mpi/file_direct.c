/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO O_DIRECT. When the direct_io hint (or ROMIO's direct_read/direct_write) asks,
 * open also opens the file with O_DIRECT; a file system that refuses it leaves dfd at
 * -1 and buffered I/O goes on (MPI_File_get_info then shows direct_io "false").
 * A contiguous transfer goes through O_DIRECT for its aligned middle, from the user's
 * memory when it is aligned too, else through an aligned bounce buffer; the unaligned
 * head and tail go through the page cache. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpii.h"
#include "mpii_file.h"

#define FD_BOUNCE ((size_t)4 << 20)

void mpii_file_direct_open(mpii_file_t *f)
{
    f->dfd = -1;
    f->dalign = 4096;
    if (!f->direct_req || !f->path)
        return;
    int a = f->amode;
    int flags = a & MPI_MODE_RDONLY ? O_RDONLY : a & MPI_MODE_WRONLY ? O_WRONLY : O_RDWR;
    f->dfd = open(f->path, flags | O_DIRECT);
}


/* The aligned middle [off, off + n) through dfd: n and off are multiples of dalign. */
static int fd_direct(mpii_file_t *f, MPI_Offset off, char *p, size_t n, int write, size_t *got)
{
    if (((uintptr_t)p & (f->dalign - 1)) == 0)
        return mpii_file_fd_xfer(f->dfd, off, p, n, write, got);
    void *b = NULL;
    size_t cap = n < FD_BOUNCE ? n : FD_BOUNCE, m = 0;
    if (posix_memalign(&b, f->dalign, cap) != 0)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    while (m < n && rc == MPI_SUCCESS) {
        size_t c = n - m < cap ? n - m : cap, g = 0;
        if (write)
            memcpy(b, p + m, c);
        rc = mpii_file_fd_xfer(f->dfd, off + (MPI_Offset)m, b, c, write, &g);
        if (!write)
            memcpy(p + m, b, g);
        m += g;
        if (g < c)
            break;
    }
    free(b);
    *got = m;
    return rc;
}

int mpii_file_direct_io(mpii_file_t *f, MPI_Offset off, char *p, size_t n, int write,
                        size_t *done)
{
    *done = 0;
    MPI_Offset al = (MPI_Offset)f->dalign;
    if (f->dfd < 0 || n < 2 * f->dalign)
        return mpii_file_fd_xfer(f->fd, off, p, n, write, done);
    size_t head = (size_t)((al - off % al) % al);
    size_t mid = (n - head) / f->dalign * f->dalign, tail = n - head - mid, g = 0;
    int rc = mpii_file_fd_xfer(f->fd, off, p, head, write, &g);
    *done = g;
    if (rc || g < head)
        return rc;
    rc = fd_direct(f, off + (MPI_Offset)head, p + head, mid, write, &g);
    if (rc && errno == EINVAL) { /* refused at run time (alignment): buffered from here */
        size_t g2 = 0;
        rc = mpii_file_fd_xfer(f->fd, off + (MPI_Offset)(head + g), p + head + g, mid - g, write, &g2);
        g += g2;
    }
    *done += g;
    if (rc || g < mid) /* a read met end of file */
        return rc;
    rc = mpii_file_fd_xfer(f->fd, off + (MPI_Offset)(head + mid), p + head + mid, tail, write, &g);
    *done += g;
    return rc;
}
