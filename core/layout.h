/* SPDX-License-Identifier: BSD-3-Clause */
/* Messages in the caller's layout (core/layout.c, rmp_layout_t in rmp.h): the
 * sender packs each fragment as it leaves (core/frag.c); the receiver unpacks
 * eager data and fragments as they arrive, and pulls a rendezvous message piece
 * by piece through a bounce buffer of RMPI_LAYOUT_PIECE bytes. No protocol
 * holds more than one piece of a layout's data outside the caller's memory. */
#ifndef RMPI_LAYOUT_H
#define RMPI_LAYOUT_H

#include "peer.h"
#include "proto.h"
#include "request.h"

#define RMPI_LAYOUT_PIECE ((size_t)256 << 10)

/* A transport's copyv (shm: cross-memory attach with segment lists) moves a layout's
 * data straight between the two processes, one copy instead of pack, transfer, unpack,
 * when its segments average at least the peer's copyv_local_min on the side that makes
 * the call and copyv_remote_min on the other (the transport's caps; shm:
 * RMP_SHM_IOV_LOCAL_MIN, RMP_SHM_IOV_REMOTE_MIN). The kernel pays about 25 ns a segment
 * on the calling side and about 0.3 us a segment on the peer's side (it pins the peer's
 * pages one segment at a time), where packing pays a copy: straight copies win from
 * about 2 KiB blocks with the list on the calling side, 16-32 KiB with it on the peer's
 * (benchmarks/floor/cma_iov, benchmarks/results/cma-iov-floor-20261128.txt;
 * docs/protocols.md "Layouts"). */

/* At most max segments of lay behind stream bytes [off, off + len) in iov (*n of them):
 * the bytes they cover, or 0 when lay has no segments or they average under min. */
size_t rmpi_layout_segs(const rmp_layout_t *lay, size_t off, size_t len, struct iovec *iov,
                        size_t max, size_t *n, size_t min);
/* Send side of a straight copy: bytes [off, off + len) of req's message (its layout's
 * segments, or its buffer) written by copyv to the peer's memory that holds them: the
 * segment list remote[0..nr) from its byte rpos on. Returns the bytes moved, maybe
 * fewer than len (call again for the rest), and *rc. 0 with RMP_SUCCESS: the layout's
 * segments are short and pack is 0 (the caller packs); with pack set, such a layout is
 * packed into its bounce buffer and copied from there. */
size_t rmpi_layout_put_direct(rmpi_engine_t *e, rmp_request_t req, size_t off, size_t len,
                              const struct iovec *remote, size_t nr, size_t rpos, int pack,
                              int *rc);

/* Bytes [off, off + len) (len <= RMPI_LAYOUT_PIECE) of req's message, packed into
 * the engine's bounce buffer; not packed again when the transport had no room
 * for them last time. NULL when out of memory. */
const unsigned char *rmpi_layout_piece_out(rmpi_engine_t *e, rmp_request_t req, size_t off,
                                           size_t len);
/* A layout receive (req->lay) matched an RTS of r->size bytes: move
 * req->status.bytes (> 0) of it in pieces, then FIN the sender (RNDV_GET) or
 * ask piece by piece with CTS (RNDV_PUT). */
void rmpi_layout_pull(rmpi_engine_t *e, rmpi_peer_t *p, rmp_request_t req, const rmpi_rts_t *r,
                      int put);
/* A layout send by RNDV_PUT: its own piece buffer (req->ctx, freed with the
 * request), allocated at the first CTS. NULL when out of memory. */
void *rmpi_layout_send_bounce(rmp_request_t req);
/* RNDV_PUT: the FIN after a piece the sender wrote into req's bounce buffer. */
void rmpi_layout_on_fin(rmpi_engine_t *e, rmp_request_t req, int status);
void rmpi_layout_fini(rmpi_engine_t *e);
/* What a layout request moves once nobody waits for it (rmp_request_free, a
 * timed-out wait): the caller's layout may be gone, so a send's remaining pieces
 * go out as zeros and a receive's data is dropped. */
extern const rmp_layout_t rmpi_layout_discard;

#endif
