/* SPDX-License-Identifier: BSD-3-Clause */
/* The validators of bytes from other processes (docs/fuzzing.md), one
 * case per bug they fixed plus the valid forms every sender produces; the
 * fuzz suite explores the rest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "bootstrap.h"
#include "proto.h"
#include "rmp.h"
#include "shmem.h"
#include "transport.h"
#include "transports/shm/shm_seg.h"
#include "transports/tcp/tcp.h"
#include "transports/verbs/verbs_wire.h"

static void test_proto(void **state)
{
    (void)state;
    const char *why;
    rmpi_rts_t r = {{RMPI_MSG_FRAG_FIRST, 0, 0, 0, 0, 1}, 8, 1, 0, 0};
    assert_int_equal(rmpi_proto_check(&r, sizeof(r), 8, &why), RMP_SUCCESS);
    /* More payload than the message: overflowed the unexpected buffer. */
    assert_int_equal(rmpi_proto_check(&r, sizeof(r), 9, &why), RMP_ERR_TRANSPORT);
    r.h.type = RMPI_MSG_RTS;
    assert_int_equal(rmpi_proto_check(&r, sizeof(r), 0, &why), RMP_SUCCESS);
    /* An RTS of 16 bytes: its size/sreq/addr were read past the header. */
    assert_int_equal(rmpi_proto_check(&r, sizeof(rmpi_hdr_t), 0, &why), RMP_ERR_TRANSPORT);
    assert_int_equal(rmpi_proto_check(&r, 0, 0, &why), RMP_ERR_TRANSPORT);
    rmpi_fin_t f = {RMPI_MSG_FIN, {0}, RMP_ERR_LAST, 1};
    assert_int_equal(rmpi_proto_check(&f, sizeof(f), 0, &why), RMP_ERR_TRANSPORT);
    f.status = RMP_ERR_ACCESS;
    assert_int_equal(rmpi_proto_check(&f, sizeof(f), 0, &why), RMP_SUCCESS);
    rmpi_hdr_t h = {RMPI_MSG_EAGER, 0, 0, 0, 0, 0};
    assert_int_equal(rmpi_proto_check(&h, sizeof(h), 100, &why), RMP_SUCCESS);
    h.type = 0;
    assert_int_equal(rmpi_proto_check(&h, sizeof(h), 0, &why), RMP_ERR_TRANSPORT);
    /* A CTS for one piece of a layout receive; "more" is a flag. */
    rmpi_cts_t c = {RMPI_MSG_CTS, 1, 0, 0, RMP_SUCCESS, 1, 2, 0x1000, 0, 4096, 8192};
    assert_int_equal(rmpi_proto_check(&c, sizeof(c), 0, &why), RMP_SUCCESS);
    c.more = 2;
    assert_int_equal(rmpi_proto_check(&c, sizeof(c), 0, &why), RMP_ERR_TRANSPORT);
    c.more = 0;
    /* ... into the receiver's segments: the payload is exactly their list. */
    c.nseg = 2;
    assert_int_equal(rmpi_proto_check(&c, sizeof(c), 2 * sizeof(struct iovec), &why),
                     RMP_SUCCESS);
    assert_int_equal(rmpi_proto_check(&c, sizeof(c), sizeof(struct iovec), &why),
                     RMP_ERR_TRANSPORT);
    assert_int_equal(rmpi_proto_check(&c, sizeof(c), 0, &why), RMP_ERR_TRANSPORT);
    c.nseg = RMPI_IOV_MAX + 1;
    assert_int_equal(rmpi_proto_check(&c, sizeof(c), c.nseg * sizeof(struct iovec), &why),
                     RMP_ERR_TRANSPORT);
    c.nseg = 0;
    assert_int_equal(rmpi_proto_check(&c, sizeof(c) - 8, 0, &why), RMP_ERR_TRANSPORT);
}

