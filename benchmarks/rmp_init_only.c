/* SPDX-License-Identifier: BSD-3-Clause */
/* Start-up cost: rmp_init + rmp_finalize and nothing else (timed by benchmarks/startup). */
#include "bench_rmp.h"

int main(int argc, char **argv)
{
    CK(rmp_init(&argc, &argv));
    CK(rmp_finalize());
    return 0;
}
