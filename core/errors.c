/* SPDX-License-Identifier: BSD-3-Clause */
/* The one list of status codes and their sentences. */
#include "rmpi.h"

static const char *const errors_text[] = {
    [0] = "success",
    /* Which argument, and why, is said where it is found (a log line, or the MPI
     * layer's message): this sentence must not guess. */
    [-RMP_ERR_ARG] = "invalid argument",
    [-RMP_ERR_NOMEM] = "out of memory",
    [-RMP_ERR_TRUNCATE] = "message truncated: the incoming message is larger than the "
                          "receive buffer",
    [-RMP_ERR_ACCESS] = "remote access outside the target window or to a freed window",
    [-RMP_ERR_PEER_FAILED] = "a peer process failed or its connection broke",
    [-RMP_ERR_TIMEOUT] = "operation timed out",
    [-RMP_ERR_NOT_SUPPORTED] = "operation not supported by this build or transport",
    [-RMP_ERR_STATE] = "rmp is not initialized (called before rmp_init or after "
                       "rmp_finalize)",
    [-RMP_ERR_TRANSPORT] = "transport error",
    [-RMP_ERR_BOOTSTRAP] = "bootstrap (PMIx) error",
    [-RMP_ERR_INTERNAL] = "internal error in rmp",
    [-RMP_ERR_CANCELLED] = "the request was cancelled before its message matched",
    [-RMP_ERR_REVOKED] = "the communicator was revoked (by this or another member)",
    [-RMP_ERR_PEER_FAILED_PENDING] = "a member that could have sent the message failed: "
                                     "the receive from any source is still pending",
};

RMP_EXPORT const char *rmp_strerror(int code)
{
    if (code > 0 || code <= RMP_ERR_LAST)
        return "unknown rmp status code";
    return errors_text[-code];
}
