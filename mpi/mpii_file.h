/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO over POSIX files (mpi/file_*.c): the object behind an MPI_File handle.
 *
 * A file is one descriptor per process on the same path. The view (disp, etype,
 * filetype) is kept flattened: one filetype element as a list of (offset, length)
 * pieces in typemap order, tiled every filetype extent from disp. Offsets given by
 * the user (explicit, individual and shared pointers) count etypes of the view's
 * data stream; "stream position" below is that count in bytes. */
#ifndef MPII_FILE_H
#define MPII_FILE_H

#include "mpii.h"

#define MPII_MAGIC_FILE 0x6d70f10au

typedef struct mpii_fseg {
    MPI_Offset off; /* from the start of a filetype element */
    MPI_Offset len;
} mpii_fseg_t;

/* One access of a blocking call, saved by a split collective's begin for its end. */
typedef struct mpii_fsplit {
    int active;
    MPI_Status st;
} mpii_fsplit_t;

typedef struct mpii_datarep mpii_datarep_t; /* file_datarep.c */
struct mpii_fasync;                          /* file_async.c */

typedef struct mpii_file {
    uint32_t magic;
    int fd;
    int amode;
    int atomic;
    MPI_Comm comm; /* a private duplicate */
    int rank, size;
    int shfd; /* the shared pointer (etypes): an unlinked file of every rank, see file_shared.c */
    mpii_errh_t *errh;
    char *path;
    /* the view */
    MPI_Offset disp;
    mpii_dtype_t *etype, *ftype;
    size_t esize;           /* etype size */
    MPI_Offset ftsize;      /* filetype size (data bytes per element) */
    MPI_Offset ftext;       /* filetype extent */
    int nseg;
    mpii_fseg_t *seg;       /* one filetype element */
    MPI_Offset *segsum;     /* data bytes before seg[i] (nseg + 1) */
    char datarep[MPI_MAX_DATAREP_STRING];
    const mpii_datarep_t *drep; /* a user's (MPI_Register_datarep), else NULL */
    MPI_Offset ptr;         /* individual pointer, etypes */
    mpii_fsplit_t split;
    /* hints in force */
    MPI_Offset cb_buffer_size;
    int cb_nodes, cb_read, cb_write; /* romio_cb_*: 0 disable, 1 enable, 2 automatic */
    MPI_Offset striping_unit;
    int striping_factor;
    /* fast paths (file_aggr.c, file_sieve.c, file_direct.c) */
    int nodes;              /* nodes the ranks of comm are on */
    int *aggr;              /* ranks in aggregator order: one per node first, then a second... */
    int ds_read, ds_write;  /* romio_ds_*: 0 disable, 1 enable, 2 automatic */
    MPI_Offset ds_rd_size, ds_wr_size; /* ind_rd_buffer_size, ind_wr_buffer_size */
    int direct_req;         /* direct_io (or direct_read/direct_write) asked for */
    int dfd;                /* an O_DIRECT descriptor, -1 when not asked or refused */
    size_t dalign;          /* O_DIRECT alignment of offsets, lengths and memory */
    struct mpii_fasync *as; /* nonblocking accesses in the I/O thread, else NULL */
} mpii_file_t;

