/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_T events and sources. rmp raises no events (MPI_T_event_get_num is 0): an
 * event index is always MPI_T_ERR_INVALID_INDEX, a name MPI_T_ERR_INVALID_NAME,
 * and since no registration or instance can exist, a handle of either is
 * MPI_T_ERR_INVALID_HANDLE. One source: the monotonic clock, in nanoseconds
 * (the time base of an event's timestamp, were there any). */
#include <stdint.h>
#include <time.h>

#include "mpii_t.h"

int PMPI_T_event_get_num(int *num_events)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_events)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    *num_events = 0;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_event_get_num)

int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind)
{
    (void)event_index, (void)name, (void)name_len, (void)verbosity, (void)array_of_datatypes;
    (void)array_of_displacements, (void)num_elements, (void)enumtype, (void)info, (void)desc;
    (void)desc_len, (void)bind;
    int rc = mpii_t_enter();
    return rc != MPI_SUCCESS ? rc : mpii_t_leave(MPI_T_ERR_INVALID_INDEX);
}
MPII_WEAK(T_event_get_info)

int PMPI_T_event_get_index(const char *name, int *event_index)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !event_index)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    return mpii_t_leave(MPI_T_ERR_INVALID_NAME);
}
MPII_WEAK(T_event_get_index)

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    (void)event_index, (void)obj_handle, (void)info, (void)event_registration;
    int rc = mpii_t_enter();
    return rc != MPI_SUCCESS ? rc : mpii_t_leave(MPI_T_ERR_INVALID_INDEX);
}
MPII_WEAK(T_event_handle_alloc)

/* A call on a registration or an instance: none can exist. */
static int event_no_handle(void)
{
    int rc = mpii_t_enter();
    return rc != MPI_SUCCESS ? rc : mpii_t_leave(MPI_T_ERR_INVALID_HANDLE);
}

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function free_cb_function)
{
    (void)event_registration, (void)user_data, (void)free_cb_function;
    return event_no_handle();
}
MPII_WEAK(T_event_handle_free)

int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration,
                                 MPI_Info *info_used)
{
    (void)event_registration, (void)info_used;
    return event_no_handle();
}
MPII_WEAK(T_event_handle_get_info)

int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    (void)event_registration, (void)info;
    return event_no_handle();
}
MPII_WEAK(T_event_handle_set_info)

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function event_cb_function)
{
    (void)event_registration, (void)cb_safety, (void)info, (void)user_data;
    (void)event_cb_function;
    return event_no_handle();
}
MPII_WEAK(T_event_register_callback)

int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    (void)event_registration, (void)cb_safety, (void)info_used;
    return event_no_handle();
}
MPII_WEAK(T_event_callback_get_info)

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info)
{
    (void)event_registration, (void)cb_safety, (void)info;
    return event_no_handle();
}
MPII_WEAK(T_event_callback_set_info)

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function dropped_cb_function)
{
    (void)event_registration, (void)dropped_cb_function;
    return event_no_handle();
}
MPII_WEAK(T_event_set_dropped_handler)

int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    (void)event_instance, (void)buffer;
    return event_no_handle();
}
MPII_WEAK(T_event_copy)

int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    (void)event_instance, (void)element_index, (void)buffer;
    return event_no_handle();
}
MPII_WEAK(T_event_read)

int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    (void)event_instance, (void)source_index;
    return event_no_handle();
}
MPII_WEAK(T_event_get_source)

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    (void)event_instance, (void)event_timestamp;
    return event_no_handle();
}
MPII_WEAK(T_event_get_timestamp)

int PMPI_T_source_get_num(int *num_sources)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_sources)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    *num_sources = 1;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_source_get_num)

int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc,
                           int *desc_len, MPI_T_source_order *ordering,
                           MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (source_index != 0)
        return mpii_t_leave(MPI_T_ERR_INVALID_INDEX);
    mpii_t_str(name, name_len, "rmp_clock_monotonic");
    mpii_t_str(desc, desc_len, "this process's monotonic clock (CLOCK_MONOTONIC), in nanoseconds");
    if (ordering)
        *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second)
        *ticks_per_second = 1000000000;
    if (max_ticks)
        *max_ticks = INT64_MAX;
    pthread_mutex_unlock(&mpii_t_lock);
    /* A new (empty) info the caller frees; outside the lock: it enters the MPI layer. */
    if (info && PMPI_Info_create(info) != MPI_SUCCESS)
        *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
MPII_WEAK(T_source_get_info)

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (source_index != 0)
        return mpii_t_leave(MPI_T_ERR_INVALID_INDEX);
    if (!timestamp)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *timestamp = (MPI_Count)ts.tv_sec * 1000000000 + ts.tv_nsec;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_source_get_timestamp)
