/* The transport contract. A transport moves opaque (header, payload) active
 * messages to a peer in order, and may offer a zero-copy rendezvous and RMA.
 * It never calls up into the core except through the callback given to init. */
#ifndef RMPI_TRANSPORT_H
#define RMPI_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rmpi_tl rmpi_tl_t; /* one instance of a transport (opaque) */
typedef struct rmpi_ep rmpi_ep_t; /* a transport's connection to one peer (opaque) */
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
} rmpi_tl_caps_t;

typedef struct rmpi_tl_iface {
    const char *name;
    size_t default_rndv; /* default rendezvous threshold, for rmp_info --explain */
    /* Optional, for rmp_info: the max_am init() would report with the current
     * configuration (rmpi_cfg), without creating anything. */
    size_t (*max_am_hint)(void);
    /* Optional: lines describing devices/ports/addresses for rmp_info. */
    void (*describe)(void (*line)(const char *text));
    /* Can this transport run here? RMP_SUCCESS, or RMP_ERR_NOT_SUPPORTED with a
     * sentence in why. Cheap, side-effect free; rmp_info calls it too. */
    int (*query)(char *why, size_t whylen);
    /* Create the instance and publish its address with rmpi_boot_put (the
     * core fences afterwards). Errors: RMP_ERR_NOMEM, RMP_ERR_TRANSPORT. */
    int (*init)(rmpi_am_cb_t cb, rmpi_tl_t **tl, rmpi_tl_caps_t *caps);
    /* After the fence: an endpoint to world rank peer. May complete lazily; a
     * send() before the connection is up returns RMPI_AGAIN. caps comes in
     * as the instance's capabilities; the transport may lower them for this
     * peer (e.g. no rendezvous when the kernel forbids cross-memory attach). */
    int (*connect)(rmpi_tl_t *tl, int peer, rmpi_ep_t **ep, rmpi_tl_caps_t *caps);
    /* After every rank connected (second fence): drop rendezvous names etc. */
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
} rmpi_tl_iface_t;

/* Upcall for transports: the connection to world rank peer is lost. Every
 * operation involving that peer then fails with RMP_ERR_PEER_FAILED. */
void rmpi_peer_failed(int peer, const char *why);

/* The transport registry: the one list of transports, in default preference
 * order (self is always first and reaches only the own rank). RMPI_TL_MAX,
 * the bound of every per-transport array, is derived from it. */
#define RMPI_TL_REGISTRY(X) X(self) X(shm) X(verbs) X(tcp)
#define RMPI_TL_COUNT_(name) +1
enum { RMPI_TL_MAX = 0 RMPI_TL_REGISTRY(RMPI_TL_COUNT_) };

/* The compiled-in transports, in default preference order, NULL-terminated. */
extern const rmpi_tl_iface_t *const rmpi_transports[];

extern const rmpi_tl_iface_t rmpi_tl_self;
extern const rmpi_tl_iface_t rmpi_tl_shm;
extern const rmpi_tl_iface_t rmpi_tl_verbs; /* transports/verbs, when built */
extern const rmpi_tl_iface_t rmpi_tl_tcp;   /* transports/tcp, when built */

#endif
