/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-4.1 MPI_Remove_error_class/code/string (refused for predefined values, for a
 * class that still has codes, for a code given as a class and the reverse; removed
 * codes are unknown to Error_class and their numbers come back), and error-handler
 * semantics on MPI_COMM_SELF, predefined handlers and Comm_call_errhandler. */
#include <string.h>

#include "check.h"

static int calls, last_code;
static MPI_Comm last_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    last_code = *code;
    last_comm = *comm;
}

static int lastused(void)
{
    int *v, flag;
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    CHECK(flag, "no MPI_LASTUSEDCODE");
    return *v;
}

static void removal(void)
{
    int cls, code, code2, out, len;
    char s[MPI_MAX_ERROR_STRING];
    int before = lastused();
    CHECK_OK(MPI_Add_error_class(&cls));
    CHECK_OK(MPI_Add_error_code(cls, &code));
    CHECK_OK(MPI_Add_error_code(cls, &code2));
    CHECK_OK(MPI_Add_error_string(code, "my code"));
    CHECK(lastused() >= code2, "LASTUSEDCODE %d below %d", lastused(), code2);

    /* Refused: predefined, a class with codes, a class as a code, a code as a class. */
    CHECK(MPI_Remove_error_class(MPI_ERR_ARG) != MPI_SUCCESS, "removed a predefined class");
    CHECK(MPI_Remove_error_code(MPI_ERR_TRUNCATE) != MPI_SUCCESS, "removed a predefined code");
    CHECK(MPI_Remove_error_string(MPI_ERR_OTHER) != MPI_SUCCESS, "removed a predefined string");
    CHECK(MPI_Remove_error_class(cls) != MPI_SUCCESS, "removed a class that has codes");
    CHECK(MPI_Remove_error_code(cls) != MPI_SUCCESS, "removed a class as a code");
    CHECK(MPI_Remove_error_class(code) != MPI_SUCCESS, "removed a code as a class");

    CHECK_OK(MPI_Remove_error_string(code));
    CHECK_OK(MPI_Error_string(code, s, &len));
    CHECK(strcmp(s, "my code") != 0, "string still there after removal: %s", s);
    CHECK_OK(MPI_Remove_error_code(code));
    CHECK(MPI_Error_class(code, &out) != MPI_SUCCESS, "removed code %d still known", code);
    CHECK(MPI_Remove_error_code(code) != MPI_SUCCESS, "removed a code twice");
    CHECK(MPI_Remove_error_class(cls) != MPI_SUCCESS, "class still has code2");
    CHECK_OK(MPI_Error_class(code2, &out));
    CHECK(out == cls, "code2's class %d, not %d", out, cls);
    CHECK_OK(MPI_Remove_error_code(code2));
    CHECK_OK(MPI_Remove_error_class(cls));
    CHECK(MPI_Error_class(cls, &out) != MPI_SUCCESS, "removed class still known");
    CHECK(lastused() == before, "LASTUSEDCODE %d, was %d before adding", lastused(), before);

    /* Many rounds do not grow the code space. */
    for (int k = 0; k < 1000; k++) {
        CHECK_OK(MPI_Add_error_class(&cls));
        CHECK_OK(MPI_Add_error_code(cls, &code));
        CHECK_OK(MPI_Add_error_string(code, "x"));
        CHECK_OK(MPI_Remove_error_code(code));
        CHECK_OK(MPI_Remove_error_class(cls));
    }
    CHECK(lastused() == before, "LASTUSEDCODE grew to %d", lastused());
}

static void handlers(void)
{
    MPI_Errhandler eh, got;
    CHECK_OK(MPI_Comm_create_errhandler(handler, &eh));
    /* On MPI_COMM_SELF: errors on it reach the user's handler, with SELF as comm. */
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh));
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_SELF, &got));
    CHECK(got == eh, "get_errhandler on SELF");
    CHECK_OK(MPI_Errhandler_free(&got));
    int dummy;
    calls = 0;
    int rc = MPI_Send(&dummy, 1, MPI_INT, 5, 0, MPI_COMM_SELF); /* no rank 5 */
    CHECK(calls == 1 && last_comm == MPI_COMM_SELF, "handler on SELF: %d calls", calls);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK && last_code == rc, "SELF error %d, handler saw %d", rc,
          last_code);

    /* Comm_call_errhandler: the user's handler with the code, then MPI_SUCCESS. */
    int mycls, mycode;
    CHECK_OK(MPI_Add_error_class(&mycls));
    CHECK_OK(MPI_Add_error_code(mycls, &mycode));
    calls = 0;
    CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_SELF, mycode));
    CHECK(calls == 1 && last_code == mycode, "call_errhandler: %d calls, code %d", calls,
          last_code);
    /* ERRORS_RETURN: nothing called, success. */
    CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, mycode));
    CHECK(calls == 1, "call_errhandler on RETURN called the user handler");

    /* The handler lives while SELF uses it, freed by the user already. */
    CHECK_OK(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "free did not null the handle");
    CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_SELF, mycode));
    CHECK(calls == 2, "freed handler still set on SELF: %d calls", calls);

    /* Predefined handlers from get_errhandler may be freed; the null handle may not. */
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_SELF, &got));
    CHECK(got == MPI_ERRORS_RETURN, "SELF handler not ERRORS_RETURN");
    CHECK_OK(MPI_Errhandler_free(&got));
    got = MPI_ERRHANDLER_NULL;
    rc = MPI_Errhandler_free(&got);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ERRHANDLER || cls == MPI_ERR_ARG, "free of ERRHANDLER_NULL: %d", rc);
    rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL);
    CHECK(rc != MPI_SUCCESS, "set_errhandler(ERRHANDLER_NULL) accepted");
    /* An error on MPI_COMM_NULL goes to the world's handler (ERRORS_RETURN here). */
    int size;
    rc = MPI_Comm_size(MPI_COMM_NULL, &size);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "Comm_size(COMM_NULL): %d", rc);
    CHECK_OK(MPI_Remove_error_code(mycode));
    CHECK_OK(MPI_Remove_error_class(mycls));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    removal();
    handlers();
    MPI_Finalize();
    return 0;
}
