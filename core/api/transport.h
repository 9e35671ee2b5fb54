/* SPDX-License-Identifier: BSD-3-Clause */
/* The transport contract. A transport moves opaque (header, payload) active
 * messages to a peer in order, and may offer a zero-copy rendezvous and RMA.
 * It never calls up into the core except through the two upcalls of
 * rmpi_tl_args_t (am, peer_failed), and learns about the job only from that
 * struct: it includes no core header outside core/api/ (meson enforces it), never
 * talks PMIx (the runtime publishes and fetches addresses: get_address,
 * connect) and never reads the engine object (core/engine.h).
 *
 * Life cycle, driven by core/runtime.c: query -> init -> get_address (before
 * the PMIx fence) -> connect, once per peer it is chosen for (after the
 * fence) -> post_connect (after the second fence) -> send/put/get/progress...
 * -> flushed (finalize drain) -> fini. Adding a transport: docs/architecture.md. */
#ifndef RMPI_TRANSPORT_H
#define RMPI_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct rmpi_param; /* core/api/param.h */

/* The handles core holds. Each transport embeds them as the first member of
 * its own structs (shm_tl_t, shm_ep_t, verbs_ep_t...) and converts back with a
 * cast in its ops; core never reads past the base. */
typedef struct rmpi_tl {
    const char *name; /* the transport's name, set by its init */
} rmpi_tl_t;          /* one instance of a transport */
typedef struct rmpi_ep {
    int peer; /* world rank of the peer, set by connect */
} rmpi_ep_t;  /* a transport's connection to one peer */
typedef struct rmpi_mr rmpi_mr_t; /* a transport's memory registration (opaque) */

/* Completion of a non-blocking transport operation: called exactly once, from
 * progress() or before the initiating call returns. status is RMP_SUCCESS,
 * RMP_ERR_ACCESS (remote key/bounds rejected) or RMP_ERR_PEER_FAILED. */
typedef void (*rmpi_comp_cb_t)(void *arg, int status);

enum { RMPI_AMO_FADD = 1, RMPI_AMO_CSWAP = 2 };

/* Incoming active message from world rank src. hdr and payload are valid
 * only during the call; the handler copies what it keeps. The handler may
 * call send() on any endpoint but never progress(). */
typedef void (*rmpi_am_cb_t)(int src, const void *hdr, size_t hlen, const void *payload,
                             size_t plen);

enum {
    RMPI_RNDV_NONE = 0, /* large messages are fragmented through send() */
    RMPI_RNDV_GET = 1,  /* RTS carries the sender's (addr, rkey); receiver get()s, sends FIN */
    RMPI_RNDV_PUT = 2   /* receiver answers CTS with its (addr, rkey); sender put()s, sends FIN */
};

typedef struct rmpi_tl_caps {
    size_t max_am;          /* largest hlen + plen one send() accepts */
    size_t rndv_threshold;  /* measured default; RMP_RNDV_THRESHOLD overrides */
    int rndv_mode;          /* RMPI_RNDV_* */
    bool intranode_only;    /* reaches only peers on this node */
    bool native_atomics;    /* atomic() is implemented (else the core emulates atomics) */
    bool rma;               /* put()/get() work with this peer (set per peer by connect) */
    size_t copyv_local_min;  /* copyv() pays off when the calling side's segments average */
    size_t copyv_remote_min; /* at least this, and the peer's at least this (core/layout.h) */
    size_t rma_msg_max;     /* one-sided transfers of at most this many bytes go as messages
                             * the target applies: below it put()/get() cost more (0: never) */
} rmpi_tl_caps_t;

/* What the core hands a transport: the job's shape, the two upcalls and the
 * transport's own parsed parameters. Everything a transport knows about the
 * job comes from here (a transport never reads core globals nor talks to
 * PMIx); pointers stay valid until fini. query, describe and max_am_hint get
 * it too, then for a one-rank job on this node (rmp_info). */
typedef struct rmpi_tl_args {
    int rank, size;              /* world rank and size */
    int local_rank, local_size;  /* index among, and number of, ranks on this node */
    const int *local_ranks;      /* world ranks of this node, ascending (local_size) */
    const int *node_of;          /* node id per world rank (size entries) */
    int num_nodes;
    rmpi_am_cb_t am;             /* incoming active messages */
    /* The connection to world rank peer is lost: every operation involving
     * that peer then fails with RMP_ERR_PEER_FAILED. Call from progress() or
     * a completion, never from inside send(). */
    void (*peer_failed)(int peer, const char *why);
    const void *params;          /* the iface's param_values, parsed from RMP_* */
    size_t rcache_max_bytes;     /* RMP_RCACHE_MAX_BYTES, for core/rcache users */
    bool stats;                  /* RMP_STATS: print counters at fini */
    double failure_timeout;      /* RMP_FAILURE_TIMEOUT: seconds a silent peer may go
                                  * unnoticed (0: no liveness checks of the transport's own) */
} rmpi_tl_args_t;

