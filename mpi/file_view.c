/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO file views: the filetype flattened to (offset, length) pieces, the mapping
 * between stream positions and file bytes, and the POSIX transfers over a view. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpii.h"
#include "mpii_file.h"

typedef struct fflat {
    mpii_fseg_t *seg;
    int n, cap, err;
} fflat_t;

static void flat_add(fflat_t *fl, MPI_Offset off, MPI_Offset len)
{
    if (len <= 0 || fl->err)
        return;
    if (fl->n && fl->seg[fl->n - 1].off + fl->seg[fl->n - 1].len == off) {
        fl->seg[fl->n - 1].len += len; /* adjacent pieces merge */
        return;
    }
    if (fl->n == fl->cap) {
        int cap = fl->cap ? 2 * fl->cap : 16;
        mpii_fseg_t *s = realloc(fl->seg, (size_t)cap * sizeof(*s));
        if (!s) {
            fl->err = 1;
            return;
        }
        fl->seg = s;
        fl->cap = cap;
    }
    fl->seg[fl->n].off = off;
    fl->seg[fl->n].len = len;
    fl->n++;
}

/* The pieces of one element of layout d at base, in typemap order. */
static void flat_walk(fflat_t *fl, const mpii_dl_t *d, MPI_Offset base)
{
    if (fl->err || d->size == 0)
        return;
    switch (d->kind) {
    case MPII_DL_RUN:
        flat_add(fl, base + d->u.run.off, (MPI_Offset)d->u.run.len);
        return;
    case MPII_DL_VEC:
        for (MPI_Count i = 0; i < d->u.vec.count && !fl->err; i++)
            for (MPI_Count j = 0; j < d->u.vec.blocklen; j++)
                flat_walk(fl, d->u.vec.child,
                          base + i * d->u.vec.stride + j * d->u.vec.child->extent);
        return;
    default:
        for (MPI_Count k = 0; k < d->u.idx.n && !fl->err; k++)
            for (MPI_Count j = 0; j < d->u.idx.blocklen[k]; j++)
                flat_walk(fl, d->u.idx.child[k],
                          base + d->u.idx.disp[k] + j * d->u.idx.child[k]->extent);
        return;
    }
}

void mpii_file_view_free(mpii_file_t *f)
{
    if (f->etype)
        mpii_dtype_release(f->etype);
    if (f->ftype)
        mpii_dtype_release(f->ftype);
    f->etype = f->ftype = NULL;
    free(f->seg);
    free(f->segsum);
    f->seg = NULL;
    f->segsum = NULL;
    f->nseg = 0;
}

/* The standard requires a view's typemaps to have non-negative, non-decreasing
 * displacements; pieces may overlap only in a file opened read-only. */
static int flat_monotone(const mpii_dtype_t *d, int overlap_ok)
{
    fflat_t fl = {0};
    if (d->contig) {
        flat_add(&fl, d->true_lb, (MPI_Offset)d->size);
    } else {
        /* no merging here: every piece is checked against the end of the one before */
        flat_walk(&fl, d->dl, 0);
    }
    int ok = !fl.err;
    for (int i = 0; ok && i < fl.n; i++)
        ok = fl.seg[i].off >= 0 &&
             (i == 0 || fl.seg[i].off >= fl.seg[i - 1].off +
                                             (overlap_ok ? 0 : fl.seg[i - 1].len));
    free(fl.seg);
    return ok;
}

static int view_set(mpii_file_t *f, MPI_Offset disp, mpii_dtype_t *et, mpii_dtype_t *ft,
                    const char *datarep)
{
    fflat_t fl = {0};
    if (ft->contig)
        flat_add(&fl, ft->true_lb, (MPI_Offset)ft->size);
    else
        flat_walk(&fl, ft->dl, 0);
    MPI_Offset *sum = malloc(((size_t)fl.n + 1) * sizeof(*sum));
    if (fl.err || !sum) {
        free(fl.seg);
        free(sum);
        return MPI_ERR_NO_MEM;
    }
    sum[0] = 0;
    for (int i = 0; i < fl.n; i++)
        sum[i + 1] = sum[i] + fl.seg[i].len;
    mpii_dtype_retain(et);
    mpii_dtype_retain(ft);
    mpii_file_view_free(f);
    f->etype = et;
    f->ftype = ft;
    f->esize = et->size ? et->size : 1;
    f->disp = disp;
    f->seg = fl.seg;
    f->segsum = sum;
    f->nseg = fl.n;
    f->ftsize = (MPI_Offset)ft->size;
    f->ftext = ft->extent > 0 ? ft->extent : (MPI_Offset)ft->size;
    snprintf(f->datarep, sizeof(f->datarep), "%s", datarep);
    f->drep = NULL;
    f->ptr = 0;
    return MPI_SUCCESS;
}

