/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO basics: open/close/delete and the access-mode error classes, size,
 * preallocate, sync, explicit-offset and individual-pointer contiguous access,
 * seek, file error handlers (MPI_ERRORS_RETURN by default, MPI_FILE_NULL's for
 * open), info hints, atomicity, nonblocking and split-collective forms. The file's
 * bytes are checked with plain POSIX reads. */
#include "io_util.h"

static int errh_calls, errh_last;
static void file_errh(MPI_File *fh, int *code, ...)
{
    (void)fh;
    errh_calls++;
    errh_last = *code;
}

static int cls(int rc)
{
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

#define N 64

int main(int argc, char **argv)
{
    int rank, size;
    io_start(&argc, &argv, &rank, &size);
    MPI_File fh;
    char a[320];
    snprintf(a, sizeof(a), "%s", io_path("a"));

    /* access modes and their error classes (MPI_FILE_NULL's handler: ERRORS_RETURN) */
    CHECK(cls(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh)) ==
              MPI_ERR_NO_SUCH_FILE, "missing file");
    CHECK(cls(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL,
                            &fh)) == MPI_ERR_AMODE, "RDONLY|CREATE");
    CHECK(cls(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_RDWR | MPI_MODE_WRONLY, MPI_INFO_NULL,
                            &fh)) == MPI_ERR_AMODE, "RDWR|WRONLY");
    CHECK(cls(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL,
                            &fh)) == MPI_ERR_AMODE, "RDWR|SEQUENTIAL");
    CHECK(cls(MPI_File_open(MPI_COMM_WORLD, io_path("nodir/x"), MPI_MODE_WRONLY | MPI_MODE_CREATE,
                            MPI_INFO_NULL, &fh)) == MPI_ERR_NO_SUCH_FILE, "missing directory");
    CHECK(cls(MPI_File_delete(a, MPI_INFO_NULL)) == MPI_ERR_NO_SUCH_FILE, "delete missing");

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    MPI_Info_set(info, "striping_unit", "65536");
    MPI_Info_set(info, "no_such_hint", "x");
    int rc = MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL,
                           info, &fh);
    char es[MPI_MAX_ERROR_STRING];
    int el;
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, es, &el);
    CHECK(rc == MPI_SUCCESS, "open: %s", es);
    MPI_Info_free(&info);
    MPI_File f2;
    CHECK(cls(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL,
                            MPI_INFO_NULL, &f2)) == MPI_ERR_FILE_EXISTS, "EXCL on existing");
    MPI_Info used;
    char v[64];
    int flag, len = sizeof(v);
    CHECK_OK(MPI_File_get_info(fh, &used));
    MPI_Info_get_string(used, "cb_buffer_size", &len, v, &flag);
    CHECK(flag && strcmp(v, "1048576") == 0, "cb_buffer_size in force: %s", flag ? v : "-");
    len = sizeof(v);
    MPI_Info_get_string(used, "no_such_hint", &len, v, &flag);
    CHECK(!flag, "unknown hint shown");
    MPI_Info_free(&used);
    int amode;
    MPI_File_get_amode(fh, &amode);
    CHECK(amode == (MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL), "amode %#x", amode);
    MPI_Group g;
    int gs;
    MPI_File_get_group(fh, &g);
    MPI_Group_size(g, &gs);
    MPI_Group_free(&g);
    CHECK(gs == size, "group size");

    /* explicit offsets: rank r writes ints r*N..r*N+N-1 at its block */
    int buf[N], back[N];
    for (int i = 0; i < N; i++)
        buf[i] = rank * N + i;
    MPI_Status st;
    int cnt;
    CHECK_OK(MPI_File_write_at(fh, (MPI_Offset)rank * N * 4, buf, N, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == N, "write_at count %d", cnt);
    CHECK_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset fsz;
    MPI_File_get_size(fh, &fsz);
    CHECK(fsz == (MPI_Offset)size * N * 4, "size %lld", (long long)fsz);
    unsigned char *raw = malloc((size_t)size * N * 4 + 64);
    CHECK(io_slurp(a, raw, (long)size * N * 4 + 64) == (long)size * N * 4, "file length");
    for (int i = 0; i < size * N; i++) {
        int x;
        memcpy(&x, raw + 4 * i, 4);
        CHECK(x == i, "byte content at int %d: %d", i, x);
    }
    int peer = (rank + 1) % size;
    CHECK_OK(MPI_File_read_at(fh, (MPI_Offset)peer * N * 4, back, N, MPI_INT, &st));
    for (int i = 0; i < N; i++)
        CHECK(back[i] == peer * N + i, "read_at %d", i);
    /* reading past the end is short */
    CHECK_OK(MPI_File_read_at(fh, fsz - 12, back, N, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 3, "short read count %d", cnt);

    /* individual pointer: seek, read, position */
    CHECK_OK(MPI_File_seek(fh, (MPI_Offset)peer * N * 4 + 8, MPI_SEEK_SET));
    CHECK_OK(MPI_File_read(fh, back, 4, MPI_INT, &st));
    CHECK(back[0] == peer * N + 2 && back[3] == peer * N + 5, "read after seek");
    MPI_Offset pos;
    MPI_File_get_position(fh, &pos);
    CHECK(pos == (MPI_Offset)peer * N * 4 + 24, "position %lld", (long long)pos);
    CHECK_OK(MPI_File_seek(fh, -4, MPI_SEEK_END));
    MPI_File_get_position(fh, &pos);
    CHECK(pos == fsz - 4, "seek end");
    CHECK(cls(MPI_File_seek(fh, -1, MPI_SEEK_SET)) == MPI_ERR_ARG, "negative seek");
    MPI_Offset bo;
    MPI_File_get_byte_offset(fh, 10, &bo);
    CHECK(bo == 10, "byte offset");
    MPI_Barrier(MPI_COMM_WORLD);

    /* nonblocking and split collective, then set_size truncates */
    MPI_Request rq;
    for (int i = 0; i < N; i++)
        buf[i] = -(rank * N + i);
    CHECK_OK(MPI_File_iwrite_at(fh, (MPI_Offset)rank * N * 4, buf, N, MPI_INT, &rq));
    CHECK_OK(MPI_Wait(&rq, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == N, "iwrite_at count %d", cnt);
    CHECK_OK(MPI_File_read_at_all_begin(fh, (MPI_Offset)rank * N * 4, back, N, MPI_INT));
    CHECK(cls(MPI_File_read_at_all_begin(fh, 0, back, N, MPI_INT)) == MPI_ERR_OTHER,
          "two split collectives");
    CHECK_OK(MPI_File_read_at_all_end(fh, back, &st));
    for (int i = 0; i < N; i++)
        CHECK(back[i] == -(rank * N + i), "split read %d", i);
    CHECK_OK(MPI_File_iread_at(fh, (MPI_Offset)rank * N * 4, back, N, MPI_INT, &rq));
    int done = 0; /* the I/O thread completes it: MPI_Test only observes */
    for (int k = 0; k < 200000 && !done; k++) {
        CHECK_OK(MPI_Test(&rq, &done, &st));
        if (!done)
            usleep(50);
    }
    CHECK(done && back[5] == -(rank * N + 5), "iread did not complete in 10 s of MPI_Test");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_File_set_size(fh, 100));
    MPI_File_get_size(fh, &fsz);
    CHECK(fsz == 100, "set_size %lld", (long long)fsz);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_File_preallocate(fh, 200));
    MPI_File_get_size(fh, &fsz);
    CHECK(fsz == 200, "preallocate %lld", (long long)fsz);
    MPI_Barrier(MPI_COMM_WORLD);

    /* atomicity */
    CHECK_OK(MPI_File_set_atomicity(fh, 1));
    MPI_File_get_atomicity(fh, &flag);
    CHECK(flag == 1, "atomicity");
    CHECK_OK(MPI_File_write_at(fh, 0, buf, 1, MPI_INT, &st));
    CHECK_OK(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "close sets MPI_FILE_NULL");

    /* errors on a file: ERRORS_RETURN by default, then a user handler */
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    MPI_Errhandler eh;
    MPI_File_get_errhandler(fh, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "default file handler");
    CHECK(cls(MPI_File_write_at(fh, 0, buf, 1, MPI_INT, &st)) == MPI_ERR_READ_ONLY, "read-only");
    CHECK_OK(MPI_File_create_errhandler(file_errh, &eh));
    CHECK_OK(MPI_File_set_errhandler(fh, eh));
    MPI_File_set_size(fh, 0);
    CHECK(errh_calls == 1 && cls(errh_last) == MPI_ERR_READ_ONLY, "user handler called");
    MPI_File_call_errhandler(fh, MPI_ERR_IO);
    CHECK(errh_calls == 2 && errh_last == MPI_ERR_IO, "call_errhandler");
    CHECK_OK(MPI_File_close(&fh));
    /* MPI_FILE_NULL's handler serves open errors */
    CHECK_OK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    MPI_File_open(MPI_COMM_WORLD, io_path("missing"), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(errh_calls == 3 && cls(errh_last) == MPI_ERR_NO_SUCH_FILE, "open error handler");
    CHECK_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&eh);
    CHECK(MPI_File_toint(MPI_FILE_NULL) == MPI_File_toint(MPI_File_fromint(
                                              MPI_File_toint(MPI_FILE_NULL))), "toint");

    /* WRONLY: reads are refused; APPEND starts at the end; DELETE_ON_CLOSE removes */
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_WRONLY | MPI_MODE_APPEND |
                           MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    CHECK(cls(MPI_File_read_at(fh, 0, back, 1, MPI_INT, &st)) == MPI_ERR_ACCESS, "write-only");
    MPI_File_get_position(fh, &pos);
    CHECK(pos == 200, "append position %lld", (long long)pos);
    CHECK_OK(MPI_File_close(&fh));
    CHECK(access(a, F_OK) != 0, "delete on close");
    MPI_Barrier(MPI_COMM_WORLD);
    free(raw);
    const char *names[] = {"a"};
    io_dir_remove(names, 1);
    MPI_Finalize();
    if (rank == 0)
        printf("io_basic: ok\n");
    return 0;
}
