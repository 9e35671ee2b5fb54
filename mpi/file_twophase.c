/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO two-phase collective access. When the ranks' file ranges interleave, the
 * span they cover is cut into one file domain per aggregator (the first cb_nodes ranks
 * of the node-spread order of file_aggr.c; domains aligned to the striping unit, or
 * 4 KiB), and every domain into windows of cb_buffer_size done one per round, so no
 * rank holds more than its share of one round: requesters pack straight from the
 * user's buffer into the round's send buffer and unpack straight back. Per round the
 * pieces travel to the aggregator owning their bytes (one alltoallv for descriptors,
 * one for data); an aggregator writes adjacent pieces with one pwritev, reads them
 * with one preadv (holes under 64 KiB read into a scratch page) and sends them back.
 * Pieces are never read-modified-written: bytes no rank accesses are never touched.
 * On one node with large pieces (romio_cb_* automatic) every rank does its own
 * (file_own.c): the exchange would only be more copies. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include "mpii.h"
#include "mpii_file.h"

#define TP_GAP ((MPI_Offset)64 << 10) /* a read reads through holes up to this size */
#define TP_IOV 1024                   /* iovecs per system call (IOV_MAX) */
#define TP_G 7 /* gathered per rank: lo, hi, error, cb_buffer_size, pieces, bytes, cb mode */
/* romio_cb_* automatic on one node: pieces of at least this mean size go without
 * aggregation (file_own.c). Measured at 4 ranks on 2 cores, pieces dealt cyclically
 * (MB/s write/read, two-phase -> own). tmpfs, 256 MiB: 512 B 161/187 -> 59/92,
 * 2 KiB 157/189 -> 166/176, 4 KiB 234/233 -> 343/247, 16 KiB 243/238 -> 689/462,
 * 256 KiB 177/198 -> 531/269. ext4 through the page cache, 64 MiB, where a small
 * write costs more: 4 KiB 186/203 -> 127/220 and 168/216 -> 156/260, 8 KiB 253/273 ->
 * 214/330 and 163/238 -> 324/345, 16 KiB 167/190 -> 352/316. A loaded machine: trends,
 * not figures. */
#define TP_OWN_PIECE ((MPI_Offset)4 << 10)
#define TP_OWN_PIECE_DISK ((MPI_Offset)16 << 10)

typedef struct tp_piece {
    MPI_Offset off, len;
    char *data;
} tp_piece_t;

/* one piece of my access cut at window borders */
typedef struct tp_cut {
    MPI_Offset off, len, sp; /* file offset, length, stream offset in my access */
    int ar, rd;              /* aggregator rank, round */
} tp_cut_t;

