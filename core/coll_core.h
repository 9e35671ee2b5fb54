/* SPDX-License-Identifier: BSD-3-Clause */
/* What collectives/ may use of the engine: the one core header its files include.
 * An algorithm may use
 * - the communicator's shape (struct rmp_comm: rank, size, coll_priv) and layout
 *   (rmpi_comm_node_of, rmpi_comm_world_rank), its checks and holds (comm.h), whether a
 *   member failed (failure.h: rmpi_comm_lost_member);
 * - its collective context and tags (coll_id.h);
 * - point-to-point on an explicit context (cid_msg.h), the requests it gets back and
 *   their waits (request.h), the progress engine for loops spinning on shared memory
 *   (progress.h: rmpi_progress, rmpi_progress_serve_rma, rmpi_progress_yields,
 *   rmpi_oversubscribed);
 * - the hang report's hooks (diag.h);
 * - the engine lock of RMP_THREAD_MULTIPLE around starting a schedule (mt.h:
 *   rmpi_mt_enter/leave), so that another thread's progress cannot run its first round
 *   while it is posted;
 * - and from core/api: logging, parameter tables and their parsers, shared-memory
 *   segments; the tuning file's sections (tune_section.h).
 * Anything else of core (transports, protocols, matching, the runtime's globals) is
 * not theirs: a collective needing more extends this list, with a reason. */
#ifndef RMPI_COLL_CORE_H
#define RMPI_COLL_CORE_H

#include "cid_msg.h"
#include "coll_id.h"
#include "comm.h"
#include "diag.h"
#include "failure.h"
#include "log.h"
#include "mt.h"
#include "param.h"
#include "progress.h"
#include "request.h"
#include "shmem.h"
#include "tune_section.h"

#endif
