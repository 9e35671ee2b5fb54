/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO two-phase collective access. When the ranks' file ranges interleave, the
 * span they cover is cut into one file domain per aggregator (aligned to the striping
 * unit, or 4 KiB), the pieces travel to the aggregator owning their bytes (one
 * alltoallv for descriptors, one for data), and each aggregator does few large
 * transfers: a write coalesces adjacent pieces into one pwritev, a read reads each run
 * of pieces once (holes under 64 KiB included) and sends the pieces back. Pieces are
 * never read-modified-written, so bytes no rank accesses are never touched. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "mpii.h"
#include "mpii_file.h"

#define TP_GAP ((MPI_Offset)64 << 10) /* a read reads through holes up to this size */

typedef struct tp_piece {
    MPI_Offset off, len;
    char *data;
} tp_piece_t;

static int tp_cmp(const void *a, const void *b)
{
    const tp_piece_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Do the ranks' ranges [lo, hi) overlap one another? */
static int tp_interleaved(const int64_t *rng, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (rng[2 * i] < rng[2 * i + 1] && rng[2 * j] < rng[2 * j + 1] &&
                rng[2 * i] < rng[2 * j + 1] && rng[2 * j] < rng[2 * i + 1])
                return 1;
    return 0;
}

static int tp_write_runs(mpii_file_t *f, tp_piece_t *p, size_t n)
{
    struct iovec iov[64];
    for (size_t i = 0; i < n;) {
        MPI_Offset off = p[i].off, end = off;
        int c = 0;
        size_t total = 0;
        while (i < n && c < 64 && p[i].off == end) {
            iov[c].iov_base = p[i].data;
            iov[c++].iov_len = (size_t)p[i].len;
            end += p[i].len;
            total += (size_t)p[i++].len;
        }
        if (c == 0) { /* overlapping pieces: the later one is written after */
            iov[0].iov_base = p[i].data;
            iov[0].iov_len = (size_t)p[i].len;
            end = p[i].off + p[i].len;
            total = (size_t)p[i++].len;
            c = 1;
        }
        ssize_t w = pwritev(f->fd, iov, c, (off_t)off);
        if (w < 0)
            return errno == EBADF ? MPI_ERR_ACCESS : mpii_file_errno_class(errno);
        if ((size_t)w < total) { /* rare: finish piece by piece */
            size_t done = (size_t)w;
            for (int k = 0; k < c; k++) {
                size_t l = iov[k].iov_len;
                if (done >= l) {
                    done -= l;
                    continue;
                }
                MPI_Offset o = off;
                for (int q = 0; q < k; q++)
                    o += (MPI_Offset)iov[q].iov_len;
                for (size_t m = done; m < l;) {
                    ssize_t r = pwrite(f->fd, (char *)iov[k].iov_base + m, l - m, (off_t)(o + (MPI_Offset)m));
                    if (r <= 0)
                        return r < 0 ? mpii_file_errno_class(errno) : MPI_ERR_IO;
                    m += (size_t)r;
                }
                done = 0;
            }
        }
    }
    return MPI_SUCCESS;
}

static int tp_read_runs(mpii_file_t *f, tp_piece_t *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        MPI_Offset lo = p[i].off, hi = p[i].off + p[i].len;
        size_t j = i + 1;
        while (j < n && p[j].off <= hi + TP_GAP && p[j].off + p[j].len - lo <= (MPI_Offset)64 << 20) {
            if (p[j].off + p[j].len > hi)
                hi = p[j].off + p[j].len;
            j++;
        }
        char *run = calloc(1, (size_t)(hi - lo));
        if (!run)
            return MPI_ERR_NO_MEM;
        size_t got = 0;
        while (got < (size_t)(hi - lo)) {
            ssize_t r = pread(f->fd, run + got, (size_t)(hi - lo) - got, (off_t)(lo + (MPI_Offset)got));
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                free(run);
                return mpii_file_errno_class(errno);
            }
            if (r == 0)
                break; /* end of file: the rest stays zero, the requester counts it out */
            got += (size_t)r;
        }
        for (size_t k = i; k < j; k++)
            memcpy(p[k].data, run + (p[k].off - lo), (size_t)p[k].len);
        free(run);
        i = j;
    }
    return MPI_SUCCESS;
}

/* Bytes of my access before end of file fsize: the pieces in stream order up to the
 * first one end of file cuts (what an independent read would return). */
static size_t tp_read_bytes(const mpii_fseg_t *v, size_t n, MPI_Offset fsize)
{
    size_t b = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].off + v[i].len <= fsize) {
            b += (size_t)v[i].len;
            continue;
        }
        if (v[i].off < fsize)
            b += (size_t)(fsize - v[i].off);
        break;
    }
    return b;
}

