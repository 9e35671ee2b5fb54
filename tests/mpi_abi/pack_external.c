/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size ("external32"):
 * byte-exact big-endian encodings of the basic types at the standard's sizes (long 4
 * bytes, wchar_t 2, long double as IEEE quad), complex halves and pairs, derived types
 * walked in type-map order, round trips, the _c forms, and the errors (other data
 * representations, a short buffer). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "check.h"

/* Pack count elements of t and compare with the expected bytes; unpack them back into
 * out (when given) and return the packed size. */
static MPI_Aint enc(const char *what, const void *in, int count, MPI_Datatype t,
                    const unsigned char *want, MPI_Aint nwant, void *out)
{
    unsigned char buf[256];
    MPI_Aint pos = 0, sz = -1;
    memset(buf, 0xa5, sizeof(buf));
    CHECK_OK(MPI_Pack_external_size("external32", count, t, &sz));
    CHECK(sz == nwant, "%s: external size %ld, expected %ld", what, (long)sz, (long)nwant);
    CHECK_OK(MPI_Pack_external("external32", in, count, t, buf, sizeof(buf), &pos));
    CHECK(pos == nwant, "%s: position %ld, expected %ld", what, (long)pos, (long)nwant);
    for (MPI_Aint i = 0; i < nwant; i++)
        CHECK(buf[i] == want[i], "%s: byte %ld is %02x, expected %02x", what, (long)i, buf[i],
              want[i]);
    CHECK(buf[nwant] == 0xa5, "%s: wrote past its size", what);
    if (out) {
        pos = 0;
        CHECK_OK(MPI_Unpack_external("external32", buf, nwant, &pos, out, count, t));
        CHECK(pos == nwant, "%s: unpack position %ld", what, (long)pos);
    }
    return pos;
}

