/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO atomic mode: even ranks overwrite one 1 MiB region again and again, each
 * write filled with one byte of its own, while odd ranks read it: in atomic mode every
 * read sees one whole write (a plain buffered read can see a write half done, page by
 * page). Then every rank opens the same file again on its own (MPI_COMM_SELF) and sees
 * the last write. */
#include "io_util.h"

#define REGION (1 << 20)
#define ROUNDS 60

int main(int argc, char **argv)
{
    int rank, size;
    io_start(&argc, &argv, &rank, &size);
    char path[320];
    snprintf(path, sizeof(path), "%s", io_path("atomic"));
    MPI_File fh;
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                           &fh));
    CHECK_OK(MPI_File_set_atomicity(fh, 1));
    unsigned char *buf = malloc(REGION);
    memset(buf, 1, REGION);
    if (rank == 0)
        CHECK_OK(MPI_File_write_at(fh, 0, buf, REGION, MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Status st;
        if (rank % 2 == 0 || size == 1) {
            memset(buf, 2 + rank + (i % 2) * 64, REGION);
            CHECK_OK(MPI_File_write_at(fh, 0, buf, REGION, MPI_BYTE, &st));
        } else {
            CHECK_OK(MPI_File_read_at(fh, 0, buf, REGION, MPI_BYTE, &st));
            int cnt;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK(cnt == REGION, "read %d bytes", cnt);
            for (int j = 1; j < REGION; j++)
                CHECK(buf[j] == buf[0], "round %d: torn read at byte %d (%d, %d)", i, j, buf[j],
                      buf[0]);
        }
    }
    CHECK_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_File_sync(fh));
    unsigned char last = 0;
    if (rank == 0) {
        CHECK_OK(MPI_File_read_at(fh, 0, &last, 1, MPI_BYTE, MPI_STATUS_IGNORE));
    }
    MPI_Bcast(&last, 1, MPI_BYTE, 0, MPI_COMM_WORLD);
    int flag;
    MPI_File_get_atomicity(fh, &flag);
    CHECK(flag == 1, "atomicity flag");
    CHECK_OK(MPI_File_close(&fh));
    /* each process opens the file alone, at the same time */
    CHECK_OK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    CHECK_OK(MPI_File_read_at(fh, 0, buf, REGION, MPI_BYTE, MPI_STATUS_IGNORE));
    for (int j = 0; j < REGION; j++)
        CHECK(buf[j] == last, "self open: byte %d is %d, want %d", j, buf[j], last);
    CHECK_OK(MPI_File_close(&fh));
    free(buf);
    const char *names[] = {"atomic"};
    io_dir_remove(names, 1);
    MPI_Finalize();
    if (rank == 0)
        printf("io_atomic: ok\n");
    return 0;
}
