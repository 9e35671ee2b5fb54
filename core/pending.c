/* Entry points whose capability has not landed yet: they fail with
 * RMP_ERR_NOT_SUPPORTED (never a silent success). Each moves to its own
 * module when implemented. */
#include "rmpi.h"

#define PENDING_BODY                                                        \
    {                                                                       \
        int rc = rmpi_check_state();                                        \
        return rc != RMP_SUCCESS ? rc : RMP_ERR_NOT_SUPPORTED;              \
    }

RMP_EXPORT int rmp_win_create(void *b, size_t n, rmp_comm_t c, rmp_win_t *w)
{ (void)b; (void)n; (void)c; (void)w; PENDING_BODY }
RMP_EXPORT int rmp_win_allocate(size_t n, rmp_comm_t c, void **b, rmp_win_t *w)
{ (void)b; (void)n; (void)c; (void)w; PENDING_BODY }
RMP_EXPORT int rmp_win_free(rmp_win_t *w) { (void)w; PENDING_BODY }
RMP_EXPORT int rmp_put(const void *s, size_t n, int t, size_t o, rmp_win_t w)
{ (void)s; (void)n; (void)t; (void)o; (void)w; PENDING_BODY }
RMP_EXPORT int rmp_get(void *d, size_t n, int t, size_t o, rmp_win_t w)
{ (void)d; (void)n; (void)t; (void)o; (void)w; PENDING_BODY }
RMP_EXPORT int rmp_put_nbi(const void *s, size_t n, int t, size_t o, rmp_win_t w)
{ (void)s; (void)n; (void)t; (void)o; (void)w; PENDING_BODY }
RMP_EXPORT int rmp_get_nbi(void *d, size_t n, int t, size_t o, rmp_win_t w)
{ (void)d; (void)n; (void)t; (void)o; (void)w; PENDING_BODY }
RMP_EXPORT int rmp_win_flush(int t, rmp_win_t w) { (void)t; (void)w; PENDING_BODY }
RMP_EXPORT int rmp_win_flush_all(rmp_win_t w) { (void)w; PENDING_BODY }
RMP_EXPORT int rmp_atomic_fetch_add(uint64_t v, uint64_t *o, int t, size_t off, rmp_win_t w)
{ (void)v; (void)o; (void)t; (void)off; (void)w; PENDING_BODY }
RMP_EXPORT int rmp_atomic_cswap(uint64_t c, uint64_t s, uint64_t *o, int t, size_t off, rmp_win_t w)
{ (void)c; (void)s; (void)o; (void)t; (void)off; (void)w; PENDING_BODY }
