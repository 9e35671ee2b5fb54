/* SPDX-License-Identifier: BSD-3-Clause */
/* The _toint/_fromint converters (MPI-5.0 ABI): predefined handles are their
 * own integer values; a created object gets an index in one table, above the
 * predefined range, the first time it is converted. */
#include <stdlib.h>

#include "mpii_base.h"

static void **handle_table;
static int handle_n, handle_cap;

static int handle_toint(void *h)
{
    uintptr_t v = (uintptr_t)h;
    if (v < MPII_PREDEFINED_MAX)
        return (int)v;
    for (int i = 0; i < handle_n; i++)
        if (handle_table[i] == h)
            return MPII_PREDEFINED_MAX + i;
    if (handle_n == handle_cap) {
        int cap = handle_cap ? 2 * handle_cap : 64;
        void **t = realloc(handle_table, (size_t)cap * sizeof(void *));
        if (!t)
            return -1; /* no integer can name it: fromint(-1) gives the null handle */
        handle_table = t;
        handle_cap = cap;
    }
    handle_table[handle_n] = h;
    return MPII_PREDEFINED_MAX + handle_n++;
}

static void *handle_fromint(int i, void *null)
{
    if (i >= 0 && i < MPII_PREDEFINED_MAX)
        return (void *)(uintptr_t)i;
    if (i >= MPII_PREDEFINED_MAX && i - MPII_PREDEFINED_MAX < handle_n)
        return handle_table[i - MPII_PREDEFINED_MAX];
    return null;
}

int PMPI_Comm_toint(MPI_Comm comm)
{
    return handle_toint((void *)comm);
}
MPII_WEAK(Comm_toint)

MPI_Comm PMPI_Comm_fromint(int comm)
{
    return (MPI_Comm)handle_fromint(comm, (void *)MPI_COMM_NULL);
}
MPII_WEAK(Comm_fromint)

int PMPI_Errhandler_toint(MPI_Errhandler errhandler)
{
    return handle_toint((void *)errhandler);
}
MPII_WEAK(Errhandler_toint)

MPI_Errhandler PMPI_Errhandler_fromint(int errhandler)
{
    return (MPI_Errhandler)handle_fromint(errhandler, (void *)MPI_ERRHANDLER_NULL);
}
MPII_WEAK(Errhandler_fromint)

int PMPI_File_toint(MPI_File file)
{
    return handle_toint((void *)file);
}
MPII_WEAK(File_toint)

MPI_File PMPI_File_fromint(int file)
{
    return (MPI_File)handle_fromint(file, (void *)MPI_FILE_NULL);
}
MPII_WEAK(File_fromint)

int PMPI_Group_toint(MPI_Group group)
{
    return handle_toint((void *)group);
}
MPII_WEAK(Group_toint)

MPI_Group PMPI_Group_fromint(int group)
{
    return (MPI_Group)handle_fromint(group, (void *)MPI_GROUP_NULL);
}
MPII_WEAK(Group_fromint)

int PMPI_Info_toint(MPI_Info info)
{
    return handle_toint((void *)info);
}
MPII_WEAK(Info_toint)

MPI_Info PMPI_Info_fromint(int info)
{
    return (MPI_Info)handle_fromint(info, (void *)MPI_INFO_NULL);
}
MPII_WEAK(Info_fromint)

int PMPI_Message_toint(MPI_Message message)
{
    return handle_toint((void *)message);
}
MPII_WEAK(Message_toint)

MPI_Message PMPI_Message_fromint(int message)
{
    return (MPI_Message)handle_fromint(message, (void *)MPI_MESSAGE_NULL);
}
MPII_WEAK(Message_fromint)

int PMPI_Op_toint(MPI_Op op)
{
    return handle_toint((void *)op);
}
MPII_WEAK(Op_toint)

MPI_Op PMPI_Op_fromint(int op)
{
    return (MPI_Op)handle_fromint(op, (void *)MPI_OP_NULL);
}
MPII_WEAK(Op_fromint)

int PMPI_Request_toint(MPI_Request request)
{
    return handle_toint((void *)request);
}
MPII_WEAK(Request_toint)

MPI_Request PMPI_Request_fromint(int request)
{
    return (MPI_Request)handle_fromint(request, (void *)MPI_REQUEST_NULL);
}
MPII_WEAK(Request_fromint)

int PMPI_Session_toint(MPI_Session session)
{
    return handle_toint((void *)session);
}
MPII_WEAK(Session_toint)

MPI_Session PMPI_Session_fromint(int session)
{
    return (MPI_Session)handle_fromint(session, (void *)MPI_SESSION_NULL);
}
MPII_WEAK(Session_fromint)

int PMPI_Type_toint(MPI_Datatype datatype)
{
    return handle_toint((void *)datatype);
}
MPII_WEAK(Type_toint)

MPI_Datatype PMPI_Type_fromint(int datatype)
{
    return (MPI_Datatype)handle_fromint(datatype, (void *)MPI_DATATYPE_NULL);
}
MPII_WEAK(Type_fromint)

int PMPI_Win_toint(MPI_Win win)
{
    return handle_toint((void *)win);
}
MPII_WEAK(Win_toint)

MPI_Win PMPI_Win_fromint(int win)
{
    return (MPI_Win)handle_fromint(win, (void *)MPI_WIN_NULL);
}
MPII_WEAK(Win_fromint)
