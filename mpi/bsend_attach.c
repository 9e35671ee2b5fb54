/* SPDX-License-Identifier: BSD-3-Clause */
/* Attaching buffers for buffered sends: the process's (MPI_Buffer_*) and a
 * communicator's (MPI-4.1 MPI_Comm_*_buffer), which its sends use instead. */
#include <limits.h>
#include <stdlib.h>

#include "mpii_bsend.h"

static int ba_attach(mpii_comm_t *c, mpii_bsbuf_t *b, void *buffer, MPI_Count size,
                     const char *fn)
{
    if (mpii_bs_attach(b, buffer, size) == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (buffer != MPI_BUFFER_AUTOMATIC && (!buffer || size < 0))
        return mpii_err_comm(c, MPI_ERR_BUFFER, fn, "invalid buffer %p of %lld bytes", buffer,
                             (long long)size);
    return mpii_err_comm(c, MPI_ERR_BUFFER, fn, "a buffer is already attached");
}

/* Detach waits until every buffered message has left. */
static int ba_detach(mpii_comm_t *c, mpii_bsbuf_t *b, void *buffer_addr, int *isize,
                     MPI_Count *size, const char *fn)
{
    if (!buffer_addr || (!isize && !size))
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "NULL argument");
    void *buf = NULL;
    MPI_Count n = 0;
    if (b)
        mpii_bs_detach(b, &buf, &n);
    *(void **)buffer_addr = buf;
    if (size)
        *size = n;
    else
        *isize = n > INT_MAX ? INT_MAX : (int)n; /* attached with the _c form */
    return MPI_SUCCESS;
}

MPII_TWINS(Buffer_attach, ba_attach(NULL, &mpii_bs_proc, buffer, size, FN))

MPII_TWINS(Buffer_detach, ba_detach(NULL, &mpii_bs_proc, buffer_addr, TWIN(size, NULL), TWIN(NULL,
           size), FN))

int PMPI_Buffer_flush(void)
{
    mpii_bs_flush(&mpii_bs_proc);
    return MPI_SUCCESS;
}
MPII_WEAK(Buffer_flush)

int PMPI_Buffer_iflush(MPI_Request *request)
{
    if (!request)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Buffer_iflush", "request is NULL");
    int rc = mpii_bs_iflush(&mpii_bs_proc, &mpii_comm_world, request);
    return rc == MPI_SUCCESS ? rc
                             : mpii_err_comm(NULL, rc, "MPI_Buffer_iflush", "out of memory");
}
MPII_WEAK(Buffer_iflush)

/* ---- a communicator's buffer (allocated at its first attach, freed with it) ---- */

#define BA_COMM(comm, c, fn)                                                               \
    mpii_comm_t *c = mpii_comm(comm);                                                      \
    if (!c)                                                                                \
        return mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid communicator %p", (void *)(comm));

static int ba_comm_attach(MPI_Comm comm, void *buffer, MPI_Count size, const char *fn)
{
    BA_COMM(comm, c, fn);
    if (!c->bsbuf && !(c->bsbuf = calloc(1, sizeof(*c->bsbuf))))
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    return ba_attach(c, c->bsbuf, buffer, size, fn);
}

MPII_TWINS(Comm_attach_buffer, ba_comm_attach(comm, buffer, size, FN))

static int ba_comm_detach(MPI_Comm comm, void *buffer_addr, int *isize, MPI_Count *size,
                          const char *fn)
{
    BA_COMM(comm, c, fn);
    return ba_detach(c, c->bsbuf, buffer_addr, isize, size, fn);
}

MPII_TWINS(Comm_detach_buffer, ba_comm_detach(comm, buffer_addr, TWIN(size, NULL),
           TWIN(NULL, size), FN))

int PMPI_Comm_flush_buffer(MPI_Comm comm)
{
    BA_COMM(comm, c, "MPI_Comm_flush_buffer");
    if (c->bsbuf)
        mpii_bs_flush(c->bsbuf);
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_flush_buffer)

int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    BA_COMM(comm, c, "MPI_Comm_iflush_buffer");
    if (!request)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Comm_iflush_buffer", "request is NULL");
    if (!c->bsbuf && !(c->bsbuf = calloc(1, sizeof(*c->bsbuf))))
        return mpii_err_comm(c, MPI_ERR_NO_MEM, "MPI_Comm_iflush_buffer", "out of memory");
    int rc = mpii_bs_iflush(c->bsbuf, c, request);
    return rc == MPI_SUCCESS ? rc
                             : mpii_err_comm(c, rc, "MPI_Comm_iflush_buffer", "out of memory");
}
MPII_WEAK(Comm_iflush_buffer)

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "bsend_attach.twins.h"
