/* SPDX-License-Identifier: BSD-3-Clause */
/* Attributes: predefined keys, copy callbacks across Comm_dup, delete
 * callbacks on set/delete/free, keyval freed while in use, COMM_SELF's
 * attributes deleted first thing in MPI_Finalize. */
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

    int kself;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &kself, NULL));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_SELF, kself, NULL));
    CHECK_OK(MPI_Comm_free_keyval(&kplus));
    CHECK_OK(MPI_Comm_free_keyval(&knull));
    CHECK_OK(MPI_Finalize());
    CHECK(self_deleted_in_finalize, "COMM_SELF attribute not deleted at the start of Finalize");
    return 0;
}
