/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO views and collective/shared access: vector, subarray and struct filetypes
 * (with holes and a resized extent) written collectively and read back through the
 * view and byte-for-byte with POSIX; non-contiguous memory types; the shared
 * pointer (every rank's record lands once) and the ordered forms (rank order);
 * the external32 data representation and a user's (MPI_Register_datarep). */
#include "io_util.h"

#define B 3  /* ints per rank per block */
#define K 8  /* blocks */

static int rank, size;

/* Interleaved blocks: block k of rank r holds ints (r * K + k) * B + j. */
static void test_vector(const char *path)
{
    MPI_File fh;
    MPI_Datatype ft;
    MPI_Type_vector(K, B, B * size, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                           &fh));
    CHECK_OK(MPI_File_set_view(fh, (MPI_Offset)rank * B * 4, MPI_INT, ft, "native",
                               MPI_INFO_NULL));
    int buf[K * B], back[K * B];
    for (int i = 0; i < K * B; i++)
        buf[i] = rank * K * B + i;
    MPI_Status st;
    CHECK_OK(MPI_File_write_all(fh, buf, K * B, MPI_INT, &st));
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == K * B, "write_all count %d", cnt);
    MPI_Offset pos, bo;
    MPI_File_get_position(fh, &pos);
    CHECK(pos == K * B, "position in etypes %lld", (long long)pos);
    MPI_File_get_byte_offset(fh, B + 1, &bo);
    CHECK(bo == (MPI_Offset)rank * B * 4 + (MPI_Offset)B * size * 4 + 4, "byte offset %lld",
          (long long)bo);
    CHECK_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_File_sync(fh));
    long n = (long)size * K * B * 4;
    unsigned char *raw = malloc((size_t)n + 16);
    CHECK(io_slurp(path, raw, n + 16) == n, "vector file length");
    for (int k = 0; k < K; k++)
        for (int r = 0; r < size; r++)
            for (int j = 0; j < B; j++) {
                int x;
                memcpy(&x, raw + 4 * ((k * size + r) * B + j), 4);
                CHECK(x == r * K * B + k * B + j, "vector file int (%d,%d,%d) = %d", k, r, j, x);
            }
    free(raw);
    /* read back through the view, the rank after mine, into a strided memory type */
    int peer = (rank + 1) % size;
    CHECK_OK(MPI_File_set_view(fh, (MPI_Offset)peer * B * 4, MPI_INT, ft, "native",
                               MPI_INFO_NULL));
    MPI_Datatype mt;
    MPI_Type_vector(K * B, 1, 2, MPI_INT, &mt);
    MPI_Type_commit(&mt);
    int wide[2 * K * B];
    memset(wide, 0x7f, sizeof(wide));
    CHECK_OK(MPI_File_read_all(fh, wide, 1, mt, &st));
    for (int i = 0; i < K * B; i++) {
        CHECK(wide[2 * i] == peer * K * B + i, "strided read %d: %d", i, wide[2 * i]);
        CHECK(wide[2 * i + 1] == 0x7f7f7f7f, "hole in memory written");
    }
    CHECK_OK(MPI_File_read_at(fh, B, back, B, MPI_INT, &st));
    CHECK(back[0] == peer * K * B + B, "read_at through the view");
    MPI_Type_free(&mt);
    /* get_view returns what was set */
    MPI_Offset d;
    MPI_Datatype et, ft2;
    char rep[MPI_MAX_DATAREP_STRING];
    CHECK_OK(MPI_File_get_view(fh, &d, &et, &ft2, rep));
    CHECK(d == (MPI_Offset)peer * B * 4 && et == MPI_INT && strcmp(rep, "native") == 0,
          "get_view");
    int sz;
    MPI_Type_size(ft2, &sz);
    CHECK(sz == K * B * 4, "get_view filetype size");
    MPI_Type_free(&ft2);
    MPI_Type_free(&ft);
    CHECK_OK(MPI_File_close(&fh));
}

/* A 2-D global array (rows = size * 2, cols = 6) of ints, row blocks per rank written
 * with a subarray filetype; a struct filetype with holes and a resized extent. */