/* A tuning-file key of a transport ("shm buf_bytes 32k"): the file's value
 * sets param unless the environment set it. "TL rndv_threshold SIZE" exists
 * for every transport and needs no entry. */
typedef struct rmpi_tl_tune_key {
    const char *key;
    const char *param; /* name of an entry of the transport's params */
} rmpi_tl_tune_key_t;

typedef struct rmpi_tl_iface {
    const char *name;    /* as in RMP_TRANSPORTS and the tuning file */
    size_t default_rndv; /* default rendezvous threshold, for rmp_info --explain */
    /* Optional: the transport's RMP_* parameters (NULL-name terminated,
     * offsets into *param_values, which config.c fills before anything else
     * runs and hands back as args->params), and its tuning-file keys
     * (NULL-key terminated). */
    const struct rmpi_param *params;
    void *param_values;
    const rmpi_tl_tune_key_t *tune_keys;
    /* Optional, for rmp_info: the max_am init() would report, without
     * creating anything. */
    size_t (*max_am_hint)(const rmpi_tl_args_t *args);
    /* Optional: lines describing devices/ports/addresses for rmp_info. */
    void (*describe)(const rmpi_tl_args_t *args, void (*line)(const char *text));
    /* Can this transport run here? RMP_SUCCESS, or RMP_ERR_NOT_SUPPORTED with a
     * sentence in why. Cheap, side-effect free; rmp_info calls it too. */
    int (*query)(const rmpi_tl_args_t *args, char *why, size_t whylen);
    /* Create the instance (args outlives it). Errors: RMP_ERR_NOMEM,
     * RMP_ERR_TRANSPORT. */
    int (*init)(const rmpi_tl_args_t *args, rmpi_tl_t **tl, rmpi_tl_caps_t *caps);
    /* Optional (NULL: nothing to publish): write this instance's address
     * into buf; *len is the room on entry (RMPI_TL_ADDR_MAX), the bytes
     * written on return (0 allowed). The core packs every open transport's
     * address into one PMIx put before the fence. RMP_ERR_INTERNAL if it
     * does not fit. */
    int (*get_address)(rmpi_tl_t *tl, void *buf, size_t *len);
    /* After the fence: an endpoint to world rank peer, whose address for
     * this transport is (addr, len) as its get_address wrote it (len 0 and
     * addr NULL for the own rank and for a transport without get_address);
     * valid only during the call, and untrusted: validate it. May complete
     * lazily; a send() before the connection is up returns RMPI_AGAIN. caps
     * comes in as the instance's capabilities; the transport may lower them
     * for this peer (e.g. no rendezvous when the kernel forbids cross-memory
     * attach). RMP_ERR_BOOTSTRAP for a malformed address. */
    int (*connect)(rmpi_tl_t *tl, int peer, const void *addr, size_t len, rmpi_ep_t **ep,
                   rmpi_tl_caps_t *caps);
    /* Optional: after every rank connected (second fence): drop what only
     * connecting needed (e.g. segment descriptors). */
    int (*post_connect)(rmpi_tl_t *tl);
    /* Non-blocking, ordered per endpoint. Copies hdr and payload before it
     * returns RMP_SUCCESS; RMPI_AGAIN when there is no room (nothing sent);
     * RMP_ERR_PEER_FAILED / RMP_ERR_TRANSPORT on a broken endpoint. */
    int (*send)(rmpi_ep_t *ep, const void *hdr, size_t hlen, const void *payload,
                size_t plen);
    /* Memory the peers may access remotely (windows, rendezvous buffers):
     * returns a handle and the key peers pass to put/get/atomic. Local
     * buffers of put/get/atomic need no registration by the caller (the
     * transport registers them itself, through core/rcache). NULL when the
     * transport needs no keys (key 0). Errors: RMP_ERR_NOMEM, RMP_ERR_ACCESS
     * (memory cannot be registered, e.g. PROT_NONE). */
    int (*mem_reg)(rmpi_tl_t *tl, void *addr, size_t len, rmpi_mr_t **mr, uint64_t *rkey);
    void (*mem_dereg)(rmpi_tl_t *tl, rmpi_mr_t *mr);
    /* One-sided, non-blocking: cb(arg, status) once the data is placed at the
     * target (put) or has arrived here (get, atomic). RMPI_AGAIN: no
     * resources now, nothing started, retry after progress(). Any other
     * error return: nothing started, cb never called. NULL: not supported. */
    int (*put)(rmpi_ep_t *ep, const void *src, size_t len, uint64_t raddr, uint64_t rkey,
               rmpi_comp_cb_t cb, void *arg);
    int (*get)(rmpi_ep_t *ep, void *dst, size_t len, uint64_t raddr, uint64_t rkey,
               rmpi_comp_cb_t cb, void *arg);
    /* Optional: copy between segments of this process (local) and segments of the peer's
     * address space (remote), in stream order, done when it returns: write, local to
     * remote, else remote to local. Both lists at most RMPI_IOV_MAX entries, covering the
     * same number of bytes; no keys (the peer's memory is reached directly, e.g. cross-
     * memory attach). Costs a fixed amount per remote segment, so the core uses it only
     * for long segments (core/layout.h). RMP_ERR_PEER_FAILED: the peer's process is gone
     * (not reported through peer_failed: the caller does, once its operation is
     * finished). NULL: not supported. */
    int (*copyv)(rmpi_ep_t *ep, int write, const struct iovec *local, size_t nl,
                 const struct iovec *remote, size_t nr);
    /* 64-bit atomic at raddr (8-byte aligned): FADD adds operand, CSWAP
     * stores operand if the value equals compare. The old value goes to
     * *result. NULL (caps.native_atomics false): the core emulates. */
    int (*atomic)(rmpi_ep_t *ep, int op, uint64_t operand, uint64_t compare, uint64_t *result,
                  uint64_t raddr, uint64_t rkey, rmpi_comp_cb_t cb, void *arg);
    /* Optional: RMP_SUCCESS when everything send()/put() accepted has left
     * this process, RMPI_AGAIN otherwise (progress() moves it). Never blocks.
     * Finalize waits for it before the closing fence. */
    int (*flushed)(rmpi_tl_t *tl);
    /* Optional: is the peer still there? RMP_SUCCESS or RMP_ERR_PEER_FAILED.
     * Called rarely (blocked waits, every 50 ms); may make a syscall. */
    int (*ep_alive)(rmpi_ep_t *ep);
    /* Poll for incoming messages and completions; returns how many events
     * were handled (>= 0) or an error. Never blocks. */
    int (*progress)(rmpi_tl_t *tl);
    /* Release everything; safe on a half-built instance. */
    void (*fini)(rmpi_tl_t *tl);
    /* Optional: an endpoint to a dynamic peer (a process of another job, core/dynpeer.c)
     * at index peer in [size, size + RMPI_DYN_MAX). me_there is the index by which that
     * process knows this one: the transport names this side by it (indices of the two
     * jobs are unrelated). NULL: the transport cannot reach other jobs. */
    int (*connect_dyn)(rmpi_tl_t *tl, int peer, int me_there, const void *addr, size_t len,
                       rmpi_ep_t **ep, rmpi_tl_caps_t *caps);
} rmpi_tl_iface_t;

