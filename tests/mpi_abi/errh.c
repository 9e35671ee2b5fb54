/* SPDX-License-Identifier: BSD-3-Clause */
/* Error handlers and classes: ERRORS_RETURN gives the class; user handlers
 * are called with the code; Call_errhandler; user-added classes, codes and
 * strings; a function without a communicator (MPI_Comm_join) reports through
 * MPI_COMM_WORLD's handler. */
#include <string.h>

#include "check.h"

static int handler_calls, handler_code;
static MPI_Comm handler_comm;

static void on_error(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_comm = *comm;
}

static int class_of(int code)
{
    int cls = -1;
    CHECK_OK(MPI_Error_class(code, &cls));
    return cls;
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    MPI_Errhandler eh;
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default handler is not ERRORS_ARE_FATAL");
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    /* RETURN: the call returns the class */
    int r;
    CHECK(class_of(MPI_Comm_rank(MPI_COMM_NULL, &r)) == MPI_ERR_COMM, "COMM_NULL");
    MPI_Group g;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    int bad = 1000;
    MPI_Group ng;
    CHECK(class_of(MPI_Group_incl(g, 1, &bad, &ng)) == MPI_ERR_RANK, "Group_incl rank 1000");
    CHECK_OK(MPI_Group_free(&g));

    /* a function without a communicator (MPI_COMM_WORLD's handler): a join over a socket
     * that is not one returns its class, and Error_string gives a whole string for it */
    MPI_Comm inter;
    int rc = MPI_Comm_join(-1, &inter);
    CHECK(class_of(rc) == MPI_ERR_ARG, "Comm_join returned %d", rc);
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    CHECK_OK(MPI_Error_string(rc, msg, &len));
    CHECK(len > 0 && len == (int)strlen(msg), "Error_string: '%s'", msg);

    /* a user handler sees the code and the communicator */
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_create_errhandler(on_error, &eh));
    CHECK_OK(MPI_Comm_set_errhandler(dup, eh));
    CHECK_OK(MPI_Errhandler_free(&eh)); /* still in use by dup */
    CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free did not reset the handle");
    int coords[2];
    rc = MPI_Cart_coords(dup, 0, 2, coords); /* no topology */
    CHECK(rc == MPI_ERR_TOPOLOGY && handler_calls == 1 && handler_code == MPI_ERR_TOPOLOGY &&
              handler_comm == dup,
          "user handler: rc %d calls %d code %d", rc, handler_calls, handler_code);
    /* a dup inherits the handler */
    MPI_Comm dup2;
    CHECK_OK(MPI_Comm_dup(dup, &dup2));
    CHECK(MPI_Comm_set_name(dup2, NULL) == MPI_ERR_ARG && handler_calls == 2 &&
              handler_comm == dup2, "inherited handler: calls %d", handler_calls);
    CHECK_OK(MPI_Comm_free(&dup2));

    /* user classes, codes and strings */
    int cls, code, lastused, flag;
    int *attr;
    CHECK_OK(MPI_Add_error_class(&cls));
    CHECK_OK(MPI_Add_error_code(cls, &code));
    CHECK(cls > MPI_ERR_LASTCODE && code > cls, "class %d code %d", cls, code);
    CHECK_OK(MPI_Add_error_string(code, "the frobnicator jammed"));
    CHECK_OK(MPI_Error_string(code, msg, &len));
    CHECK(strcmp(msg, "the frobnicator jammed") == 0, "user string '%s'", msg);
    CHECK(class_of(code) == cls, "class of the user code");
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &attr, &flag));
    lastused = *attr;
    CHECK(flag && lastused == code, "MPI_LASTUSEDCODE %d, code %d", lastused, code);
    CHECK_OK(MPI_Comm_call_errhandler(dup, code));
    CHECK(handler_calls == 3 && handler_code == code, "Call_errhandler: %d %d", handler_calls,
          handler_code);
    CHECK(class_of(MPI_Add_error_string(MPI_ERR_RANK, "x")) == MPI_ERR_ARG,
          "Add_error_string on a predefined code");
    CHECK_OK(MPI_Comm_free(&dup));

    /* predefined handlers */
    CHECK(class_of(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)0x7)) ==
              MPI_ERR_ERRHANDLER, "garbage errhandler");
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_OK(MPI_Finalize());
    return 0;
}
