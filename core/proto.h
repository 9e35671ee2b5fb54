/* Wire formats of the point-to-point protocol (docs/protocols.md). */
#ifndef RMPI_PROTO_H
#define RMPI_PROTO_H

#include <stdint.h>

enum {
    RMPI_MSG_EAGER = 1,     /* rmpi_hdr_t, payload = the whole message */
    RMPI_MSG_RTS = 2,       /* rmpi_rts_t, no payload: receiver pulls */
    RMPI_MSG_FIN = 3,       /* rmpi_fin_t: rendezvous done, sender completes */
    RMPI_MSG_FRAG_FIRST = 4,/* rmpi_rts_t + first chunk: fragmented message */
    RMPI_MSG_FRAG = 5       /* rmpi_hdr_t (type only) + next chunk, same pair */
};

/* Matching header: carried by every message that a receive matches. */
typedef struct rmpi_hdr {
    uint8_t type;
    uint8_t flags;
    uint16_t reserved;
    uint32_t cid; /* context id of the communicator */
    int32_t src;  /* sender's rank in that communicator */
    int32_t tag;
} rmpi_hdr_t; /* 16 bytes */

typedef struct rmpi_rts {
    rmpi_hdr_t h;
    uint64_t size; /* whole message */
    uint64_t sreq; /* sender's request, echoed in FIN */
    uint64_t addr; /* sender's buffer */
    uint64_t key;  /* transport key for rndv_get */
} rmpi_rts_t;

typedef struct rmpi_fin {
    uint8_t type;
    uint8_t reserved[3];
    int32_t status; /* receiver's view; RMP_SUCCESS normally */
    uint64_t sreq;
} rmpi_fin_t;

#endif