/* The object of a handle, NULL when invalid (MPI_FILE_NULL included). */
mpii_file_t *mpii_file(MPI_File h);
/* Report an error on f (NULL: on MPI_FILE_NULL, whose handler open/delete errors use). */
int mpii_file_err(mpii_file_t *f, int code, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* errno of a failed system call -> MPI error class. */
int mpii_file_errno_class(int err);

/* The view (file_view.c): the default one (bytes from offset 0), its release. */
int mpii_file_view_default(mpii_file_t *f);
void mpii_file_view_free(mpii_file_t *f);
/* external32 is supported for types whose external32 size is their native size (then
 * the view's layout is the same in both): 1 if d is one. */
/* File byte offset of stream position pos. */
MPI_Offset mpii_file_byte_of(const mpii_file_t *f, MPI_Offset pos);
/* Stream position of the data before file byte off (the end of file as a position). */
MPI_Offset mpii_file_pos_of(const mpii_file_t *f, MPI_Offset off);
/* Move n packed bytes between pk and the stream at pos; *done: bytes moved (a read
 * stops short at the end of file). MPI error class. */
int mpii_file_view_io(mpii_file_t *f, MPI_Offset pos, char *pk, size_t n, int write,
                      size_t *done);

/* The file pieces of n stream bytes from pos, in stream order, adjacent ones merged
 * (*out: malloc'ed, NULL when n is 0). */
int mpii_file_view_pieces(const mpii_file_t *f, MPI_Offset pos, size_t n, mpii_fseg_t **out,
                          size_t *nout);
/* Two-phase collective access (file_twophase.c) by every rank of f: *done set to 0
 * when the accesses do not interleave (the caller then goes independent). */
int mpii_file_twophase(mpii_file_t *f, MPI_Offset pos, void *buf, MPI_Count count,
                       mpii_dtype_t *d, int write, MPI_Count *bytes, int *done, const char *fn);
/* Collective access without aggregation (file_own.c): my pieces v[0..nv) of the view,
 * in stream order, moved straight between buf and the file; dense: the ranks' pieces
 * together cover most of their span (a read from disk then reads ahead through the
 * holes between mine); *done: bytes moved. */
int mpii_file_own_io(mpii_file_t *f, const mpii_fseg_t *v, size_t nv, void *buf,
                     MPI_Count count, mpii_dtype_t *d, int write, int dense, size_t *done);

/* Moves the n packed bytes that start at byte at of an access's stream between pk and
 * the file (*got: bytes moved, fewer than n only at end of file); MPI class. */
typedef int (*mpii_file_xfer_fn)(void *ctx, size_t at, char *pk, size_t n, int write,
                                 size_t *got);
/* count elements of d at buf as one packed stream through xfer (file_io.c): straight
 * from buf when d is contiguous, else through a bounce buffer of at most 4 MiB, packed
 * before a write, unpacked after a read (a read unpacks only the bytes it got: holes of
 * d and the elements past end of file keep their bytes). *done: bytes moved; MPI class,
 * MPI_ERR_NO_MEM when the bounce buffer cannot be had. */
int mpii_file_bounce(mpii_dtype_t *d, void *buf, MPI_Count count, int write,
                     mpii_file_xfer_fn xfer, void *ctx, size_t *done);
/* Access kinds of mpii_file_rw (file_io.c). */
enum { MPII_FIO_AT = 0, MPII_FIO_INDIV, MPII_FIO_SHARED, MPII_FIO_ORDERED };
/* One blocking access: count elements of dt at buf, from etype offset off (AT), the
 * individual pointer or the shared one; fills st (may be MPI_STATUS_IGNORE). */
int mpii_file_rw(MPI_File fh, int kind, MPI_Offset off, void *buf, MPI_Count count,
                 MPI_Datatype dt, int write, MPI_Status *st, const char *fn);
/* The same where the data is at the stream position pos, for the shared forms. */
int mpii_file_rw_pos(mpii_file_t *f, MPI_Offset pos, void *buf, MPI_Count count,
                     mpii_dtype_t *d, int write, MPI_Count *bytes, const char *fn);
/* Check a file handle, buffer, count and datatype for an access; sets *f and *d. */
int mpii_file_args(MPI_File fh, MPI_Count count, MPI_Datatype dt, int write, mpii_file_t **f,
                   mpii_dtype_t **d, const char *fn);

/* End of a split collective (file_coll.c): the status its begin saved. */
int mpii_file_split_end(MPI_File fh, MPI_Status *st, const char *fn);

/* User data representations (file_datarep.c): look a name up; whether d's elements have
 * their native size in it; a type's file extent; one access converted. */
mpii_datarep_t *mpii_file_datarep(const char *name);
int mpii_file_datarep_ok(const mpii_datarep_t *r, mpii_dtype_t *d);
int mpii_file_datarep_extent(const mpii_datarep_t *r, mpii_dtype_t *d, MPI_Aint *extent);
int mpii_file_datarep_io(mpii_file_t *f, MPI_Offset pos, void *buf, MPI_Count count,
                         mpii_dtype_t *d, int write, size_t *done);

/* external32 views (file_ext32.c): a type's extent in the file; one access moved
 * through f's view laid out in external32 sizes (pos: a native stream position). */
int mpii_file_x32_extent(mpii_dtype_t *d, MPI_Aint *extent);
int mpii_file_x32_io(mpii_file_t *f, MPI_Offset pos, void *buf, MPI_Count count,
                     mpii_dtype_t *d, int write, size_t *done);
/* On an external32 view (mpii_file_is_x32): the etype offset eoff as a byte offset of
 * the file, and the etype offset of the end of a file of size bytes. */
int mpii_file_is_x32(const mpii_file_t *f);
int mpii_file_x32_byte_of(const mpii_file_t *f, MPI_Offset eoff, MPI_Offset *byte);
int mpii_file_x32_end_of(const mpii_file_t *f, MPI_Offset size, MPI_Offset *eoff);

/* Shared pointer (file_shared.c): rank 0 makes its side file, holding init, named in
 * name (cap bytes; MPI class), which the others then open (join; MPI class) and rank 0
 * unlinks once all have; free it, set it (rank 0 only), add n etypes returning the old
 * value. */
int mpii_file_shared_make(mpii_file_t *f, int64_t init, char *name, size_t cap);
int mpii_file_shared_join(mpii_file_t *f, const char *name);
void mpii_file_shared_close(mpii_file_t *f);
int mpii_file_shared_set(mpii_file_t *f, int64_t v);
int mpii_file_shared_fetch_add(mpii_file_t *f, int64_t n, int64_t *old);

/* Fast paths (iobench). Aggregators (file_aggr.c): room for the node layout of f's
 * ranks (MPI class), the layout (collective: one allgather at open), its release. */
int mpii_file_aggr_alloc(mpii_file_t *f);
void mpii_file_aggr_layout(mpii_file_t *f);
/* Hints of the fast paths (file_hints.c): defaults, set from an info, shown in one. */
void mpii_file_fast_defaults(mpii_file_t *f);
void mpii_file_fast_hints(mpii_file_t *f, MPI_Info info);
void mpii_file_fast_info(mpii_file_t *f, MPI_Info in);
void mpii_file_aggr_free(mpii_file_t *f);
/* Independent access of n packed stream bytes at pos through a non-contiguous view
 * with data sieving where it pays (file_sieve.c); same contract as mpii_file_view_io. */
/* file_view.c: pread/pwrite of [off, off + n) until done or end of file (*got: bytes
 * moved; MPI class), and an fcntl lock of [lo, hi) waited for (MPI class). */
int mpii_file_lock(int fd, MPI_Offset lo, MPI_Offset hi, int type);
int mpii_file_fd_xfer(int fd, MPI_Offset off, char *p, size_t n, int write, size_t *got);
int mpii_file_sieve_io(mpii_file_t *f, MPI_Offset pos, char *pk, size_t n, int write,
                       size_t *done);
/* O_DIRECT (file_direct.c): open the second descriptor when the hints ask (fall back to
 * buffered I/O where the file system refuses: dfd stays -1); one contiguous transfer
 * at file offset off, through O_DIRECT for its aligned middle when dfd is open. */
void mpii_file_direct_open(mpii_file_t *f);
int mpii_file_direct_io(mpii_file_t *f, MPI_Offset off, char *p, size_t n, int write,
                        size_t *done);
/* Asynchronous independent access (file_async.c): the I/O thread moves count elements
 * of d at buf from stream position pos (native datarep); *req completes when it is
 * done. MPI error class. Drain: wait for f's operations; close: drain, then release
 * f's state (the thread stops with the last such file, or at MPI_Finalize). */
int mpii_file_async_start(mpii_file_t *f, MPI_Offset pos, void *buf, MPI_Count count,
                          mpii_dtype_t *d, int write, MPI_Request *req);
void mpii_file_async_drain(mpii_file_t *f);
void mpii_file_async_close(mpii_file_t *f);

#endif
