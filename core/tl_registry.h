/* SPDX-License-Identifier: BSD-3-Clause */
/* The core's side of the transport contract: the registry expanded into an
 * array, the arguments each transport gets, and the address exchange (every
 * open transport's address in one PMIx blob per rank). */
#ifndef RMPI_TL_REGISTRY_H
#define RMPI_TL_REGISTRY_H

#include <stddef.h>

#include "engine.h"
#include "transport.h"

/* Each transport's interface (rmpi_tl_<name>), for the registry and tests. */
#define RMPI_TL_DECLARE_(name, built) extern const rmpi_tl_iface_t rmpi_tl_##name;
RMPI_TL_REGISTRY(RMPI_TL_DECLARE_)

typedef struct rmpi_tl_entry {
    const char *name;
    const rmpi_tl_iface_t *iface; /* NULL: a known transport not built into this library */
} rmpi_tl_entry_t;

/* RMPI_TL_MAX entries, in registry order (core/api/transport.h). */
extern const rmpi_tl_entry_t rmpi_tl_registry[];
/* The registry entry called name (len bytes), or NULL when no transport has that name. */
const rmpi_tl_entry_t *rmpi_tl_lookup(const char *name, size_t len);
/* "shm,verbs,tcp": every registered transport but self (always entry 0), in
 * registry order: RMP_TRANSPORTS' default, so a new registry line is used
 * without touching the parameter table. */
#define RMPI_TL_CSV_(name, built) "," #name
#define RMPI_TL_DEFAULT_LIST (&(RMPI_TL_REGISTRY(RMPI_TL_CSV_))[sizeof(",self")])

/* "shm, verbs, tcp": the names RMP_TRANSPORTS accepts (all but self), for messages. */
const char *rmpi_tl_names(void);

/* The arguments for t: the job's shape from the engine (a one-rank job on this node
 * before rmp_init, as rmp_info sees it), the upcalls, t's parsed parameters. */
void rmpi_tl_args_fill(rmpi_engine_t *e, const rmpi_tl_iface_t *t, rmpi_tl_args_t *args);

/* Pack the address of every open transport (rmpi_eng.tls.v) into one blob and put it
 * (before the fence). */
int rmpi_tl_publish(rmpi_engine_t *e);
/* Peer's blob (after the fence), malloc'd; the caller frees it. */
int rmpi_tl_fetch(int peer, void **blob, size_t *len);
/* The piece of blob (len bytes, from a peer: untrusted) that transport name
 * published: RMP_SUCCESS with *addr and *alen pointing into blob, RMP_ERR_NOT_SUPPORTED
 * when the peer has no such transport open, RMP_ERR_BOOTSTRAP when the blob is
 * malformed. Pure. */
int rmpi_tl_addr_find(const void *blob, size_t len, const char *name, const void **addr,
                      size_t *alen);
/* Peer's address for transport name as a malloc'd, NUL-terminated copy (tests). */
int rmpi_tl_address(int peer, const char *name, void **addr, size_t *alen);

#endif
