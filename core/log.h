/* SPDX-License-Identifier: BSD-3-Clause */
/* Logging: one line per event, prefixed with the rank, filtered by RMP_LOG. */
#ifndef RMPI_LOG_H
#define RMPI_LOG_H

enum { RMPI_LOG_ERROR = 0, RMPI_LOG_WARN, RMPI_LOG_INFO, RMPI_LOG_DEBUG, RMPI_LOG_TRACE };

extern int rmpi_log_level;

void rmpi_log_at(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define rmpi_error(...) rmpi_log_at(RMPI_LOG_ERROR, __VA_ARGS__)
#define rmpi_warn(...) rmpi_log_at(RMPI_LOG_WARN, __VA_ARGS__)
#define rmpi_info(...)                                                  \
    do {                                                                \
        if (rmpi_log_level >= RMPI_LOG_INFO)                            \
            rmpi_log_at(RMPI_LOG_INFO, __VA_ARGS__);                    \
    } while (0)
#define rmpi_debug(...)                                                 \
    do {                                                                \
        if (rmpi_log_level >= RMPI_LOG_DEBUG)                           \
            rmpi_log_at(RMPI_LOG_DEBUG, __VA_ARGS__);                   \
    } while (0)
#define rmpi_trace(...)                                                 \
    do {                                                                \
        if (rmpi_log_level >= RMPI_LOG_TRACE)                           \
            rmpi_log_at(RMPI_LOG_TRACE, __VA_ARGS__);                   \
    } while (0)

#endif
