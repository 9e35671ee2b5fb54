/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI Sessions (session.c, session_pset.c). */
#ifndef MPII_SESSION_H
#define MPII_SESSION_H

#include "mpii.h"
#include "mpii_bsend.h"

typedef struct mpii_session {
    uint32_t magic;
    int thread_level;  /* the engine's, as the session's info reports it */
    mpii_errh_t *errh; /* (second word: the pool's link once freed) */
    mpii_bsbuf_t bs;   /* MPI_Session_attach_buffer's, for the communicators from it */
} mpii_session_t;

/* The session of a handle, NULL when invalid. */
mpii_session_t *mpii_session(MPI_Session h);
/* Report an error through s's handler (NULL: MPI_ERRORS_ARE_FATAL) and return the code. */
int mpii_err_session(mpii_session_t *s, int code, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
const char *mpii_session_level_name(int level);

#endif
