/* SPDX-License-Identifier: BSD-3-Clause */
/* What ranks learn about each other through PMIx, decoded at connect or at
 * init: the shm address blob, the tcp address string, a shared segment's
 * name (shm rings and allocated windows), the launcher's local peer list and
 * the runtime's blob of every transport's address (core/tl_registry.c).
 * Input: a selector byte, then the blob.
 * Contract: an accepted shm address describes rings that lie inside the
 * segment it announces; an accepted tcp address re-encodes (as tcp_init
 * writes it) to one that decodes the same; an accepted segment name is
 * "PID:FD" with PID > 0; an accepted peer list is distinct ranks of the job,
 * ascending, holding this rank, each written in the list; a piece found in
 * the address blob lies inside it, right after the name asked for. */
#include <arpa/inet.h>
#include <string.h>

#include "bootstrap.h"
#include "fuzz.h"
#include "shmem.h"
#include "tl_registry.h"
#include "transports/shm/shm_addr.h"
#include "transports/tcp/tcp.h"

static void check_shm(fuzz_in_t *in)
{
    int nlocal = 1 + fuzz_u8(in) % 64;
    size_t len = in->left;
    unsigned char *blob = malloc(len ? len : 1);
    fuzz_take(in, blob, len);
    const char *why = NULL;
    if (shm_addr_check(blob, len, nlocal, &why) != RMP_SUCCESS) {
        FUZZ_CHECK(why != NULL);
        free(blob);
        return;
    }
    const shm_addr_t *a = (const shm_addr_t *)blob;
    FUZZ_CHECK(len == sizeof(*a) && strnlen(a->name, sizeof(a->name)) < sizeof(a->name));
    FUZZ_CHECK(a->ring_lines >= 64 && a->ring_lines <= SHM_RING_MAX_LINES);
    FUZZ_CHECK((a->ring_lines & (a->ring_lines - 1)) == 0);
    /* shm_connect places sender idx's ring at this offset: the last one
     * must end inside the segment the peer maps. */
    uint64_t last_end = (uint64_t)SHM_LINE * (1 + (uint64_t)nlocal) +
                        (uint64_t)nlocal * a->ring_lines * SHM_LINE;
    FUZZ_CHECK(last_end <= a->seg_bytes);
    FUZZ_CHECK(shm_ring_max_msg(a->ring_lines) + sizeof(shm_rec_t) <=
               a->ring_lines / 2 * SHM_LINE);
    free(blob);
}

static void check_tcp(fuzz_in_t *in)
{
    size_t len = in->left;
    char *a = malloc(len ? len : 1);
    fuzz_take(in, a, len);
    struct sockaddr_in sa;
    uint64_t token = 0;
    if (rmpi_tcp_addr_decode(a, len, &sa, &token) == RMP_SUCCESS) {
        FUZZ_CHECK(len > 0 && a[len - 1] == '\0' && strlen(a) == len - 1);
        FUZZ_CHECK(sa.sin_family == AF_INET && sa.sin_port != 0);
        char again[96];
        char ip[INET_ADDRSTRLEN];
        FUZZ_CHECK(inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip)) != NULL);
        snprintf(again, sizeof(again), "%s:%u/%016llx", ip, (unsigned)ntohs(sa.sin_port),
                 (unsigned long long)token);
        struct sockaddr_in sb;
        uint64_t tb = 0;
        FUZZ_CHECK(rmpi_tcp_addr_decode(again, strlen(again) + 1, &sb, &tb) == RMP_SUCCESS);
        FUZZ_CHECK(sb.sin_addr.s_addr == sa.sin_addr.s_addr && sb.sin_port == sa.sin_port &&
                   tb == token);
    }
    free(a);
}

/* NUL-terminated copy of the rest of the input. */
static char *take_string(fuzz_in_t *in)
{
    size_t len = in->left;
    char *s = malloc(len + 1);
    fuzz_take(in, s, len);
    s[len] = '\0';
    return s;
}

static void check_name(fuzz_in_t *in)
{
    char *s = take_string(in);
    int pid = -1, fd = -1;
    if (rmpi_shmem_parse_name(s, &pid, &fd) == RMP_SUCCESS) {
        FUZZ_CHECK(pid > 0 && fd >= 0);
        char *end;
        FUZZ_CHECK(strtol(s, &end, 10) == pid && *end == ':');
        FUZZ_CHECK(strtol(end + 1, &end, 10) == fd && *end == '\0');
    }
    free(s);
}

static void check_peers(fuzz_in_t *in)
{
    int size = 1 + fuzz_u8(in) % 64;
    int me = fuzz_u8(in) % size;
    char *s = take_string(in);
    int *out = malloc((size_t)size * sizeof(int)); /* exactly the room promised */
    int n = 0;
    if (rmpi_boot_parse_peers(s, size, me, out, &n) == RMP_SUCCESS) {
        FUZZ_CHECK(n >= 1 && n <= size);
        int has_me = 0;
        for (int i = 0; i < n; i++) {
            FUZZ_CHECK(out[i] >= 0 && out[i] < size);
            FUZZ_CHECK(i == 0 || out[i - 1] < out[i]);
            has_me |= out[i] == me;
        }
        FUZZ_CHECK(has_me);
        /* The list names exactly these ranks, each once. */
        int count = 0;
        for (char *p = s; *p;) {
            char *end;
            long r = strtol(p, &end, 10);
            int found = 0;
            for (int i = 0; i < n; i++)
                found |= out[i] == r;
            FUZZ_CHECK(found && end > p);
            count++;
            p = *end ? end + 1 : end;
        }
        FUZZ_CHECK(count == n);
    }
    free(out);
    free(s);
}

static void check_tl_blob(fuzz_in_t *in)
{
    const char *name = rmpi_tl_registry[fuzz_u8(in) % RMPI_TL_MAX].name;
    size_t len = in->left, alen = 0;
    unsigned char *blob = malloc(len ? len : 1);
    fuzz_take(in, blob, len);
    const void *a = NULL;
    int rc = rmpi_tl_addr_find(blob, len, name, &a, &alen);
    FUZZ_CHECK(rc == RMP_SUCCESS || rc == RMP_ERR_NOT_SUPPORTED || rc == RMP_ERR_BOOTSTRAP);
    if (rc == RMP_SUCCESS) {
        size_t nlen = strlen(name);
        FUZZ_CHECK(alen <= RMPI_TL_ADDR_MAX && (alen == 0) == (a == NULL));
        if (a) {
            const unsigned char *p = a;
            FUZZ_CHECK(p >= blob + 3 + nlen && p + alen <= blob + len);
            FUZZ_CHECK(memcmp(p - 2 - nlen, name, nlen) == 0 && p[-3 - (long)nlen] == nlen);
        }
    }
    free(blob);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    switch (fuzz_u8(&in) % 5) {
    case 0: check_shm(&in); break;
    case 1: check_tcp(&in); break;
    case 2: check_name(&in); break;
    case 3: check_peers(&in); break;
    default: check_tl_blob(&in); break;
    }
    return 0;
}
