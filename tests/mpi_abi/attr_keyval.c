/* SPDX-License-Identifier: BSD-3-Clause */
/* Attribute life cycles on communicators, datatypes and windows: a delete callback that
 * deletes other attributes of the same object; a keyval freed from its own delete callback
 * and again through a copy of its handle while attributes still use it (accepted), and
 * once more after its last attribute is gone (MPI_ERR_KEYVAL); attributes on a
 * predefined datatype; the name of MPI_WIN_NULL. */
#include <string.h>

#include "check.h"

static int key1, key3, deleted;

/* ---- A delete callback deleting other attributes of its object ---- */

static int comm_del_others(MPI_Comm c, int kv, void *v, void *x)
{
    (void)kv, (void)v, (void)x;
    deleted++;
    int flag;
    void *other;
    for (int i = 0; i < 2; i++) { /* those still set (the order of a free's deletions) */
        int k = i ? key3 : key1;
        CHECK_OK(MPI_Comm_get_attr(c, k, &other, &flag));
        if (flag)
            CHECK_OK(MPI_Comm_delete_attr(c, k));
    }
    return MPI_SUCCESS;
}

static int type_del_others(MPI_Datatype t, int kv, void *v, void *x)
{
    (void)kv, (void)v, (void)x;
    deleted++;
    int flag;
    void *other;
    for (int i = 0; i < 2; i++) { /* those still set (the order of a free's deletions) */
        int k = i ? key3 : key1;
        CHECK_OK(MPI_Type_get_attr(t, k, &other, &flag));
        if (flag)
            CHECK_OK(MPI_Type_delete_attr(t, k));
    }
    return MPI_SUCCESS;
}

static int win_del_others(MPI_Win w, int kv, void *v, void *x)
{
    (void)kv, (void)v, (void)x;
    deleted++;
    int flag;
    void *other;
    for (int i = 0; i < 2; i++) { /* those still set (the order of a free's deletions) */
        int k = i ? key3 : key1;
        CHECK_OK(MPI_Win_get_attr(w, k, &other, &flag));
        if (flag)
            CHECK_OK(MPI_Win_delete_attr(w, k));
    }
    return MPI_SUCCESS;
}

static int count_del(MPI_Comm c, int kv, void *v, void *x)
{
    (void)c, (void)kv, (void)v, (void)x;
    deleted++;
    return MPI_SUCCESS;
}

static int type_count_del(MPI_Datatype t, int kv, void *v, void *x)
{
    (void)t, (void)kv, (void)v, (void)x;
    deleted++;
    return MPI_SUCCESS;
}

static void test_delete_others(MPI_Win win)
{
    int key2, flag;
    void *v;
    /* communicator: set in order 1, 2, 3 (the list keeps 3 before 2) */
    MPI_Comm c;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_del, &key1, NULL));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_del_others, &key2, NULL));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_del, &key3, NULL));
    CHECK_OK(MPI_Comm_set_attr(c, key1, (void *)1));
    CHECK_OK(MPI_Comm_set_attr(c, key2, (void *)2));
    CHECK_OK(MPI_Comm_set_attr(c, key3, (void *)3));
    deleted = 0;
    CHECK_OK(MPI_Comm_delete_attr(c, key2));
    CHECK(deleted == 3, "comm: %d delete callbacks ran, expected 3", deleted);
    CHECK_OK(MPI_Comm_get_attr(c, key1, &v, &flag));
    CHECK(!flag, "comm: key1 still set");
    /* the same from Comm_free, key2 set last (deleted first here) */
    CHECK_OK(MPI_Comm_set_attr(c, key1, (void *)1));
    CHECK_OK(MPI_Comm_set_attr(c, key3, (void *)3));
    CHECK_OK(MPI_Comm_set_attr(c, key2, (void *)2));
    deleted = 0;
    CHECK_OK(MPI_Comm_free(&c));
    CHECK(deleted == 3, "comm free: %d delete callbacks ran", deleted);
    CHECK_OK(MPI_Comm_free_keyval(&key1));
    CHECK_OK(MPI_Comm_free_keyval(&key2));
    CHECK_OK(MPI_Comm_free_keyval(&key3));

    /* datatype */
    MPI_Datatype t;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_count_del, &key1, NULL));
    CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_del_others, &key2, NULL));
    CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &key3,
                                    NULL));
    CHECK_OK(MPI_Type_set_attr(t, key1, (void *)1));
    CHECK_OK(MPI_Type_set_attr(t, key2, (void *)2));
    CHECK_OK(MPI_Type_set_attr(t, key3, (void *)3));
    deleted = 0;
    CHECK_OK(MPI_Type_delete_attr(t, key2));
    CHECK(deleted == 2, "type: %d delete callbacks ran, expected 2", deleted);
    CHECK_OK(MPI_Type_get_attr(t, key3, &v, &flag));
    CHECK(!flag, "type: key3 still set");
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Type_free_keyval(&key1));
    CHECK_OK(MPI_Type_free_keyval(&key2));
    CHECK_OK(MPI_Type_free_keyval(&key3));

    /* window */
    CHECK_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &key1, NULL));
    CHECK_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_del_others, &key2, NULL));
    CHECK_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &key3, NULL));
    CHECK_OK(MPI_Win_set_attr(win, key1, (void *)1));
    CHECK_OK(MPI_Win_set_attr(win, key2, (void *)2));
    CHECK_OK(MPI_Win_set_attr(win, key3, (void *)3));
    deleted = 0;
    CHECK_OK(MPI_Win_delete_attr(win, key2));
    CHECK(deleted == 1, "win: %d delete callbacks ran", deleted);
    CHECK_OK(MPI_Win_get_attr(win, key1, &v, &flag));
    CHECK(!flag, "win: key1 still set");
    CHECK_OK(MPI_Win_free_keyval(&key1));
    CHECK_OK(MPI_Win_free_keyval(&key2));
    CHECK_OK(MPI_Win_free_keyval(&key3));
}