int mpii_file_twophase(mpii_file_t *f, MPI_Offset pos, void *buf, MPI_Count count,
                       mpii_dtype_t *d, int write, MPI_Count *bytes, int *done, const char *fn)
{
    int n = f->size, rc = MPI_SUCCESS;
    size_t total = (size_t)count * d->size, nv = 0;
    mpii_fseg_t *v = NULL;
    *done = 0;
    *bytes = 0;
    int err = mpii_file_view_pieces(f, pos, total, &v, &nv);
    int64_t me[3] = {INT64_MAX, INT64_MIN, err}, *all = malloc(3 * sizeof(int64_t) * (size_t)n);
    for (size_t i = 0; i < nv; i++) {
        me[0] = v[i].off < me[0] ? v[i].off : me[0];
        me[1] = v[i].off + v[i].len > me[1] ? v[i].off + v[i].len : me[1];
    }
    if (!all)
        me[2] = MPI_ERR_NO_MEM;
    /* every rank decides the same from the same gathered ranges */
    int64_t *rng = all ? all : me;
    PMPI_Allgather(me, 3, MPI_INT64_T, all ? all : me, all ? 3 : 0, MPI_INT64_T, f->comm);
    int64_t gmin = INT64_MAX, gmax = INT64_MIN, bad = 0;
    int64_t *r2 = malloc(2 * sizeof(int64_t) * (size_t)n);
    for (int i = 0; all && i < n; i++) {
        bad |= rng[3 * i + 2];
        if (rng[3 * i] < rng[3 * i + 1]) {
            gmin = rng[3 * i] < gmin ? rng[3 * i] : gmin;
            gmax = rng[3 * i + 1] > gmax ? rng[3 * i + 1] : gmax;
        }
        if (r2) {
            r2[2 * i] = rng[3 * i];
            r2[2 * i + 1] = rng[3 * i + 1];
        }
    }
    int use = all && r2 && !bad && gmin < gmax && tp_interleaved(r2, n);
    int anyfail = !all || !r2 || bad;
    PMPI_Allreduce(MPI_IN_PLACE, &anyfail, 1, MPI_INT, MPI_MAX, f->comm);
    free(all);
    free(r2);
    if (!use || anyfail) {
        free(v);
        return MPI_SUCCESS; /* the caller goes independent */
    }
    *done = 1;
    int naggr = f->cb_nodes > 0 && f->cb_nodes < n ? f->cb_nodes : n;
    MPI_Offset align = f->striping_unit > 0 ? f->striping_unit : 4096;
    MPI_Offset span = gmax - gmin, dom = (span + naggr - 1) / naggr;
    dom = (dom + align - 1) / align * align;
    if (dom <= 0)
        dom = align;

    /* my data, packed in stream order (a read lands in a copy first: the user's buffer
     * past end of file is left as it was) */
    int own = !d->contig || !write;
    char *pk = own ? malloc(total ? total : 1) : (char *)buf + d->true_lb;
    MPI_Count *cnt = calloc(4 * (size_t)n, sizeof(MPI_Count));
    MPI_Aint *dsp = calloc(4 * (size_t)n, sizeof(MPI_Aint));
    if (!pk || !cnt || !dsp)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && write && !d->contig)
        mpii_dtype_pack(d, buf, count, 0, pk, total);
    /* cut the pieces at domain borders; count per aggregator rank */
    MPI_Count *scd = cnt, *rcd = cnt + n, *sdb = cnt + 2 * n, *rdb = cnt + 3 * n;
    size_t ncut = 0;
    for (size_t i = 0; rc == MPI_SUCCESS && i < nv; i++)
        for (MPI_Offset o = v[i].off, e = v[i].off + v[i].len; o < e; ncut++) {
            MPI_Offset a = (o - gmin) / dom, de = gmin + (a + 1) * dom;
            MPI_Offset l = (e < de ? e : de) - o;
            int ar = (int)(a * n / naggr);
            scd[ar] += 2;
            sdb[ar] += l;
            o += l;
        }
    int64_t *sdesc = malloc((2 * ncut + 1) * sizeof(int64_t));
    char *sdata = malloc(total + 1);
    if (!sdesc || !sdata)
        rc = MPI_ERR_NO_MEM;
    int any = rc;
    PMPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, f->comm);
    int64_t *rdesc = NULL;
    char *rdata = NULL;
    tp_piece_t *pcs = NULL;
    if (any) {
        rc = any;
        goto out;
    }
    {
        /* lay the send buffers out by aggregator rank */
        MPI_Aint *sdd = dsp, *rdd = dsp + n, *sbd = dsp + 2 * n, *rbd = dsp + 3 * n;
        for (int r = 1; r < n; r++) {
            sdd[r] = sdd[r - 1] + (MPI_Aint)scd[r - 1];
            sbd[r] = sbd[r - 1] + (MPI_Aint)sdb[r - 1];
        }
        MPI_Aint *fd = calloc((size_t)n * 2, sizeof(MPI_Aint)), *fb = fd ? fd + n : NULL;
        if (!fd) {
            rc = MPI_ERR_NO_MEM;
        } else {
            size_t sp = 0;
            for (size_t i = 0; i < nv; i++)
                for (MPI_Offset o = v[i].off, e = v[i].off + v[i].len; o < e;) {
                    MPI_Offset a = (o - gmin) / dom, de = gmin + (a + 1) * dom;
                    MPI_Offset l = (e < de ? e : de) - o;
                    int ar = (int)(a * n / naggr);
                    sdesc[sdd[ar] + fd[ar]++] = o;
                    sdesc[sdd[ar] + fd[ar]++] = l;
                    if (write)
                        memcpy(sdata + sbd[ar] + fb[ar], pk + sp, (size_t)l);
                    fb[ar] += l;
                    sp += (size_t)l;
                    o += l;
                }
            free(fd);
        }
        PMPI_Alltoall(scd, 1, MPI_COUNT, rcd, 1, MPI_COUNT, f->comm);
        PMPI_Alltoall(sdb, 1, MPI_COUNT, rdb, 1, MPI_COUNT, f->comm);
        MPI_Count nrd = 0, nrb = 0;
        for (int r = 0; r < n; r++) {
            rdd[r] = (MPI_Aint)nrd;
            rbd[r] = (MPI_Aint)nrb;
            nrd += rcd[r];
            nrb += rdb[r];
        }
        rdesc = malloc((size_t)nrd * sizeof(int64_t) + 8);
        rdata = malloc((size_t)nrb + 1);
        pcs = malloc((size_t)(nrd / 2 + 1) * sizeof(*pcs));
        int e2 = rc || !rdesc || !rdata || !pcs ? MPI_ERR_NO_MEM : MPI_SUCCESS;
        PMPI_Allreduce(MPI_IN_PLACE, &e2, 1, MPI_INT, MPI_MAX, f->comm);
        if (e2) {
            rc = e2;
            goto out;
        }
        PMPI_Alltoallv_c(sdesc, scd, sdd, MPI_INT64_T, rdesc, rcd, rdd, MPI_INT64_T, f->comm);
        if (write)
            PMPI_Alltoallv_c(sdata, sdb, sbd, MPI_BYTE, rdata, rdb, rbd, MPI_BYTE, f->comm);
        /* the pieces in received order point into rdata; sorted by offset for the I/O */
        size_t np = 0;
        MPI_Offset at = 0;
        for (MPI_Count q = 0; q < nrd; q += 2, np++) {
            pcs[np].off = rdesc[q];
            pcs[np].len = rdesc[q + 1];
            pcs[np].data = rdata + at;
            at += rdesc[q + 1];
        }
        qsort(pcs, np, sizeof(*pcs), tp_cmp);
        rc = write ? tp_write_runs(f, pcs, np) : tp_read_runs(f, pcs, np);
        if (!write) /* the same layout back: what each requester sent as descriptors */
            PMPI_Alltoallv_c(rdata, rdb, rbd, MPI_BYTE, sdata, sdb, sbd, MPI_BYTE, f->comm);
        PMPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, f->comm);
        if (rc)
            goto out;
        size_t got = total;
        if (!write) {
            struct stat sb;
            got = fstat(f->fd, &sb) == 0 ? tp_read_bytes(v, nv, (MPI_Offset)sb.st_size) : 0;
            /* back to stream order */
            MPI_Aint *fb2 = calloc((size_t)n, sizeof(MPI_Aint));
            if (!fb2) {
                rc = MPI_ERR_NO_MEM;
                goto out;
            }
            size_t sp = 0;
            for (size_t i = 0; i < nv; i++)
                for (MPI_Offset o = v[i].off, e = v[i].off + v[i].len; o < e;) {
                    MPI_Offset a = (o - gmin) / dom, de = gmin + (a + 1) * dom;
                    MPI_Offset l = (e < de ? e : de) - o;
                    int ar = (int)(a * n / naggr);
                    memcpy(pk + sp, sdata + sbd[ar] + fb2[ar], (size_t)l);
                    fb2[ar] += l;
                    sp += (size_t)l;
                    o += l;
                }
            free(fb2);
            if (!d->contig)
                mpii_dtype_unpack(d, buf, count, 0, pk, got);
            else
                memcpy((char *)buf + d->true_lb, pk, got);
        }
        *bytes = (MPI_Count)got;
    }
out:
    free(pcs);
    free(rdesc);
    free(rdata);
    free(sdesc);
    free(sdata);
    free(cnt);
    free(dsp);
    if (own)
        free(pk);
    free(v);
    return rc ? mpii_file_err(f, rc, fn, "collective %s failed", write ? "write" : "read")
              : MPI_SUCCESS;
}