static int tp_cmp(const void *a, const void *b)
{
    const tp_piece_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Do the ranks' ranges [lo, hi) overlap one another? (rng: TP_G per rank) */
static int tp_interleaved(const int64_t *rng, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (rng[TP_G * i] < rng[TP_G * i + 1] && rng[TP_G * j] < rng[TP_G * j + 1] &&
                rng[TP_G * i] < rng[TP_G * j + 1] && rng[TP_G * j] < rng[TP_G * i + 1])
                return 1;
    return 0;
}

/* The whole of c iovecs at off, resuming after short transfers; a read stops at end
 * of file (the rest is left as it was: requesters count only bytes before it). */
static int tp_iov_all(int fd, struct iovec *iov, int c, MPI_Offset off, int write)
{
    while (c > 0) {
        if (iov->iov_len == 0) { /* an empty piece: no call that could return 0 for it */
            iov++;
            c--;
            continue;
        }
        ssize_t r = write ? pwritev(fd, iov, c, (off_t)off) : preadv(fd, iov, c, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return errno == EBADF ? MPI_ERR_ACCESS : mpii_file_errno_class(errno);
        if (r == 0)
            return write ? MPI_ERR_IO : MPI_SUCCESS;
        off += r;
        while (c > 0 && (size_t)r >= iov->iov_len) {
            r -= (ssize_t)iov->iov_len;
            iov++;
            c--;
        }
        if (c > 0) {
            iov->iov_base = (char *)iov->iov_base + r;
            iov->iov_len -= (size_t)r;
        }
    }
    return MPI_SUCCESS;
}

/* Runs of adjacent pieces (sorted by offset) in one call each; a read also spans
 * holes up to TP_GAP into scratch. Overlapping pieces start a new run (a later
 * write wins, a read reads the bytes again). */
static int tp_runs(mpii_file_t *f, tp_piece_t *p, size_t n, int write, char *scratch)
{
    struct iovec iov[TP_IOV];
    int rc = MPI_SUCCESS;
    for (size_t i = 0; i < n && rc == MPI_SUCCESS;) {
        MPI_Offset off = p[i].off, end = off;
        int c = 0;
        while (i < n && c < TP_IOV - 1) {
            MPI_Offset gap = p[i].off - end;
            if (c > 0 && (gap < 0 || (gap > 0 && (write || gap > TP_GAP))))
                break;
            if (gap > 0) {
                iov[c].iov_base = scratch;
                iov[c++].iov_len = (size_t)gap;
            }
            iov[c].iov_base = p[i].data;
            iov[c++].iov_len = (size_t)p[i].len;
            end = p[i].off + p[i].len;
            i++;
        }
        rc = tp_iov_all(f->fd, iov, c, off, write);
    }
    return rc;
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

/* Move the user's data of one cut between buf and p: contiguous types by memcpy,
 * others by a partial (un)pack. A read moves only what lies before got. */
static void tp_user(mpii_dtype_t *d, void *buf, MPI_Count count, MPI_Offset sp, char *p,
                    size_t len, int write, size_t got)
{
    if (!write) {
        if ((size_t)sp >= got)
            return;
        len = (size_t)sp + len > got ? got - (size_t)sp : len;
    }
    if (d->contig) {
        char *u = (char *)buf + d->true_lb + sp;
        memcpy(write ? p : u, write ? u : p, len);
    } else if (write) {
        mpii_dtype_pack(d, buf, count, (size_t)sp, p, len);
    } else {
        mpii_dtype_unpack(d, buf, count, (size_t)sp, p, len);
    }
}

typedef struct tp_ctx {
    mpii_file_t *f;
    int write;
    MPI_Count *scd, *rcd, *sdb, *rdb; /* per rank: descriptor and data counts */
    MPI_Aint *sdd, *rdd, *sbd, *rbd;  /* and their displacements */
    MPI_Aint *fill;                   /* per rank: bytes placed so far */
    int64_t *rdesc;
    char *sdata, *rdata, *scratch;
    size_t rdesc_cap, rdata_cap, sdata_cap;
    tp_piece_t *pcs;
    size_t pcs_cap;
} tp_ctx_t;

static int tp_grow(void **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return MPI_SUCCESS;
    void *q = realloc(*p, need);
    if (!q)
        return MPI_ERR_NO_MEM;
    *p = q;
    *cap = need;
    return MPI_SUCCESS;
}

/* One round: my cuts c[0..nc) of round rd (those with .rd == rd) go to their
 * aggregators, which do the I/O; a read's data comes back. Collective. */
static int tp_round(tp_ctx_t *x, const tp_cut_t *c, size_t nc, int rd, void *buf,
                    MPI_Count count, mpii_dtype_t *d, size_t got)
{
    mpii_file_t *f = x->f;
    int n = f->size, rc = MPI_SUCCESS;
    memset(x->scd, 0, sizeof(MPI_Count) * (size_t)n);
    memset(x->sdb, 0, sizeof(MPI_Count) * (size_t)n);
    size_t nd = 0, nb = 0;
    for (size_t i = 0; i < nc; i++)
        if (c[i].rd == rd) {
            x->scd[c[i].ar] += 2;
            x->sdb[c[i].ar] += c[i].len;
            nd += 2;
            nb += (size_t)c[i].len;
        }
    x->sdd[0] = x->sbd[0] = 0;
    for (int r = 1; r < n; r++) {
        x->sdd[r] = x->sdd[r - 1] + (MPI_Aint)x->scd[r - 1];
        x->sbd[r] = x->sbd[r - 1] + (MPI_Aint)x->sdb[r - 1];
    }
    PMPI_Alltoall(x->scd, 1, MPI_COUNT, x->rcd, 1, MPI_COUNT, f->comm);
    PMPI_Alltoall(x->sdb, 1, MPI_COUNT, x->rdb, 1, MPI_COUNT, f->comm);
    size_t nrd = 0, nrb = 0;
    for (int r = 0; r < n; r++) {
        x->rdd[r] = (MPI_Aint)nrd;
        x->rbd[r] = (MPI_Aint)nrb;
        nrd += (size_t)x->rcd[r];
        nrb += (size_t)x->rdb[r];
    }
    int64_t *sdesc = malloc((nd + 1) * sizeof(int64_t));
    rc = sdesc ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = tp_grow((void **)&x->sdata, &x->sdata_cap, nb + 1);
    if (rc == MPI_SUCCESS)
        rc = tp_grow((void **)&x->rdesc, &x->rdesc_cap, (nrd + 1) * sizeof(int64_t));
    if (rc == MPI_SUCCESS)
        rc = tp_grow((void **)&x->rdata, &x->rdata_cap, nrb + 1);
    if (rc == MPI_SUCCESS)
        rc = tp_grow((void **)&x->pcs, &x->pcs_cap, (nrd / 2 + 1) * sizeof(tp_piece_t));
    int any = rc;
    PMPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, f->comm);
    if (any) {
        free(sdesc);
        return any;
    }
    /* descriptors and (write) data, laid out by aggregator rank */
    memset(x->fill, 0, 2 * sizeof(MPI_Aint) * (size_t)n);
    MPI_Aint *fd = x->fill, *fb = x->fill + n;
    for (size_t i = 0; i < nc; i++) {
        if (c[i].rd != rd)
            continue;
        int ar = c[i].ar;
        sdesc[x->sdd[ar] + fd[ar]++] = c[i].off;
        sdesc[x->sdd[ar] + fd[ar]++] = c[i].len;
        if (x->write)
            tp_user(d, buf, count, c[i].sp, x->sdata + x->sbd[ar] + fb[ar], (size_t)c[i].len, 1, 0);
        fb[ar] += c[i].len;
    }
    PMPI_Alltoallv_c(sdesc, x->scd, x->sdd, MPI_INT64_T, x->rdesc, x->rcd, x->rdd, MPI_INT64_T,
                     f->comm);
    free(sdesc);
    if (x->write)
        PMPI_Alltoallv_c(x->sdata, x->sdb, x->sbd, MPI_BYTE, x->rdata, x->rdb, x->rbd, MPI_BYTE,
                         f->comm);
    /* the pieces received point into rdata; sorted by offset for the I/O */
    size_t np = 0;
    MPI_Offset at = 0;
    for (size_t q = 0; q < nrd; q += 2, np++) {
        x->pcs[np].off = x->rdesc[q];
        x->pcs[np].len = x->rdesc[q + 1];
        x->pcs[np].data = x->rdata + at;
        at += x->rdesc[q + 1];
    }
    qsort(x->pcs, np, sizeof(tp_piece_t), tp_cmp);
    rc = tp_runs(f, x->pcs, np, x->write, x->scratch);
    if (!x->write) {
        PMPI_Alltoallv_c(x->rdata, x->rdb, x->rbd, MPI_BYTE, x->sdata, x->sdb, x->sbd, MPI_BYTE,
                         f->comm);
        memset(fb, 0, sizeof(MPI_Aint) * (size_t)n);
        for (size_t i = 0; i < nc; i++) {
            if (c[i].rd != rd)
                continue;
            int ar = c[i].ar;
            tp_user(d, buf, count, c[i].sp, x->sdata + x->sbd[ar] + fb[ar], (size_t)c[i].len, 0,
                    got);
            fb[ar] += c[i].len;
        }
    }
    return rc;
}

/* My access cut at window borders: aggregator a owns [gmin + a*dom, +dom), done in
 * windows of win bytes, window k in round k. */
static int tp_cut(const mpii_fseg_t *v, size_t nv, const int *aggr, MPI_Offset gmin,
                  MPI_Offset dom, MPI_Offset win, tp_cut_t **out, size_t *nout)
{
    size_t cap = nv + 16, nc = 0;
    tp_cut_t *c = malloc(cap * sizeof(*c));
    MPI_Offset sp = 0;
    for (size_t i = 0; c && i < nv; i++)
        for (MPI_Offset o = v[i].off, e = v[i].off + v[i].len; o < e;) {
            MPI_Offset a = (o - gmin) / dom, w = (o - gmin - a * dom) / win;
            MPI_Offset we = gmin + a * dom + (w + 1) * win, de = gmin + (a + 1) * dom;
            we = we < de ? we : de;
            MPI_Offset l = (e < we ? e : we) - o;
            if (nc == cap) {
                tp_cut_t *q = realloc(c, 2 * cap * sizeof(*c));
                if (!q) {
                    free(c);
                    c = NULL;
                    break;
                }
                c = q;
                cap *= 2;
            }
            c[nc++] = (tp_cut_t){o, l, sp, aggr[a], (int)w};
            sp += l;
            o += l;
        }
    *out = c;
    *nout = nc;
    return c ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int mpii_file_twophase(mpii_file_t *f, MPI_Offset pos, void *buf, MPI_Count count,
                       mpii_dtype_t *d, int write, MPI_Count *bytes, int *done, const char *fn)
{
    int n = f->size, rc = MPI_SUCCESS;
    size_t total = (size_t)count * d->size, nv = 0, nc = 0;
    mpii_fseg_t *v = NULL;
    tp_cut_t *cuts = NULL;
    *done = 0;
    *bytes = 0;
    int err = mpii_file_view_pieces(f, pos, total, &v, &nv);
    int64_t me[TP_G] = {INT64_MAX, INT64_MIN, err, f->cb_buffer_size, (int64_t)nv,
                        (int64_t)total, write ? f->cb_write : f->cb_read};
    int64_t *all = malloc(TP_G * sizeof(int64_t) * (size_t)n);
    for (size_t i = 0; i < nv; i++) {
        me[0] = v[i].off < me[0] ? v[i].off : me[0];
        me[1] = v[i].off + v[i].len > me[1] ? v[i].off + v[i].len : me[1];
    }
    if (!all)
        me[2] = MPI_ERR_NO_MEM;
    /* every rank decides the same from the same gathered ranges and hints */
    int anyfail = !all;
    PMPI_Allreduce(MPI_IN_PLACE, &anyfail, 1, MPI_INT, MPI_MAX, f->comm);
    if (anyfail) {
        free(all);
        free(v);
        return MPI_SUCCESS; /* the caller goes independent */
    }
    PMPI_Allgather(me, TP_G, MPI_INT64_T, all, TP_G, MPI_INT64_T, f->comm);
    int64_t gmin = INT64_MAX, gmax = INT64_MIN, bad = 0, cb = INT64_MAX, np = 0, nby = 0,
            mode = 2;
    for (int i = 0; i < n; i++) {
        const int64_t *a = all + TP_G * i;
        bad |= a[2];
        cb = a[3] < cb ? a[3] : cb;
        np += a[4];
        nby += a[5];
        mode = a[6] < mode ? a[6] : mode;
        if (a[0] < a[1]) {
            gmin = a[0] < gmin ? a[0] : gmin;
            gmax = a[1] > gmax ? a[1] : gmax;
        }
    }
    int use = !bad && gmin < gmax && tp_interleaved(all, n);
    free(all);
    if (!use) {
        free(v);
        return MPI_SUCCESS;
    }
    *done = 1;
    struct statfs sf;
    MPI_Offset own = fstatfs(f->fd, &sf) == 0 && sf.f_type == TMPFS_MAGIC ? TP_OWN_PIECE
                                                                           : TP_OWN_PIECE_DISK;
    if (mode == 2 && f->nodes == 1 && np > 0 && nby / np >= own) {
        /* one node, large pieces: no aggregation (file_own.c) */
        size_t got = 0;
        rc = mpii_file_own_io(f, v, nv, buf, count, d, write, 2 * nby >= gmax - gmin, &got);
        free(v);
        *bytes = (MPI_Count)got;
        return rc ? mpii_file_err(f, rc, fn, "collective %s failed", write ? "write" : "read")
                  : MPI_SUCCESS;
    }
    int naggr = f->cb_nodes > 0 && f->cb_nodes < n ? f->cb_nodes : n;
    MPI_Offset align = f->striping_unit > 0 ? f->striping_unit : 4096;
    MPI_Offset span = gmax - gmin, dom = (span + naggr - 1) / naggr;
    dom = (dom + align - 1) / align * align;
    MPI_Offset win = cb >= align ? cb / align * align : cb > 0 ? cb : align;
    int rounds = (int)((dom + win - 1) / win);
    rc = tp_cut(v, nv, f->aggr, gmin, dom, win, &cuts, &nc);
    size_t got = total;
    if (rc == MPI_SUCCESS && !write) {
        struct stat sb;
        got = fstat(f->fd, &sb) == 0 ? tp_read_bytes(v, nv, (MPI_Offset)sb.st_size) : 0;
    }
    tp_ctx_t x = {.f = f, .write = write};
    x.scd = calloc(4 * (size_t)n, sizeof(MPI_Count));
    x.sdd = calloc(6 * (size_t)n, sizeof(MPI_Aint));
    x.scratch = write ? NULL : malloc((size_t)TP_GAP);
    if (!x.scd || !x.sdd || (!write && !x.scratch))
        rc = MPI_ERR_NO_MEM;
    int any = rc;
    PMPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, f->comm);
    if (any) {
        rc = any;
        goto out;
    }
    x.rcd = x.scd + n;
    x.sdb = x.scd + 2 * n;
    x.rdb = x.scd + 3 * n;
    x.rdd = x.sdd + n;
    x.sbd = x.sdd + 2 * n;
    x.rbd = x.sdd + 3 * n;
    x.fill = x.sdd + 4 * n;
    for (int r = 0; r < rounds; r++) {
        int e = tp_round(&x, cuts, nc, r, buf, count, d, got);
        rc = rc ? rc : e;
    }
    PMPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, f->comm);
    if (rc == MPI_SUCCESS)
        *bytes = (MPI_Count)got;
out:
    free(x.scd);
    free(x.sdd);
    free(x.scratch);
    free(x.sdata);
    free(x.rdata);
    free(x.rdesc);
    free(x.pcs);
    free(cuts);
    free(v);
    return rc ? mpii_file_err(f, rc, fn, "collective %s failed", write ? "write" : "read")
              : MPI_SUCCESS;
}
