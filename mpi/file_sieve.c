/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO data sieving for independent access through a non-contiguous view. Pieces
 * close together are served from one window of the file: a read preads the window
 * (holes included) and copies the pieces out; a write locks the window's byte range,
 * preads it, copies the pieces in and pwrites it whole (read-modify-write), so the
 * holes keep what other processes wrote, as long as they write through MPI-IO too
 * (every sieving writer locks; a plain pwrite into a hole of a locked window can be
 * lost, as with ROMIO). romio_ds_read/romio_ds_write: "enable" sieves any holes,
 * "disable" never, "automatic" (default) only holes smaller than the system call a
 * piece of its own would cost (DS_GAP_RD/WR bytes: measured on tmpfs with 1 KiB pieces,
 * 8 KiB holes sieved were slower than a call each, 1 and 3 KiB faster);
 * ind_rd_buffer_size/ind_wr_buffer_size bound a window (default 512 KiB: a window
 * stays in cache between its read and its copy). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "mpii.h"
#include "mpii_file.h"

#define DS_GAP_RD ((MPI_Offset)4096) /* a hole is read once */
#define DS_GAP_WR ((MPI_Offset)4096) /* read and written back */
/* Elsewhere than tmpfs a small call costs more (ext4: journal, writeback, the inode
 * lock shared by every writer): holes up to this size are sieved. */
#define DS_GAP_DISK ((MPI_Offset)16384)

/* One window: pieces v[0..k) over [lo, hi), their data at pk in stream order. */
static int ds_window(mpii_file_t *f, const mpii_fseg_t *v, size_t k, char *pk, char *sb,
                     int write, size_t *done)
{
    MPI_Offset lo = v[0].off, hi = v[k - 1].off + v[k - 1].len;
    size_t len = (size_t)(hi - lo), got = 0, at = 0;
    int rc = write ? mpii_file_lock(f->fd, lo, hi, F_WRLCK) : MPI_SUCCESS;
    if (rc)
        return rc;
    rc = mpii_file_fd_xfer(f->fd, lo, sb, len, 0, &got);
    if (write && rc == MPI_SUCCESS) {
        memset(sb + got, 0, len - got); /* past end of file the holes read as zeros */
        for (size_t i = 0; i < k; at += (size_t)v[i].len, i++)
            memcpy(sb + (v[i].off - lo), pk + at, (size_t)v[i].len);
        rc = mpii_file_fd_xfer(f->fd, lo, sb, len, 1, &got);
        *done = rc == MPI_SUCCESS ? at : 0;
        mpii_file_lock(f->fd, lo, hi, F_UNLCK);
        return rc;
    }
    /* a read: the pieces before end of file, the one it cuts in part */
    for (size_t i = 0; rc == MPI_SUCCESS && i < k; i++) {
        MPI_Offset s = v[i].off - lo, e = s + v[i].len;
        size_t m = e <= (MPI_Offset)got ? (size_t)v[i].len : s < (MPI_Offset)got ? got - (size_t)s : 0;
        memcpy(pk + at, sb + s, m);
        at += m;
        if (m < (size_t)v[i].len)
            break;
    }
    *done = at;
    return rc;
}

int mpii_file_sieve_io(mpii_file_t *f, MPI_Offset pos, char *pk, size_t n, int write,
                       size_t *done)
{
    *done = 0;
    if (n == 0)
        return MPI_SUCCESS;
    mpii_fseg_t *v = NULL;
    size_t nv = 0;
    int rc = mpii_file_view_pieces(f, pos, n, &v, &nv);
    if (rc)
        return rc;
    int mode = write ? f->ds_write : f->ds_read;
    MPI_Offset cap = write ? f->ds_wr_size : f->ds_rd_size;
    MPI_Offset gap = mode == 1 ? cap : mode == 0 ? -1 : write ? DS_GAP_WR : DS_GAP_RD;
    struct statfs sf;
    if (mode == 2 && fstatfs(f->fd, &sf) == 0 && sf.f_type != TMPFS_MAGIC)
        gap = DS_GAP_DISK;
    /* a descriptor opened write-only (sieving was off at open) cannot read a window */
    if (write && (fcntl(f->fd, F_GETFL) & O_ACCMODE) == O_WRONLY)
        gap = -1;
    char *sb = NULL;
    size_t moved = 0;
    for (size_t i = 0; i < nv && rc == MPI_SUCCESS;) {
        size_t j = i + 1;
        while (j < nv && v[j].off >= v[j - 1].off + v[j - 1].len &&
               v[j].off - (v[j - 1].off + v[j - 1].len) <= gap &&
               v[j].off + v[j].len - v[i].off <= cap)
            j++;
        size_t got = 0, want = 0;
        for (size_t q = i; q < j; q++)
            want += (size_t)v[q].len;
        if (j - i >= 2 && !sb && !(sb = malloc((size_t)cap)))
            rc = MPI_ERR_NO_MEM;
        if (rc == MPI_SUCCESS && j - i >= 2)
            rc = ds_window(f, v + i, j - i, pk + moved, sb, write, &got);
        else if (rc == MPI_SUCCESS)
            rc = mpii_file_direct_io(f, v[i].off, pk + moved, (size_t)v[i].len, write, &got);
        moved += got;
        if (got < want)
            break;
        i = j;
    }
    free(sb);
    free(v);
    *done = moved;
    return rc;
}
