/* SPDX-License-Identifier: BSD-3-Clause */
/* Environment: Init/Finalize, thread level, version queries, time, memory. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpii_base.h"
#include "mpii_dyn.h"
#include "mpii_dtype.h"
#include "mpii_p2p.h"

int mpii_state;
int mpii_mt;
pthread_mutex_t mpii_mt_lock = PTHREAD_MUTEX_INITIALIZER;
static int env_thread_level;
static pthread_t env_main_thread;

/* ---- Object pools ---- */

void *mpii_obj_new(mpii_pool_t *pool, uint32_t magic)
{
    MPII_LOCK();
    void *obj = pool->free;
    if (obj)
        pool->free = ((void **)obj)[1];
    MPII_UNLOCK();
    if (obj) {
        memset(obj, 0, pool->size);
    } else {
        /* aligned so the handle check (8-byte alignment) holds */
        obj = aligned_alloc(16, (pool->size + 15) & ~(size_t)15);
        if (!obj)
            return NULL;
        memset(obj, 0, pool->size);
    }
    *(uint32_t *)obj = magic;
    return obj;
}

void mpii_obj_free(mpii_pool_t *pool, void *obj)
{
    memset(obj, 0, pool->size);
    *(uint32_t *)obj = MPII_MAGIC_FREED;
    MPII_LOCK();
    ((void **)obj)[1] = pool->free;
    pool->free = obj;
    MPII_UNLOCK();
}

int mpii_check_init(const char *fn)
{
    if (MPII_LIKELY(mpii_state == 1))
        return MPI_SUCCESS;
    /* No communicator exists yet or any more: the default handler is fatal. */
    fprintf(stderr, "rmp MPI: %s called %s\n", fn,
            mpii_state == 0 ? "before MPI_Init" : "after MPI_Finalize");
    fflush(stderr);
    _exit(1);
}

/* ---- Init / Finalize ---- */

/* The ABI's thread levels (0, 1024, 2048, 4096) in rmp's order, and back. */
static const int env_levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                 MPI_THREAD_MULTIPLE};

static int env_level_to_rmp(int mpi_level)
{
    for (int i = 3; i > 0; i--)
        if (mpi_level >= env_levels[i])
            return i;
    return RMP_THREAD_SINGLE;
}

/* The engine (rmp) serves both models: MPI_Init and every MPI_Session_init take a
 * reference, MPI_Finalize and MPI_Session_finalize drop theirs. rmp cannot start twice
 * in a process, so an engine left by its last session stays up (a later session or
 * MPI_Init reuses it) and stops at exit; MPI_Finalize stops it when no session is live. */
static pthread_mutex_t env_engine_lock = PTHREAD_MUTEX_INITIALIZER;
static int env_sessions; /* live sessions */
int mpii_world_state;    /* the world model: 0 before MPI_Init, 1 initialized, 2 finalized */

static int env_engine_start(int *argc, char ***argv, int required, const char *fn)
{
    mpii_dtype_init();
    int provided = RMP_THREAD_SINGLE;
    int rc = rmp_init_thread(argc, argv, env_level_to_rmp(required), &provided);
    if (rc != RMP_SUCCESS) {
        /* The default handler, MPI_ERRORS_ARE_FATAL, applies: the process ends here
         * rather than at its next MPI call. A refused configuration was said line by
         * line already (status 2, as rrun's); other failures say what failed. */
        if (rc == RMP_ERR_PEER_FAILED)
            fprintf(stderr, "rmp MPI: %s failed: another rank failed first (a consequence: "
                    "the launcher names it)\n", fn);
        else if (rc != RMP_ERR_ARG)
            fprintf(stderr, "rmp MPI: %s failed: %s; the job cannot start\n", fn,
                    rmp_strerror(rc));
        fflush(stderr);
        _exit(rc == RMP_ERR_ARG ? 2 : 1);
    }
    rmp_comm_t world = rmp_comm_world(), self = RMP_COMM_NULL;
    rc = rmp_comm_split(world, rmp_comm_rank(world), 0, &self);
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "rmp MPI: %s: cannot create MPI_COMM_SELF: %s\n", fn, rmp_strerror(rc));
        rmp_finalize();
        return mpii_err_from_rmp(rc);
    }
    mpii_comm_world.rc = world;
    mpii_comm_world.rank = rmp_comm_rank(world);
    mpii_comm_world.size = rmp_comm_size(world);
    mpii_comm_self.rc = self;
    mpii_comm_self.rank = 0;
    mpii_comm_self.size = 1;
    rmp_comm_set_user(world, &mpii_comm_world);
    rmp_comm_set_user(self, &mpii_comm_self);
    mpii_comm_world.errh = mpii_comm_self.errh = mpii_errh(MPI_ERRORS_ARE_FATAL);
    env_main_thread = pthread_self();
    env_thread_level = env_levels[provided];
    mpii_mt = env_thread_level == MPI_THREAD_MULTIPLE;
    mpii_state = 1;
    mpii_part_init();
    rc = mpii_attr_init();
    if (rc == MPI_SUCCESS)
        rc = mpii_info_env_init(argc ? *argc : 0, argv ? *argv : NULL);
    return rc;
}