int mpii_file_view_default(mpii_file_t *f)
{
    mpii_dtype_t *b = mpii_dtype(MPI_BYTE);
    return view_set(f, 0, b, b, "native");
}

/* The piece holding data byte r (< ftsize) of a filetype element. */
static int view_seg_of(const mpii_file_t *f, MPI_Offset r)
{
    int lo = 0, hi = f->nseg - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (f->segsum[mid] <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

MPI_Offset mpii_file_byte_of(const mpii_file_t *f, MPI_Offset pos)
{
    if (f->ftsize == 0 || f->nseg == 0)
        return f->disp;
    MPI_Offset k = pos / f->ftsize, r = pos % f->ftsize;
    int i = view_seg_of(f, r);
    return f->disp + k * f->ftext + f->seg[i].off + (r - f->segsum[i]);
}

MPI_Offset mpii_file_pos_of(const mpii_file_t *f, MPI_Offset off)
{
    off -= f->disp;
    if (off <= 0 || f->ftsize == 0)
        return 0;
    MPI_Offset k = off / f->ftext, r = off % f->ftext, pos = k * f->ftsize;
    for (int i = 0; i < f->nseg; i++) {
        if (f->seg[i].off >= r)
            continue;
        MPI_Offset in = r - f->seg[i].off;
        pos += in < f->seg[i].len ? in : f->seg[i].len;
    }
    return pos;
}

int mpii_file_view_pieces(const mpii_file_t *f, MPI_Offset pos, size_t n, mpii_fseg_t **out,
                          size_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (n == 0 || f->ftsize == 0)
        return MPI_SUCCESS;
    size_t cap = 16, np = 0, moved = 0;
    mpii_fseg_t *v = malloc(cap * sizeof(*v));
    MPI_Offset k = pos / f->ftsize, r = pos % f->ftsize;
    int i = view_seg_of(f, r);
    while (v && moved < n) {
        MPI_Offset in = r - f->segsum[i];
        size_t m = (size_t)(f->seg[i].len - in);
        m = m < n - moved ? m : n - moved;
        MPI_Offset off = f->disp + k * f->ftext + f->seg[i].off + in;
        if (np && v[np - 1].off + v[np - 1].len == off) {
            v[np - 1].len += (MPI_Offset)m;
        } else {
            if (np == cap) {
                mpii_fseg_t *w = realloc(v, 2 * cap * sizeof(*v));
                if (!w) {
                    free(v);
                    return MPI_ERR_NO_MEM;
                }
                v = w;
                cap *= 2;
            }
            v[np].off = off;
            v[np++].len = (MPI_Offset)m;
        }
        moved += m;
        r += (MPI_Offset)m;
        if (++i == f->nseg || r >= f->ftsize) {
            i = 0;
            r = 0;
            k++;
        }
    }
    if (!v)
        return MPI_ERR_NO_MEM;
    *out = v;
    *nout = np;
    return MPI_SUCCESS;
}

/* [off, off + n) of fd whole; a read stops at end of file (*got: bytes moved). The one
 * transfer loop of MPI-IO: views, sieving windows, the O_DIRECT path. */
int mpii_file_fd_xfer(int fd, MPI_Offset off, char *p, size_t n, int write, size_t *got)
{
    size_t m = 0;
    while (m < n) {
        ssize_t r = write ? pwrite(fd, p + m, n - m, (off_t)(off + (MPI_Offset)m))
                          : pread(fd, p + m, n - m, (off_t)(off + (MPI_Offset)m));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            *got = m;
            return errno == EBADF ? MPI_ERR_ACCESS : mpii_file_errno_class(errno);
        }
        if (r == 0)
            break;
        m += (size_t)r;
    }
    *got = m;
    return MPI_SUCCESS;
}

/* One contiguous piece of f. */
static int view_piece(mpii_file_t *f, MPI_Offset off, char *pk, size_t n, int write,
                      size_t *done)
{
    return mpii_file_fd_xfer(f->fd, off, pk, n, write, done);
}

/* Atomic mode: the byte range an access spans is locked for its duration. */
/* An fcntl byte-range lock of [lo, hi) of fd (F_RDLCK, F_WRLCK, F_UNLCK), waiting for
 * it: atomic mode and sieving writes. MPI class. */
int mpii_file_lock(int fd, MPI_Offset lo, MPI_Offset hi, int type)
{
    struct flock fk = {.l_type = (short)type, .l_whence = SEEK_SET, .l_start = (off_t)lo,
                       .l_len = (off_t)(hi - lo)};
    while (fcntl(fd, F_SETLKW, &fk) != 0)
        if (errno != EINTR)
            return mpii_file_errno_class(errno);
    return MPI_SUCCESS;
}

/* Data sieving for non-contiguous reads: small pieces are served from one large pread
 * of the span around them (holes included) instead of a system call each. Used when
 * the access is dense enough that the holes read cost less than the calls saved. */
#define VIEW_SIEVE ((size_t)4 << 20)
#define VIEW_SIEVE_PIECE ((MPI_Offset)64 << 10)

typedef struct sieve {
    char *buf;
    MPI_Offset lo, cap;
    size_t len;
} sieve_t;

/* Piece [off, off + m) through the sieve; hi: the end of the access in the file. */
static int sieve_piece(mpii_file_t *f, sieve_t *sv, MPI_Offset off, char *pk, size_t m,
                       MPI_Offset hi, size_t *got)
{
    if (off < sv->lo || off + (MPI_Offset)m > sv->lo + (MPI_Offset)sv->len) {
        MPI_Offset want = hi - off < sv->cap ? hi - off : sv->cap;
        if (want < (MPI_Offset)m) /* the piece lies in [first, end): never */
            return view_piece(f, off, pk, m, 0, got);
        sv->lo = off;
        int rc = view_piece(f, off, sv->buf, (size_t)want, 0, &sv->len);
        if (rc)
            return rc;
    }
    MPI_Offset avail = sv->lo + (MPI_Offset)sv->len - off;
    *got = avail <= 0 ? 0 : (size_t)avail < m ? (size_t)avail : m;
    memcpy(pk, sv->buf + (off - sv->lo), *got);
    return MPI_SUCCESS;
}

int mpii_file_view_io(mpii_file_t *f, MPI_Offset pos, char *pk, size_t n, int write,
                      size_t *done)
{
    *done = 0;
    if (n == 0)
        return MPI_SUCCESS;
    if (f->ftsize == 0)
        return MPI_ERR_ARG;
    int locked = 0, rc = MPI_SUCCESS;
    MPI_Offset lo = 0, hi = 0;
    if (f->atomic) {
        lo = mpii_file_byte_of(f, pos);
        hi = mpii_file_byte_of(f, pos + (MPI_Offset)n - 1) + 1;
        locked = mpii_file_lock(f->fd, lo, hi, write ? F_WRLCK : F_RDLCK) == 0;
    }
    if (f->nseg == 1 && f->seg[0].len == f->ftext) {
        /* a contiguous view: one transfer */
        rc = view_piece(f, f->disp + f->seg[0].off + pos, pk, n, write, done);
    } else {
        MPI_Offset k = pos / f->ftsize, r = pos % f->ftsize;
        int i = view_seg_of(f, r);
        size_t moved = 0;
        sieve_t sv = {NULL, 0, 0, 0};
        MPI_Offset first = mpii_file_byte_of(f, pos);
        MPI_Offset end = mpii_file_byte_of(f, pos + (MPI_Offset)n - 1) + 1;
        /* at least 1/8 of the span is data */
        if (!write && end > first && (end - first) / 8 <= (MPI_Offset)n) {
            sv.cap = end - first < (MPI_Offset)VIEW_SIEVE ? end - first : (MPI_Offset)VIEW_SIEVE;
            sv.buf = malloc((size_t)sv.cap);
        }
        while (moved < n && rc == MPI_SUCCESS) {
            MPI_Offset in = r - f->segsum[i];
            MPI_Offset len = f->seg[i].len - in;
            size_t m = (size_t)len < n - moved ? (size_t)len : n - moved, got = 0;
            MPI_Offset off = f->disp + k * f->ftext + f->seg[i].off + in;
            if (sv.buf && (MPI_Offset)m < VIEW_SIEVE_PIECE && off >= first && off < end)
                rc = sieve_piece(f, &sv, off, pk + moved, m, end, &got);
            else
                rc = view_piece(f, off, pk + moved, m, write, &got);
            moved += got;
            if (got < m)
                break;
            r += (MPI_Offset)m;
            if (++i == f->nseg || r >= f->ftsize) {
                i = 0;
                r = 0;
                k++;
            }
        }
        *done = moved;
        free(sv.buf);
    }
    if (locked) {
        mpii_file_lock(f->fd, lo, hi, F_UNLCK);
    }
    return rc;
}

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    const char *fn = "MPI_File_set_view";
    mpii_file_t *f = mpii_file(fh);
    if (!f)
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    mpii_dtype_t *et = mpii_dtype(etype), *ft = mpii_dtype(filetype);
    if (!mpii_dtype_ok(et) || !mpii_dtype_ok(ft))
        return mpii_file_err(f, MPI_ERR_TYPE, fn, "invalid or uncommitted %s",
                             mpii_dtype_ok(et) ? "filetype" : "etype");
    if (!datarep)
        return mpii_file_err(f, MPI_ERR_ARG, fn, "datarep is NULL");
    const mpii_datarep_t *drep = mpii_file_datarep(datarep);
    if (drep && (!mpii_file_datarep_ok(drep, et) || !mpii_file_datarep_ok(drep, ft)))
        return mpii_file_err(f, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                             "datarep %s with types whose file extent is not native", datarep);
    if (strcmp(datarep, "native") != 0 && strcmp(datarep, "internal") != 0 && !drep)
        return mpii_file_err(f, MPI_ERR_UNSUPPORTED_DATAREP, fn, "data representation %s",
                             datarep);
    if (info != MPI_INFO_NULL && !mpii_info(info))
        return mpii_file_err(f, MPI_ERR_INFO, fn, "invalid info");
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        if (!(f->amode & MPI_MODE_SEQUENTIAL))
            return mpii_file_err(f, MPI_ERR_ARG, fn,
                                 "MPI_DISPLACEMENT_CURRENT on a non-sequential file");
        int64_t sp = 0;
        mpii_file_shared_fetch_add(f, 0, &sp);
        disp = mpii_file_byte_of(f, sp * (MPI_Offset)f->esize);
    } else if (disp < 0) {
        return mpii_file_err(f, MPI_ERR_ARG, fn, "negative displacement");
    }
    int ro = !!(f->amode & MPI_MODE_RDONLY);
    if (!flat_monotone(et, ro) || !flat_monotone(ft, ro))
        return mpii_file_err(f, MPI_ERR_IO, fn,
                             "%s displacements are negative, decreasing or overlapping",
                             flat_monotone(et, ro) ? "filetype" : "etype");
    if (et->size && ft->size % et->size)
        return mpii_file_err(f, MPI_ERR_TYPE, fn, "filetype is not made of whole etypes");
    PMPI_Barrier(f->comm); /* no rank still uses the shared pointer of the old view */
    int rc = view_set(f, disp, et, ft, datarep);
    f->drep = drep;
    if (rc == MPI_SUCCESS && f->rank == 0)
        mpii_file_shared_set(f, 0);
    if (rc == MPI_SUCCESS)
        PMPI_File_set_info(fh, info);
    PMPI_Barrier(f->comm);
    return rc ? mpii_file_err(f, rc, fn, "out of memory") : MPI_SUCCESS;
}
MPII_WEAK(File_set_view)

