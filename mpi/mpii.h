/* SPDX-License-Identifier: BSD-3-Clause */
/* Every header of the MPI layer at once, for a file not yet converted to including
 * what it uses (mpii_base.h and the module headers). No header includes this one,
 * so it makes no circle; new code includes mpii_base.h and its modules. */
#ifndef MPII_H
#define MPII_H

#include "mpii_base.h"
#include "mpii_coll.h"
#include "mpii_dtype.h"
#include "mpii_inter.h"
#include "mpii_p2p.h"
#include "mpii_rma.h"

#endif