static int env_engine_stop(void)
{
    mpii_p2p_fini();
    /* Everybody's data is delivered before anybody leaves. */
    rmp_barrier(mpii_comm_world.rc);
    rmp_comm_free(&mpii_comm_self.rc);
    mpii_topo_free(mpii_comm_world.topo);
    mpii_comm_world.topo = NULL;
    mpii_state = 2;
    int rc = rmp_finalize();
    return rc == RMP_SUCCESS ? MPI_SUCCESS : mpii_err_from_rmp(rc);
}

/* An engine its sessions left running stops when the program ends. */
static void env_engine_atexit(void)
{
    pthread_mutex_lock(&env_engine_lock);
    if (mpii_state == 1 && env_sessions == 0 && mpii_world_state != 1)
        env_engine_stop();
    pthread_mutex_unlock(&env_engine_lock);
}

int mpii_session_engine_get(int required, int *provided, const char *fn)
{
    static int atexit_set;
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&env_engine_lock);
    if (mpii_state == 2) {
        rc = MPI_ERR_OTHER; /* rmp_finalize ran: rmp cannot start again in this process */
    } else {
        if (mpii_state == 0)
            rc = env_engine_start(NULL, NULL, required, fn);
        if (rc == MPI_SUCCESS) {
            env_sessions++;
            if (!atexit_set)
                atexit_set = atexit(env_engine_atexit) == 0;
            *provided = env_thread_level;
        }
    }
    pthread_mutex_unlock(&env_engine_lock);
    return rc;
}

int mpii_session_engine_put(void)
{
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&env_engine_lock);
    /* MPI_Finalize left the engine to the last session: it stops it now. */
    if (--env_sessions == 0 && mpii_world_state == 2 && mpii_state == 1)
        rc = env_engine_stop();
    pthread_mutex_unlock(&env_engine_lock);
    return rc;
}

static int env_init(int *argc, char ***argv, int required, const char *fn)
{
    pthread_mutex_lock(&env_engine_lock);
    if (mpii_world_state != 0 || mpii_state == 2) {
        fprintf(stderr, "rmp MPI: %s called twice (or after MPI_Finalize)\n", fn);
        _exit(1);
    }
    int rc = MPI_SUCCESS;
    if (mpii_state == 0)
        rc = env_engine_start(argc, argv, required, fn);
    else if (argc) /* the engine was started by a session: the program's arguments now */
        rc = mpii_info_env_init(*argc, argv ? *argv : NULL);
    if (rc == MPI_SUCCESS)
        mpii_world_state = 1;
    pthread_mutex_unlock(&env_engine_lock);
    if (rc == MPI_SUCCESS) /* a spawned process meets its parent job */
        rc = mpii_dyn_parent_init();
    return rc;
}

int PMPI_Init(int *argc, char ***argv)
{
    return env_init(argc, argv, MPI_THREAD_SINGLE, "MPI_Init");
}
MPII_WEAK(Init)

/* The level rmp_init_thread provides (SERIALIZED at most until MULTIPLE lands: issue 17,
 * docs/threads.md). */
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (!provided)
        return MPI_ERR_ARG;
    int rc = env_init(argc, argv, required, "MPI_Init_thread");
    if (rc != MPI_SUCCESS)
        return rc;
    *provided = env_thread_level;
    return MPI_SUCCESS;
}
MPII_WEAK(Init_thread)