static void test_rma_bounds(void **state)
{
    (void)state;
    const char *why;
    uint64_t len;
    rmpi_rma_t m;
    memset(&m, 0, sizeof(m));
    m.type = RMPI_MSG_RMA;
    m.op = RMPI_RMA_GET;
    m.offset = 64;
    m.len = 64;
    assert_int_equal(rmpi_rma_access_check(&m, 0, 0x1000, 128, &len, &why), RMP_SUCCESS);
    m.len = 65;
    assert_int_equal(rmpi_rma_access_check(&m, 0, 0x1000, 128, &len, &why), RMP_ERR_TRANSPORT);
    m.op = RMPI_RMA_FADD;
    m.offset = 4;
    assert_int_equal(rmpi_rma_access_check(&m, 0, 0x1000, 128, &len, &why), RMP_ERR_TRANSPORT);
    /* A get reply outside the get: used to be copied wherever it said. */
    assert_int_equal(rmpi_rma_rep_check(100, 10, 100, 10, &why), RMP_SUCCESS);
    assert_int_equal(rmpi_rma_rep_check(99, 10, 100, 10, &why), RMP_ERR_TRANSPORT);
    assert_int_equal(rmpi_rma_rep_check(101, 10, 100, 10, &why), RMP_ERR_TRANSPORT);
}

static void test_tcp(void **state)
{
    (void)state;
    const char *why;
    size_t need;
    tcp_frame_t f = {TCP_MAGIC, TCP_F_AM, 16, 0, 100};
    assert_int_equal(rmpi_tcp_frame_check(&f, TCP_C_UP, &need, &why), RMP_SUCCESS);
    assert_int_equal(need, 16 + 16 + 100);
    assert_int_equal(rmpi_tcp_frame_check(&f, TCP_C_ACCEPTED, &need, &why), RMP_ERR_TRANSPORT);
    f.plen = TCP_MAX_AM;
    assert_int_equal(rmpi_tcp_frame_check(&f, TCP_C_UP, &need, &why), RMP_ERR_TRANSPORT);
    struct sockaddr_in sa;
    uint64_t tok;
    static const char ok[] = "10.1.2.3:4000/00000000deadbeef";
    assert_int_equal(rmpi_tcp_addr_decode(ok, sizeof(ok), &sa, &tok), RMP_SUCCESS);
    assert_int_equal(ntohs(sa.sin_port), 4000);
    assert_true(tok == 0xdeadbeefULL);
    static const char *const bad[] = {"10.1.2.3:-1/ff", "10.1.2.3:0/ff", "10.1.2.3:80/ffx",
                                      "10.1.2.3: 80/ff", "host:80/ff", "10.1.2.3:80/"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(rmpi_tcp_addr_decode(bad[i], strlen(bad[i]) + 1, &sa, &tok),
                         RMP_ERR_BOOTSTRAP);
    tcp_hello_t h = {7, 0, 3};
    assert_int_equal(rmpi_tcp_hello_check(&h, 7, 3, 1), RMP_SUCCESS);
    h.rank = 1;
    assert_int_equal(rmpi_tcp_hello_check(&h, 7, 3, 1), RMP_ERR_TRANSPORT);
}

static void test_shm_addr(void **state)
{
    (void)state;
    const char *why;
    shm_addr_t a;
    memset(&a, 0, sizeof(a));
    snprintf(a.name, sizeof(a.name), "12:3");
    a.pid = 12;
    a.nlocal = 2;
    a.ncells = 1024;
    a.nbufs = 8;
    a.buf_bytes = 65536;
    a.seg_bytes = shm_seg_bytes(1024, 8, 65536);
    assert_int_equal(shm_addr_check(&a, sizeof(a), 2, &why), RMP_SUCCESS);
    /* A smaller segment: a pool computed from it ran past the mapping. */
    a.seg_bytes -= 64;
    assert_int_equal(shm_addr_check(&a, sizeof(a), 2, &why), RMP_ERR_BOOTSTRAP);
    a.seg_bytes += 64;
    a.ncells = 1000;
    assert_int_equal(shm_addr_check(&a, sizeof(a), 2, &why), RMP_ERR_BOOTSTRAP);
    a.ncells = 1024;
    a.buf_bytes = 65537;
    assert_int_equal(shm_addr_check(&a, sizeof(a), 2, &why), RMP_ERR_BOOTSTRAP);
    a.buf_bytes = 65536;
    memset(a.name, '7', sizeof(a.name)); /* no NUL: attach read past it */
    assert_int_equal(shm_addr_check(&a, sizeof(a), 2, &why), RMP_ERR_BOOTSTRAP);
    int pid, fd;
    assert_int_equal(rmpi_shmem_parse_name("123:4", &pid, &fd), RMP_SUCCESS);
    assert_int_equal(pid, 123);
    assert_int_equal(fd, 4);
    assert_int_equal(rmpi_shmem_parse_name("0:4", &pid, &fd), RMP_ERR_BOOTSTRAP);
    assert_int_equal(rmpi_shmem_parse_name("1:4x", &pid, &fd), RMP_ERR_BOOTSTRAP);
    assert_int_equal(rmpi_shmem_parse_name("1:99999999999", &pid, &fd), RMP_ERR_BOOTSTRAP);
}

static void test_boot_peers(void **state)
{
    (void)state;
    int out[4], n = 0;
    assert_int_equal(rmpi_boot_parse_peers("3,0,2", 4, 2, out, &n), RMP_SUCCESS);
    assert_int_equal(n, 3);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 2);
    assert_int_equal(out[2], 3);
    /* Duplicates shifted every local index after them. */
    assert_int_equal(rmpi_boot_parse_peers("0,2,2", 4, 2, out, &n), RMP_ERR_BOOTSTRAP);
    assert_int_equal(rmpi_boot_parse_peers("0,4", 4, 0, out, &n), RMP_ERR_BOOTSTRAP);
    assert_int_equal(rmpi_boot_parse_peers("0,1", 4, 2, out, &n), RMP_ERR_BOOTSTRAP);
    assert_int_equal(rmpi_boot_parse_peers("0,,1", 4, 0, out, &n), RMP_ERR_BOOTSTRAP);
}

