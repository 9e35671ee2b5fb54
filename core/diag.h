/* Hang diagnosis (core/diag.c): on SIGUSR1 every rank writes one line saying
 * what it is blocked on. Blocking loops without a request say it here. */
#ifndef RMPI_DIAG_H
#define RMPI_DIAG_H

/* What a blocking call waits on when it has no request (probe, one-sided
 * waits), for the SIGUSR1 report; call == NULL: nothing. */
typedef struct rmpi_diag {
    const char *call;
    int peer; /* world rank, -1: any or several */
    int tag;
    long cid;
    int coll; /* a collective waiting in a shared segment: reported like its receives */
} rmpi_diag_t;
extern volatile rmpi_diag_t rmpi_blocked_other;
/* Name of the last collective entered (the report names the call). */
extern const char *volatile rmpi_coll_call;

/* Install the SIGUSR1 handler unless the application has its own (rmp_init). */
void rmpi_diag_install(void);

#endif