/* ---- Keyvals freed while attributes still use them ---- */

static int comm_free_own(MPI_Comm c, int kv, void *v, void *x)
{
    (void)c, (void)v, (void)x;
    deleted++;
    return MPI_Comm_free_keyval(&kv);
}

static int type_free_own(MPI_Datatype t, int kv, void *v, void *x)
{
    (void)t, (void)v, (void)x;
    deleted++;
    return MPI_Type_free_keyval(&kv);
}

static int win_free_own(MPI_Win w, int kv, void *v, void *x)
{
    (void)w, (void)v, (void)x;
    deleted++;
    return MPI_Win_free_keyval(&kv);
}

static void expect_keyval_err(int rc, const char *what)
{
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "%s: class %d, expected MPI_ERR_KEYVAL", what, cls);
}

static void test_double_free(void)
{
    int kv, copy, saved;
    MPI_Comm a, b;
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    /* communicators */
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_free_own, &kv, NULL));
    copy = saved = kv;
    CHECK_OK(MPI_Comm_set_attr(a, kv, NULL));
    CHECK_OK(MPI_Comm_set_attr(b, kv, NULL));
    deleted = 0;
    CHECK_OK(MPI_Comm_free(&a)); /* first free, from the callback */
    CHECK_OK(MPI_Comm_free_keyval(&kv));
    CHECK(kv == MPI_KEYVAL_INVALID, "comm: handle not reset");
    CHECK_OK(MPI_Comm_free_keyval(&copy)); /* still used by b */
    CHECK_OK(MPI_Comm_free(&b)); /* last attribute: the keyval goes */
    CHECK(deleted == 2, "comm: %d delete callbacks", deleted);
    expect_keyval_err(MPI_Comm_free_keyval(&saved), "comm keyval freed after its last use");
    /* datatypes */
    MPI_Datatype ta, tb;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &ta));
    CHECK_OK(MPI_Type_dup(ta, &tb));
    CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_free_own, &kv, NULL));
    copy = saved = kv;
    CHECK_OK(MPI_Type_set_attr(ta, kv, NULL));
    CHECK_OK(MPI_Type_set_attr(tb, kv, NULL));
    deleted = 0;
    CHECK_OK(MPI_Type_free(&ta));
    CHECK_OK(MPI_Type_free_keyval(&kv));
    CHECK_OK(MPI_Type_free_keyval(&copy));
    CHECK_OK(MPI_Type_free(&tb));
    CHECK(deleted == 2, "type: %d delete callbacks", deleted);
    expect_keyval_err(MPI_Type_free_keyval(&saved), "type keyval freed after its last use");
    /* windows */
    MPI_Win wa, wb;
    CHECK_OK(MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wa));
    CHECK_OK(MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wb));
    CHECK_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_free_own, &kv, NULL));
    copy = saved = kv;
    CHECK_OK(MPI_Win_set_attr(wa, kv, NULL));
    CHECK_OK(MPI_Win_set_attr(wb, kv, NULL));
    deleted = 0;
    CHECK_OK(MPI_Win_free(&wa));
    CHECK_OK(MPI_Win_free_keyval(&kv));
    CHECK_OK(MPI_Win_free_keyval(&copy));
    CHECK_OK(MPI_Win_free(&wb));
    CHECK(deleted == 2, "win: %d delete callbacks", deleted);
    expect_keyval_err(MPI_Win_free_keyval(&saved), "win keyval freed after its last use");
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* ---- Attributes on a predefined datatype, the null window's name ---- */

static void test_predefined(void)
{
    int kv, flag = 0, len = 0;
    void *v = NULL;
    char name[MPI_MAX_OBJECT_NAME];
    CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kv, NULL));
    CHECK_OK(MPI_Type_set_attr(MPI_INT, kv, (void *)42));
    CHECK_OK(MPI_Type_get_attr(MPI_INT, kv, &v, &flag));
    CHECK(flag && v == (void *)42, "MPI_INT attribute: flag %d value %p", flag, v);
    CHECK_OK(MPI_Type_get_attr(MPI_DOUBLE, kv, &v, &flag));
    CHECK(!flag, "MPI_DOUBLE has MPI_INT's attribute");
    CHECK_OK(MPI_Type_delete_attr(MPI_INT, kv));
    CHECK_OK(MPI_Type_get_attr(MPI_INT, kv, &v, &flag));
    CHECK(!flag, "MPI_INT attribute still set");
    CHECK_OK(MPI_Type_free_keyval(&kv));
    CHECK_OK(MPI_Win_get_name(MPI_WIN_NULL, name, &len));
    CHECK(strcmp(name, "MPI_WIN_NULL") == 0 && len == 12, "name of MPI_WIN_NULL: %s", name);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK_OK(MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    test_delete_others(win);
    CHECK_OK(MPI_Win_free(&win));
    test_double_free();
    test_predefined();
    MPI_Finalize();
    if (rank == 0)
        printf("attr_keyval: ok\n");
    return 0;
}