static void test_verbs(void **state)
{
    (void)state;
    verbs_imm_t m;
    assert_int_equal(rmpi_verbs_imm_decode(VERBS_IMM(16, 5, 0), 100, 8256, &m), RMP_SUCCESS);
    assert_int_equal(m.hlen, 16);
    assert_int_equal(m.plen, 84);
    assert_int_equal(m.credits, 5);
    /* A header longer than the message: the payload length underflowed. */
    assert_int_equal(rmpi_verbs_imm_decode(VERBS_IMM(48, 0, 0), 10, 8256, &m),
                     RMP_ERR_TRANSPORT);
    assert_int_equal(rmpi_verbs_imm_decode(VERBS_IMM(0, 9, 1), 0, 8256, &m), RMP_SUCCESS);
    assert_true(m.only);
    verbs_cm_priv_t p = {VERBS_CM_MAGIC, 3};
    int rank;
    assert_int_equal(rmpi_verbs_priv_decode(&p, sizeof(p), 4, 0, &rank), RMP_SUCCESS);
    assert_int_equal(rank, 3);
    assert_int_equal(rmpi_verbs_priv_decode(&p, sizeof(p), 3, 0, &rank), RMP_ERR_TRANSPORT);
    assert_int_equal(rmpi_verbs_priv_decode(NULL, 0, 4, 0, &rank), RMP_ERR_TRANSPORT);
    verbs_addr_t a;
    memset(&a, 0, sizeof(a));
    a.sa.ss_family = AF_INET;
    ((struct sockaddr_in *)&a.sa)->sin_port = htons(1);
    verbs_addr_t b;
    assert_int_equal(rmpi_verbs_addr_decode(&a, sizeof(a), &b), RMP_SUCCESS);
    a.sa.ss_family = AF_UNIX;
    assert_int_equal(rmpi_verbs_addr_decode(&a, sizeof(a), &b), RMP_ERR_BOOTSTRAP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proto),     cmocka_unit_test(test_rma_bounds),
        cmocka_unit_test(test_tcp),       cmocka_unit_test(test_shm_addr),
        cmocka_unit_test(test_boot_peers), cmocka_unit_test(test_verbs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
