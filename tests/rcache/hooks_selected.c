/* SPDX-License-Identifier: BSD-3-Clause */
/* The libc patching of the registration cache is installed only in processes that use
 * it (the verbs transport selected and usable): run under rrun with
 * "clean" (RMP_TRANSPORTS without verbs, or no RDMA device) or "patched" (inside the
 * Soft-RoCE guest with verbs). Looks at libc's munmap entry itself: the patch starts with
 * movabs $hook, %r11 (49 bb). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "../common/t.h"

int main(int argc, char **argv)
{
    int want_patched = argc > 1 && strcmp(argv[1], "patched") == 0;
    if (argc < 2 || (!want_patched && strcmp(argv[1], "clean") != 0)) {
        fprintf(stderr, "usage: hooks_selected clean|patched\n");
        return 2;
    }
    if (rmp_init(&argc, &argv) != RMP_SUCCESS)
        return 1;
    const unsigned char *fn = dlsym(RTLD_DEFAULT, "munmap");
    int patched = fn && fn[0] == 0x49 && fn[1] == 0xbb;
    T_CHECK(fn != NULL, "munmap found");
    T_CHECK(patched == want_patched, "libc's munmap is %s (want %s; RMP_TRANSPORTS=%s)",
            patched ? "patched" : "untouched", argv[1],
            getenv("RMP_TRANSPORTS") ? getenv("RMP_TRANSPORTS") : "(default)");
    return t_finish();
}
