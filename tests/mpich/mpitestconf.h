/* SPDX-License-Identifier: BSD-3-Clause */
/* The configuration header MPICH's test suite (test/mpi) expects from its autoconf run,
 * written by hand for Linux with gcc and an MPI-3 or later library, configured as
 * MPICH's configure does for an MPI that is not MPICH (--enable-strictmpi): only
 * operations the MPI standard defines are tested. tests/mpich/run.py copies it into
 * the suite's include/ before compiling. Same for every --impl, so the peers run the
 * same programs. */
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED

#define HAVE_STDARG_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STRING_H 1
#define HAVE_STRINGS_H 1
#define HAVE_STDLIB_H 1
#define HAVE_MEMORY_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_PTHREAD_H 1
#define HAVE_PTHREAD_BARRIER_INIT 1
#define HAVE_STRDUP 1
#define HAVE_USLEEP 1
#define HAVE_GETRUSAGE 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_LONG_INT 1
#define HAVE__BOOL 1
#define HAVE_ATOMIC 1
#define HAVE_H_ADDR_LIST 1
#define USE_LONG_DOUBLE_COMPLEX 1
#define SIZEOF_VOID_P 8
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_SHORT 2

/* The MPI features the suite asks about (configure's AC_DEFINEs). */
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_SPAWN 1

/* --enable-strictmpi: no MPICH extensions, no MPIX_ routines. */
#define USE_STRICT_MPI 1
#define ENABLE_STRICTMPI 1

#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX

#endif