/* Most segments one copyv() takes on each side (the kernel's UIO_MAXIOV is 1024). */
#define RMPI_IOV_MAX 64

/* Peer indices past the world size kept for dynamic peers (MPI_Comm_spawn/accept/connect). */
#define RMPI_DYN_MAX 256

/* The transport registry: the one list of transports, in default preference
 * order. X(name, BUILT): the folder transports/name/ defines
 * `const rmpi_tl_iface_t rmpi_tl_<name>`; BUILT is 1, or the macro its
 * meson.build defines to 1 when it is compiled in (left undefined otherwise).
 * Adding a transport = its folder + one line here (docs/architecture.md).
 * self is always open and always first: it reaches only the own rank. */
#define RMPI_TL_REGISTRY(X) \
    X(self, 1)              \
    X(shm, 1)               \
    X(verbs, RMP_TL_VERBS)  \
    X(tcp, RMP_TL_TCP)

/* RMPI_TL_ID_<name>: the index of each entry; RMPI_TL_MAX: how many. */
#define RMPI_TL_ID_(name, built) RMPI_TL_ID_##name,
enum { RMPI_TL_REGISTRY(RMPI_TL_ID_) RMPI_TL_MAX };
/* Largest address get_address may write. */
#define RMPI_TL_ADDR_MAX 256

/* The array, lookup and address exchange built from it: core/tl_registry.h. */

#endif
