/* SPDX-License-Identifier: BSD-3-Clause */
/* Attributes: predefined keys, copy callbacks across Comm_dup, delete
 * callbacks on set/delete/free, keyval freed while in use, COMM_SELF's
 * attributes deleted first thing in MPI_Finalize; datatype attributes copied by
 * Type_dup and deleted with the type, window attributes beside the predefined ones and
 * deleted by Win_free, a keyval of one kind refused on the other. */
#include "check.h"

static int copies, deletes, self_deleted_in_finalize;

/* Copies the value plus 1000, so the test can tell a copy from the original. */
static int copy_plus(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    CHECK(*(int *)extra == 42, "extra_state %d", *(int *)extra);
    copies++;
    *(void **)out = (void *)((intptr_t)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)val;
    (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static int self_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)keyval;
    (void)val;
    (void)extra;
    int flag = 0;
    MPI_Finalized(&flag);
    /* MPI calls are still allowed here */
    int size = 0;
    CHECK_OK(MPI_Comm_size(comm, &size));
    self_deleted_in_finalize = !flag && size == 1;
    return MPI_SUCCESS;
}

static int type_copies, type_deletes, win_deletes;

static int type_copy(MPI_Datatype t, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)t;
    (void)keyval;
    (void)extra;
    type_copies++;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_delete(MPI_Datatype t, int keyval, void *val, void *extra)
{
    (void)t;
    (void)keyval;
    (void)val;
    (void)extra;
    type_deletes++;
    return MPI_SUCCESS;
}

static int win_delete(MPI_Win w, int keyval, void *val, void *extra)
{
    (void)w;
    (void)keyval;
    (void)extra;
    CHECK((intptr_t)val == 77, "window attribute value %ld", (long)(intptr_t)val);
    win_deletes++;
    return MPI_SUCCESS;
}

static void test_type_and_win_attrs(void)
{
    int kt, kw, flag = 0;
    void *got = NULL;
    MPI_Datatype t, t2;
    CHECK_OK(MPI_Type_create_keyval(type_copy, type_delete, &kt, NULL));
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_OK(MPI_Type_set_attr(t, kt, (void *)(intptr_t)10));
    CHECK_OK(MPI_Type_dup(t, &t2));
    CHECK(type_copies == 1, "Type_dup ran %d copy callbacks", type_copies);
    CHECK_OK(MPI_Type_get_attr(t2, kt, &got, &flag));
    CHECK(flag && (intptr_t)got == 11, "copied type attribute %ld", (long)(intptr_t)got);
    CHECK_OK(MPI_Type_delete_attr(t, kt));
    CHECK(type_deletes == 1, "Type_delete_attr: %d deletes", type_deletes);
    CHECK_OK(MPI_Type_get_attr(t, kt, &got, &flag));
    CHECK(!flag, "deleted type attribute still there");
    CHECK_OK(MPI_Type_free(&t2)); /* its copy goes with it */
    CHECK(type_deletes == 2, "Type_free: %d deletes", type_deletes);
    CHECK_OK(MPI_Type_free(&t));

    int mem[4];
    MPI_Win win;
    CHECK_OK(MPI_Win_create(mem, sizeof(mem), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &kw, NULL));
    CHECK_OK(MPI_Win_set_attr(win, kw, (void *)(intptr_t)77));
    CHECK_OK(MPI_Win_get_attr(win, kw, &got, &flag));
    CHECK(flag && (intptr_t)got == 77, "window attribute %ld", (long)(intptr_t)got);
    int *unit = NULL;
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
    CHECK(flag && *unit == (int)sizeof(int), "MPI_WIN_DISP_UNIT beside user attributes");
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int rc = MPI_Win_set_attr(win, kt, NULL), ec = 0;
    MPI_Error_class(rc, &ec);
    CHECK(ec == MPI_ERR_KEYVAL, "a datatype keyval on a window: class %d", ec);
    CHECK_OK(MPI_Win_free(&win));
    CHECK(win_deletes == 1, "Win_free ran %d delete callbacks", win_deletes);
    CHECK_OK(MPI_Win_free_keyval(&kw));
    CHECK_OK(MPI_Type_free_keyval(&kt));
    CHECK(kt == MPI_KEYVAL_INVALID, "Type_free_keyval did not reset");
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int size, flag, *v;
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
    CHECK(flag && *v >= 32767, "MPI_TAG_UB");
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
    CHECK(flag && *v == size, "MPI_UNIVERSE_SIZE %d, size %d", *v, size);
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
    CHECK(flag && *v == 0, "MPI_APPNUM");
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag));
    CHECK(flag && (*v == 0 || *v == 1), "MPI_WTIME_IS_GLOBAL");

    int extra = 42, kplus, kdup, knull;
    CHECK_OK(MPI_Comm_create_keyval(copy_plus, count_delete, &kplus, &extra));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &kdup, NULL));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, NULL));
    MPI_Comm a, b;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_OK(MPI_Comm_set_attr(a, kplus, (void *)(intptr_t)7));
    CHECK_OK(MPI_Comm_set_attr(a, kdup, (void *)(intptr_t)8));
    CHECK_OK(MPI_Comm_set_attr(a, knull, (void *)(intptr_t)9));
    CHECK_OK(MPI_Comm_dup(a, &b));
    CHECK(copies == 1, "copy callback called %d times", copies);
    void *got;
    CHECK_OK(MPI_Comm_get_attr(b, kplus, &got, &flag));
    CHECK(flag && (intptr_t)got == 1007, "copied value %ld", (long)(intptr_t)got);
    CHECK_OK(MPI_Comm_get_attr(b, kdup, &got, &flag));
    CHECK(flag && (intptr_t)got == 8, "DUP_FN value %ld", (long)(intptr_t)got);
    CHECK_OK(MPI_Comm_get_attr(b, knull, &got, &flag));
    CHECK(!flag, "NULL_COPY_FN attribute was copied");
    CHECK_OK(MPI_Comm_get_attr(a, kplus, &got, &flag));
    CHECK(flag && (intptr_t)got == 7, "original changed: %ld", (long)(intptr_t)got);

    /* replacing and deleting call the delete callback */
    CHECK_OK(MPI_Comm_set_attr(b, kplus, (void *)(intptr_t)5));
    CHECK(deletes == 1, "set over an attribute: %d deletes", deletes);
    CHECK_OK(MPI_Comm_delete_attr(b, kplus));
    CHECK(deletes == 2, "delete_attr: %d deletes", deletes);
    CHECK_OK(MPI_Comm_get_attr(b, kplus, &got, &flag));
    CHECK(!flag, "deleted attribute still there");

    /* a freed keyval keeps working for the attributes already set */
    CHECK_OK(MPI_Comm_free_keyval(&kdup));
    CHECK(kdup == MPI_KEYVAL_INVALID, "free_keyval did not reset");
    CHECK_OK(MPI_Comm_free(&b)); /* kdup's attribute: one delete */
    CHECK(deletes == 3, "free of b: %d deletes", deletes);
    CHECK_OK(MPI_Comm_free(&a)); /* kplus and kdup: two deletes */
    CHECK(deletes == 5, "free of a: %d deletes", deletes);

    test_type_and_win_attrs();
    int kself;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &kself, NULL));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_SELF, kself, NULL));
    CHECK_OK(MPI_Comm_free_keyval(&kplus));
    CHECK_OK(MPI_Comm_free_keyval(&knull));
    CHECK_OK(MPI_Finalize());
    CHECK(self_deleted_in_finalize, "COMM_SELF attribute not deleted at the start of Finalize");
    return 0;
}