int PMPI_Finalize(void)
{
    int rc = mpii_check_init("MPI_Finalize");
    if (rc != MPI_SUCCESS)
        return rc;
    if (mpii_world_state != 1) { /* the engine lives on for a session */
        fprintf(stderr, "rmp MPI: MPI_Finalize called %s\n",
                mpii_world_state == 0 ? "before MPI_Init" : "twice");
        fflush(stderr);
        _exit(1);
    }
    /* The standard: Finalize first deletes MPI_COMM_SELF's attributes (their
     * delete callbacks may still make MPI calls). */
    mpii_attr_delete_all(&mpii_comm_self, "MPI_Finalize");
    mpii_attr_delete_all(&mpii_comm_world, "MPI_Finalize");
    pthread_mutex_lock(&env_engine_lock);
    mpii_world_state = 2;
    /* A live session keeps the engine: its last MPI_Session_finalize stops it. */
    rc = env_sessions > 0 ? MPI_SUCCESS : env_engine_stop();
    pthread_mutex_unlock(&env_engine_lock);
    return rc;
}
MPII_WEAK(Finalize)

int PMPI_Initialized(int *flag)
{
    if (!flag)
        return MPI_ERR_ARG;
    *flag = mpii_world_state != 0; /* the world model only (MPI-4.0 11.2.1) */
    return MPI_SUCCESS;
}
MPII_WEAK(Initialized)

int PMPI_Finalized(int *flag)
{
    if (!flag)
        return MPI_ERR_ARG;
    *flag = mpii_world_state == 2;
    return MPI_SUCCESS;
}
MPII_WEAK(Finalized)

int PMPI_Query_thread(int *provided)
{
    if (!provided)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Query_thread", "provided is NULL");
    *provided = env_thread_level;
    return MPI_SUCCESS;
}
MPII_WEAK(Query_thread)

int PMPI_Is_thread_main(int *flag)
{
    if (!flag)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Is_thread_main", "flag is NULL");
    *flag = pthread_equal(pthread_self(), env_main_thread) != 0;
    return MPI_SUCCESS;
}
MPII_WEAK(Is_thread_main)

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    mpii_comm_t *c = mpii_comm(comm);
    fprintf(stderr, "rmp MPI: MPI_Abort(%d) called on rank %d\n", errorcode,
            mpii_state == 1 ? mpii_comm_world.rank : -1);
    fflush(stderr);
    if (mpii_state == 1)
        rmp_abort(c && c->rc ? c->rc : mpii_comm_world.rc, errorcode);
    _exit(errorcode ? errorcode : 1);
}
MPII_WEAK(Abort)

/* ---- Versions and names ---- */

int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return MPI_ERR_ARG;
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
MPII_WEAK(Get_version)

int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return MPI_ERR_ARG;
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
             "rmp %s, MPI %d.%d standard ABI %d.%d (libmpi_abi)", RMP_VERSION_STRING,
             MPI_VERSION, MPI_SUBVERSION, MPI_ABI_VERSION, MPI_ABI_SUBVERSION);
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}
MPII_WEAK(Get_library_version)

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    if (!name || !resultlen)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Get_processor_name",
                             "NULL output argument");
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        strcpy(name, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
MPII_WEAK(Get_processor_name)

int PMPI_Abi_get_version(int *abi_major, int *abi_minor)
{
    if (!abi_major || !abi_minor)
        return MPI_ERR_ARG;
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
    return MPI_SUCCESS;
}
MPII_WEAK(Abi_get_version)

/* ---- Time ---- */

double PMPI_Wtime(void)
{
    return rmp_wtime();
}
MPII_WEAK(Wtime)

double PMPI_Wtick(void)
{
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0)
        return 1e-9;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
MPII_WEAK(Wtick)

/* Profiling control: rmp has no profiling levels; the call is accepted. */
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
MPII_WEAK(Pcontrol)

/* ---- Memory ---- */

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    (void)info; /* no info key changes where memory comes from */
    if (size < 0 || !baseptr)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Alloc_mem", "size %ld < 0 or NULL baseptr",
                             (long)size);
    void *p = NULL;
    if (posix_memalign(&p, 64, size ? (size_t)size : 1) != 0)
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, "MPI_Alloc_mem",
                             "cannot allocate %ld bytes", (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}
MPII_WEAK(Alloc_mem)

int PMPI_Free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}
MPII_WEAK(Free_mem)

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
MPII_WEAK(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
MPII_WEAK(Aint_diff)