static void test_subarray_struct(const char *path)
{
    enum { R = 2, C = 6 };
    int gs[2] = {size * R, C}, ss[2] = {R, C - 2}, st0[2] = {rank * R, 1};
    MPI_Datatype sub;
    MPI_Type_create_subarray(2, gs, ss, st0, MPI_ORDER_C, MPI_INT, &sub);
    MPI_Type_commit(&sub);
    MPI_File fh;
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                           &fh));
    CHECK_OK(MPI_File_set_size(fh, 0));
    CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, sub, "native", MPI_INFO_NULL));
    int buf[R * (C - 2)];
    for (int i = 0; i < R * (C - 2); i++)
        buf[i] = 1000 * (rank + 1) + i;
    MPI_Status st;
    CHECK_OK(MPI_File_write_at_all(fh, 0, buf, R * (C - 2), MPI_INT, &st));
    CHECK_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    long n = (long)size * R * C * 4;
    unsigned char *raw = calloc(1, (size_t)n + 16);
    long got = io_slurp(path, raw, n + 16);
    CHECK(got == n - 4, "subarray file length %ld (last column never written)", got);
    for (int r = 0; r < size * R; r++)
        for (int c = 1; c < C - 1; c++) {
            int x;
            memcpy(&x, raw + 4 * (r * C + c), 4);
            int want = 1000 * (r / R + 1) + (r % R) * (C - 2) + (c - 1);
            CHECK(x == want, "subarray (%d,%d) = %d, want %d", r, c, x, want);
        }
    free(raw);
    MPI_Type_free(&sub);

    /* struct: 2 ints at 0, 1 double at 16, extent resized to 32: holes at 8..16 and 24..32 */
    int bl[2] = {2, 1};
    MPI_Aint disp[2] = {0, 16};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, s0, s;
    MPI_Type_create_struct(2, bl, disp, types, &s0);
    MPI_Type_create_resized(s0, 0, 32, &s);
    MPI_Type_commit(&s);
    MPI_Offset base = n + 64 + (MPI_Offset)rank * 32 * 4;
    CHECK_OK(MPI_File_set_view(fh, base, MPI_BYTE, s, "native", MPI_INFO_NULL));
    unsigned char bytes[16 * 4];
    for (int i = 0; i < 64; i++)
        bytes[i] = (unsigned char)(rank * 64 + i);
    CHECK_OK(MPI_File_write(fh, bytes, 64, MPI_BYTE, &st));
    unsigned char back[64];
    CHECK_OK(MPI_File_read_at(fh, 0, back, 64, MPI_BYTE, &st));
    CHECK(memcmp(back, bytes, 64) == 0, "struct view read back");
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    unsigned char *all = malloc((size_t)(base + 32 * 4 + 64));
    got = io_slurp(path, all, (long)(base + 32 * 4 + 64));
    for (int e = 0; e < 4; e++)
        for (int i = 0; i < 16; i++) {
            int off = e * 32 + (i < 8 ? i : 16 + (i - 8));
            CHECK(all[base + off] == (unsigned char)(rank * 64 + e * 16 + i),
                  "struct element %d byte %d", e, i);
            if (i < 8 && !(rank == size - 1 && e == 3))
                CHECK(all[base + e * 32 + 8 + i] == 0, "hole written");
        }
    free(all);
    MPI_Type_free(&s);
    MPI_Type_free(&s0);
    CHECK_OK(MPI_File_close(&fh));
}