static MPI_Datatype view_type_out(mpii_dtype_t *d)
{
    MPI_Datatype h = mpii_dtype_handle(d), out = h;
    if (!d->predefined && PMPI_Type_dup(h, &out) != MPI_SUCCESS)
        out = MPI_DATATYPE_NULL;
    return out;
}

int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                       char *datarep)
{
    const char *fn = "MPI_File_get_view";
    mpii_file_t *f = mpii_file(fh);
    if (!f)
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    if (!disp || !etype || !filetype || !datarep)
        return mpii_file_err(f, MPI_ERR_ARG, fn, "an output argument is NULL");
    *disp = f->disp;
    *etype = view_type_out(f->etype);
    *filetype = view_type_out(f->ftype);
    strcpy(datarep, f->datarep);
    return MPI_SUCCESS;
}
MPII_WEAK(File_get_view)

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    const char *fn = "MPI_File_get_byte_offset";
    mpii_file_t *f = mpii_file(fh);
    if (!f)
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    if (!disp || offset < 0)
        return mpii_file_err(f, MPI_ERR_ARG, fn, "%s", disp ? "negative offset" : "disp is NULL");
    if (mpii_file_is_x32(f)) {
        int rc = mpii_file_x32_byte_of(f, offset, disp);
        return rc ? mpii_file_err(f, rc, fn, "the external32 layout of the view") : MPI_SUCCESS;
    }
    *disp = mpii_file_byte_of(f, offset * (MPI_Offset)f->esize);
    return MPI_SUCCESS;
}
MPII_WEAK(File_get_byte_offset)

static int view_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent,
                            const char *fn)
{
    mpii_file_t *f = mpii_file(fh);
    if (!f)
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    mpii_dtype_t *d = mpii_dtype(datatype);
    if (!d)
        return mpii_file_err(f, MPI_ERR_TYPE, fn, "invalid datatype");
    if (!extent)
        return mpii_file_err(f, MPI_ERR_ARG, fn, "extent is NULL");
    if (f->drep) {
        MPI_Aint e = 0;
        int rc = mpii_file_datarep_extent(f->drep, d, &e);
        if (rc)
            return mpii_file_err(f, rc, fn, "dtype_file_extent_fn failed");
        *extent = e;
        return MPI_SUCCESS;
    }
    *extent = d->extent; /* native, internal and external32 (same-size types): memory's */
    return MPI_SUCCESS;
}

MPII_TWINS(File_get_type_extent, view_type_extent(fh, datatype, NARROW(extent, (MPI_Aint)), FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "file_view.twins.h"