static void basics(void)
{
    int32_t i = 0x01020304, i2;
    enc("int", &i, 1, MPI_INT, (const unsigned char[]){1, 2, 3, 4}, 4, &i2);
    CHECK(i2 == i, "int round trip");
    long l[2] = {-2, 0x12345678}, l2[2];
    enc("long", l, 2, MPI_LONG,
        (const unsigned char[]){0xff, 0xff, 0xff, 0xfe, 0x12, 0x34, 0x56, 0x78}, 8, l2);
    CHECK(l2[0] == -2 && l2[1] == 0x12345678, "long round trip (sign extension) %ld", l2[0]);
    unsigned long ul = 0xfffffffful, ul2;
    enc("unsigned long", &ul, 1, MPI_UNSIGNED_LONG, (const unsigned char[]){255, 255, 255, 255},
        4, &ul2);
    CHECK(ul2 == 0xfffffffful, "unsigned long round trip");
    long long ll = -2, ll2;
    enc("long long", &ll, 1, MPI_LONG_LONG,
        (const unsigned char[]){255, 255, 255, 255, 255, 255, 255, 0xfe}, 8, &ll2);
    CHECK(ll2 == -2, "long long round trip");
    short s = 0x0102;
    enc("short", &s, 1, MPI_SHORT, (const unsigned char[]){1, 2}, 2, NULL);
    float f = 1.0f, f2;
    enc("float", &f, 1, MPI_FLOAT, (const unsigned char[]){0x3f, 0x80, 0, 0}, 4, &f2);
    CHECK(f2 == 1.0f, "float round trip");
    double d = -2.5, d2;
    enc("double", &d, 1, MPI_DOUBLE, (const unsigned char[]){0xc0, 0x04, 0, 0, 0, 0, 0, 0}, 8,
        &d2);
    CHECK(d2 == -2.5, "double round trip");
    long double ld = 1.0L, ld2;
    enc("long double", &ld, 1, MPI_LONG_DOUBLE,
        (const unsigned char[]){0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 16, &ld2);
    CHECK(ld2 == 1.0L, "long double round trip");
    ld = -0.75L;
    enc("long double", &ld, 1, MPI_LONG_DOUBLE,
        (const unsigned char[]){0xbf, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 16,
        &ld2);
    CHECK(ld2 == -0.75L, "long double round trip");
    wchar_t w = L'A', w2;
    enc("wchar", &w, 1, MPI_WCHAR, (const unsigned char[]){0, 0x41}, 2, &w2);
    CHECK(w2 == L'A', "wchar round trip");
    double c[2] = {1.0, -2.0}, c2[2];
    enc("double complex", c, 1, MPI_C_DOUBLE_COMPLEX,
        (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0}, 16,
        c2);
    CHECK(c2[0] == 1.0 && c2[1] == -2.0, "complex round trip");
    struct { short v; int i; } si = {-1, 5}, si2;
    enc("short_int", &si, 1, MPI_SHORT_INT, (const unsigned char[]){0xff, 0xff, 0, 0, 0, 5}, 6,
        &si2);
    CHECK(si2.v == -1 && si2.i == 5, "short_int round trip");
    struct { long v; int i; } li = {3, 7};
    enc("long_int", &li, 1, MPI_LONG_INT, (const unsigned char[]){0, 0, 0, 3, 0, 0, 0, 7}, 8,
        NULL);
    int32_t fi = 0x0a0b0c0d;
    enc("INTEGER", &fi, 1, MPI_INTEGER, (const unsigned char[]){10, 11, 12, 13}, 4, NULL);
    unsigned char i16[16], i16x[16];
    for (int k = 0; k < 16; k++)
        i16[k] = (unsigned char)k, i16x[15 - k] = (unsigned char)k;
    enc("INTEGER16", i16, 1, MPI_INTEGER16, i16x, 16, NULL);
    float cx[2] = {1.0f, 2.0f};
    enc("COMPLEX", cx, 1, MPI_COMPLEX, (const unsigned char[]){0x3f, 0x80, 0, 0, 0x40, 0, 0, 0},
        8, NULL);
}

/* Derived types: the type map in order, gaps skipped, each element converted. */
static void derived(void)
{
    struct rec { char c; double d; int i[2]; } r = {'x', 1.0, {1, -1}}, r2;
    int bl[3] = {1, 1, 2};
    MPI_Aint disp[3] = {offsetof(struct rec, c), offsetof(struct rec, d),
                        offsetof(struct rec, i)};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, st;
    CHECK_OK(MPI_Type_create_struct(3, bl, disp, types, &st));
    CHECK_OK(MPI_Type_commit(&st));
    memset(&r2, 0, sizeof(r2));
    enc("struct", &r, 1, st,
        (const unsigned char[]){'x', 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 255, 255, 255,
                                255},
        17, &r2);
    CHECK(r2.c == 'x' && r2.d == 1.0 && r2.i[0] == 1 && r2.i[1] == -1, "struct round trip");
    CHECK_OK(MPI_Type_free(&st));

    /* Every other long of 6: 3 longs of 4 bytes each. */
    long v[6] = {1, 100, -3, 100, 0x7fffffff, 100}, v2[6] = {0};
    MPI_Datatype vt;
    CHECK_OK(MPI_Type_vector(3, 1, 2, MPI_LONG, &vt));
    CHECK_OK(MPI_Type_commit(&vt));
    enc("vector of long", v, 1, vt,
        (const unsigned char[]){0, 0, 0, 1, 255, 255, 255, 0xfd, 0x7f, 255, 255, 255}, 12, v2);
    CHECK(v2[0] == 1 && v2[2] == -3 && v2[4] == 0x7fffffff && v2[1] == 0, "vector round trip");
    CHECK_OK(MPI_Type_free(&vt));

    /* A large-count round trip through the _c forms: 1000 doubles. */
    double big[1000], back[1000];
    for (int k = 0; k < 1000; k++)
        big[k] = k * 0.5 - 7;
    static unsigned char buf[8000];
    MPI_Count pos = 0, sz = 0;
    CHECK_OK(MPI_Pack_external_size_c("external32", 1000, MPI_DOUBLE, &sz));
    CHECK(sz == 8000, "size_c %lld", (long long)sz);
    CHECK_OK(MPI_Pack_external_c("external32", big, 1000, MPI_DOUBLE, buf, 8000, &pos));
    CHECK(pos == 8000 && buf[0] == 0xc0 && buf[8] == 0xc0, "pack_c"); /* -7, -6.5 */
    pos = 0;
    CHECK_OK(MPI_Unpack_external_c("external32", buf, 8000, &pos, back, 1000, MPI_DOUBLE));
    CHECK(pos == 8000 && !memcmp(big, back, sizeof(big)), "unpack_c round trip");
}

static void errors(void)
{
    int x = 1, ec;
    unsigned char buf[8];
    MPI_Aint pos = 0, sz;
    int rc = MPI_Pack_external("native", &x, 1, MPI_INT, buf, 8, &pos);
    MPI_Error_class(rc, &ec);
    CHECK(ec == MPI_ERR_UNSUPPORTED_DATAREP, "datarep native: class %d", ec);
    rc = MPI_Pack_external_size("internal", 1, MPI_INT, &sz);
    MPI_Error_class(rc, &ec);
    CHECK(ec == MPI_ERR_UNSUPPORTED_DATAREP, "size with datarep internal: class %d", ec);
    pos = 6;
    rc = MPI_Pack_external("external32", &x, 1, MPI_INT, buf, 8, &pos);
    MPI_Error_class(rc, &ec);
    CHECK(ec == MPI_ERR_TRUNCATE && pos == 6, "short buffer: class %d", ec);
    pos = 0;
    rc = MPI_Unpack_external("external32", buf, 2, &pos, &x, 1, MPI_INT);
    MPI_Error_class(rc, &ec);
    CHECK(ec == MPI_ERR_TRUNCATE, "short input: class %d", ec);
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    basics();
    derived();
    errors();
    MPI_Finalize();
    printf("pack_external: ok\n");
    return 0;
}