static void test_shared(const char *path)
{
    MPI_File fh;
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                           &fh));
    CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    int rec[2] = {rank, rank * 10};
    MPI_Status st;
    for (int i = 0; i < 3; i++)
        CHECK_OK(MPI_File_write_shared(fh, rec, 2, MPI_INT, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset sp;
    MPI_File_get_position_shared(fh, &sp);
    CHECK(sp == 6 * size, "shared position %lld", (long long)sp);
    /* every record appears whole, each rank's three times */
    int *all = malloc(sizeof(int) * 6 * (size_t)size), seen[64] = {0};
    CHECK_OK(MPI_File_read_at(fh, 0, all, 6 * size, MPI_INT, &st));
    for (int i = 0; i < 3 * size; i++) {
        CHECK(all[2 * i] >= 0 && all[2 * i] < size && all[2 * i + 1] == all[2 * i] * 10,
              "record %d: %d %d", i, all[2 * i], all[2 * i + 1]);
        seen[all[2 * i]]++;
    }
    for (int r = 0; r < size; r++)
        CHECK(seen[r] == 3, "rank %d's records: %d", r, seen[r]);
    /* ordered: rank r writes r + 1 ints of value r after what is there */
    int vals[64];
    for (int i = 0; i <= rank; i++)
        vals[i] = 100 + rank;
    CHECK_OK(MPI_File_write_ordered(fh, vals, rank + 1, MPI_INT, &st));
    MPI_File_get_position_shared(fh, &sp);
    CHECK(sp == 6 * size + size * (size + 1) / 2, "ordered position %lld", (long long)sp);
    CHECK_OK(MPI_File_seek_shared(fh, 6 * size, MPI_SEEK_SET));
    int n = size * (size + 1) / 2, got[64];
    CHECK_OK(MPI_File_read_ordered(fh, got, rank + 1, MPI_INT, &st));
    for (int i = 0; i <= rank; i++)
        CHECK(got[i] == 100 + rank, "read_ordered %d: %d", i, got[i]);
    CHECK_OK(MPI_File_seek_shared(fh, 6 * size, MPI_SEEK_SET));
    if (rank == 0) {
        CHECK_OK(MPI_File_read_shared(fh, got, n, MPI_INT, &st));
        for (int r = 0, k = 0; r < size; r++)
            for (int i = 0; i <= r; i++, k++)
                CHECK(got[k] == 100 + r, "ordered layout %d: %d", k, got[k]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* split ordered and nonblocking shared */
    CHECK_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    CHECK_OK(MPI_File_write_ordered_begin(fh, vals, rank + 1, MPI_INT));
    CHECK_OK(MPI_File_write_ordered_end(fh, vals, &st));
    MPI_Request rq;
    CHECK_OK(MPI_File_iwrite_shared(fh, rec, 2, MPI_INT, &rq));
    CHECK_OK(MPI_Wait(&rq, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_get_position_shared(fh, &sp);
    CHECK(sp == 6 * size + 2 * n + 2 * size, "final shared position %lld", (long long)sp);
    free(all);
    CHECK_OK(MPI_File_close(&fh));
}

/* external32: big-endian in the file, native in memory; a type whose external32 size
 * differs (long) is refused with MPI_ERR_UNSUPPORTED_DATAREP. */
static void test_ext32(const char *path)
{
    MPI_File fh;
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                           &fh));
    CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
    int v[2] = {0x01020304 + rank, -2}, back[2];
    MPI_Status st;
    CHECK_OK(MPI_File_write_at_all(fh, 2 * rank, v, 2, MPI_INT, &st));
    CHECK_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_File_sync(fh));
    unsigned char raw[8 * 64];
    CHECK(io_slurp(path, raw, sizeof(raw)) == 8 * size, "external32 file length");
    for (int r = 0; r < size; r++) {
        const unsigned char want[8] = {1, 2, 3, (unsigned char)(4 + r), 0xff, 0xff, 0xff, 0xfe};
        CHECK(memcmp(raw + 8 * r, want, 8) == 0, "external32 bytes of rank %d", r);
    }
    CHECK_OK(MPI_File_read_at(fh, 2 * ((rank + 1) % size), back, 2, MPI_INT, &st));
    CHECK(back[0] == 0x01020304 + (rank + 1) % size && back[1] == -2, "external32 read back");
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset d;
    MPI_Datatype et, ft;
    MPI_File_get_view(fh, &d, &et, &ft, rep);
    CHECK(strcmp(rep, "external32") == 0, "datarep %s", rep);
    int rc = MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL), c;
    MPI_Error_class(rc, &c);
    CHECK(c == MPI_SUCCESS, "external32 view of longs (4 bytes in the file): %d", c);
    rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL);
    MPI_Error_class(rc, &c);
    CHECK(c == MPI_ERR_UNSUPPORTED_DATAREP, "unknown datarep: %d", c);
    CHECK_OK(MPI_File_close(&fh));
}

