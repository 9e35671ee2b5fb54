/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point engine: internal API used by the public entry points,
 * communicators, one-sided communication and collectives. This header gathers
 * the engine's modules (docs/architecture.md):
 *   am.h       dispatch of incoming messages by id
 *   peer.h     per-peer state, message counters
 *   request.h  requests, their pool, the wait loop
 *   send.h     sending: protocol choice, per-peer FIFO, control messages
 *   recv.h     matching: posted receives, unexpected messages
 *   eager.h, rndv.h, frag.h  the protocols
 *   progress.h the progress engine and idle policy
 *   failure.h  failed peers
 *   engine.h   the engine's state and lifetime
 *   diag.h     what a blocked rank reports
 *   rma.h      one-sided communication's hooks */
#ifndef RMPI_P2P_H
#define RMPI_P2P_H

#include "am.h"
#include "diag.h"
#include "engine.h"
#include "failure.h"
#include "match.h"
#include "peer.h"
#include "progress.h"
#include "proto.h"
#include "recv.h"
#include "request.h"
#include "rma.h"
#include "rmpi.h"
#include "send.h"
#include "transport.h"

#endif