/* A user data representation: ints stored plus 1000 in the file. */
static int plus_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    (void)extra;
    int s;
    MPI_Type_size(dt, &s);
    *extent = s;
    return MPI_SUCCESS;
}

static int plus_write(void *ubuf, MPI_Datatype dt, int count, void *fbuf, MPI_Offset pos,
                      void *extra)
{
    (void)dt;
    (*(int *)extra)++;
    for (int i = 0; i < count; i++)
        ((int *)fbuf)[i] = ((int *)ubuf)[pos + i] + 1000;
    return MPI_SUCCESS;
}

static int plus_read(void *ubuf, MPI_Datatype dt, int count, void *fbuf, MPI_Offset pos,
                     void *extra)
{
    (void)dt;
    (*(int *)extra)++;
    for (int i = 0; i < count; i++)
        ((int *)ubuf)[pos + i] = ((int *)fbuf)[i] - 1000;
    return MPI_SUCCESS;
}

static void test_datarep(const char *path)
{
    static int calls;
    CHECK_OK(MPI_Register_datarep("rmp-plus1000", plus_read, plus_write, plus_extent, &calls));
    int c, rc = MPI_Register_datarep("rmp-plus1000", plus_read, plus_write, plus_extent, &calls);
    MPI_Error_class(rc, &c);
    CHECK(c == MPI_ERR_DUP_DATAREP, "second registration: %d", c);
    MPI_File fh;
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                           &fh));
    CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "rmp-plus1000", MPI_INFO_NULL));
    int v[3] = {rank, 7, -5}, back[3];
    MPI_Status st;
    CHECK_OK(MPI_File_write_at_all(fh, 3 * rank, v, 3, MPI_INT, &st));
    CHECK_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_File_sync(fh));
    int raw[3 * 64];
    CHECK(io_slurp(path, (unsigned char *)raw, sizeof(raw)) == 12 * size, "datarep file length");
    for (int r = 0; r < size; r++)
        CHECK(raw[3 * r] == r + 1000 && raw[3 * r + 1] == 1007 && raw[3 * r + 2] == 995,
              "datarep file ints of rank %d", r);
    CHECK_OK(MPI_File_read_at(fh, 3 * ((rank + 1) % size), back, 3, MPI_INT, &st));
    CHECK(back[0] == (rank + 1) % size && back[1] == 7 && back[2] == -5, "datarep read back");
    CHECK(calls == 2, "conversion calls %d", calls);
    MPI_Aint ext;
    CHECK_OK(MPI_File_get_type_extent(fh, MPI_INT, &ext));
    CHECK(ext == 4, "file extent %ld", (long)ext);
    int xc; /* a NULL extent is refused by both forms (the int form used to accept it) */
    MPI_Error_class(MPI_File_get_type_extent(fh, MPI_INT, NULL), &xc);
    CHECK(xc == MPI_ERR_ARG, "int form, NULL extent: class %d", xc);
    MPI_Error_class(MPI_File_get_type_extent_c(fh, MPI_INT, NULL), &xc);
    CHECK(xc == MPI_ERR_ARG, "_c form, NULL extent: class %d", xc);
    CHECK_OK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    io_start(&argc, &argv, &rank, &size);
    char p[320];
    snprintf(p, sizeof(p), "%s", io_path("vec"));
    test_vector(p);
    snprintf(p, sizeof(p), "%s", io_path("sub"));
    test_subarray_struct(p);
    snprintf(p, sizeof(p), "%s", io_path("shared"));
    test_shared(p);
    snprintf(p, sizeof(p), "%s", io_path("ext"));
    test_ext32(p);
    snprintf(p, sizeof(p), "%s", io_path("drep"));
    test_datarep(p);
    const char *names[] = {"vec", "sub", "shared", "ext", "drep"};
    io_dir_remove(names, 5);
    MPI_Finalize();
    if (rank == 0)
        printf("io_view: ok\n");
    return 0;
}
