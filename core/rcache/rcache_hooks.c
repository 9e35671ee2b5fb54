/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory hooks: learn about every unmap/remap in the process, including libc's own.
 *
 * Why binary patching (docs/rcache.md has the experiments): glibc's malloc calls __munmap,
 * __madvise, __mremap and __brk through internal hidden aliases, so defining munmap in
 * librmp (symbol interposition) never sees free(); the malloc hooks are gone since 2.34;
 * userfaultfd needs a monitor thread, registered ranges and blocks the unmapping thread.
 * The aliases share their entry point with the exported functions, so we overwrite the
 * first 13 bytes of libc's munmap, mremap, madvise, mmap and brk with
 *     movabs $hook, %r11 ; jmp *%r11
 * and the hooks make the system call themselves (the original code is never run again).
 * sbrk calls brk, so it is covered. x86-64 only; elsewhere install reports "not supported".
 *
 * A hook must be safe anywhere: inside malloc with an arena lock held, in a signal
 * handler, concurrently on many threads. It only reads atomics and queues ranges
 * (rcache_notify_unmap), and it uses nothing but syscall(). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr1, MREMAP_FIXED, MADV_* (meson defines it already) */
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <gnu/lib-names.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rcache.h"
#include "rcache_int.h"

#define RCACHE_MAX_SUBSCRIBERS 32
#define RCACHE_PATCH_LEN 13

#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24
#endif

static struct {
    _Atomic(rcache_t *) rc;
    atomic_uint users; /* hooks currently using rc */
} hooks_subs[RCACHE_MAX_SUBSCRIBERS];
static atomic_int hooks_nsubs;
static atomic_int hooks_installed;
/* Install self-test: the address of a block being freed, and whether a hook saw it go. */
static _Atomic uintptr_t hooks_probe;
static atomic_int hooks_probe_seen;
static const char *hooks_why = "not tried";

extern void *__curbrk; /* glibc's cached break, exported (GLIBC_2.2.5); brk must keep it */

int rcache_hooks_subscribe(rcache_t *rc)
{
    int i;

    for (i = 0; i < RCACHE_MAX_SUBSCRIBERS; i++) {
        rcache_t *expected = NULL;

        if (atomic_compare_exchange_strong(&hooks_subs[i].rc, &expected, rc)) {
            atomic_fetch_add(&hooks_nsubs, 1);
            return i;
        }
    }
    return -1;
}

void rcache_hooks_unsubscribe(int slot)
{
    if (slot < 0 || slot >= RCACHE_MAX_SUBSCRIBERS)
        return;
    atomic_store(&hooks_subs[slot].rc, NULL);
    atomic_fetch_sub(&hooks_nsubs, 1);
    /* A hook that raised users before our store may still hold the pointer. One that
       raises it after will reload NULL (both sequentially consistent). */
    while (atomic_load(&hooks_subs[slot].users))
        sched_yield();
}

static void hooks_notify(uintptr_t lo, uintptr_t hi)
{
    int i;
    uintptr_t probe = atomic_load_explicit(&hooks_probe, memory_order_relaxed);

    if (__builtin_expect(probe != 0, 0) && lo <= probe && probe < hi)
        atomic_store(&hooks_probe_seen, 1);
    if (lo >= hi || atomic_load_explicit(&hooks_nsubs, memory_order_relaxed) == 0)
        return;
    for (i = 0; i < RCACHE_MAX_SUBSCRIBERS; i++) {
        rcache_t *rc;

        if (!atomic_load_explicit(&hooks_subs[i].rc, memory_order_relaxed))
            continue;
        atomic_fetch_add(&hooks_subs[i].users, 1);
        rc = atomic_load(&hooks_subs[i].rc);
        if (rc)
            rcache_notify_unmap(rc, lo, hi);
        atomic_fetch_sub(&hooks_subs[i].users, 1);
    }
}

static uintptr_t hooks_end(const void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr;
    return a + len < a ? UINTPTR_MAX : a + len;
}

/* ---- replacements: same contract as the libc functions ---- */

static int hooks_munmap(void *addr, size_t len)
{
    hooks_notify((uintptr_t)addr, hooks_end(addr, len));
    return (int)syscall(SYS_munmap, addr, len);
}

static void *hooks_mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
    void *new_addr = NULL;
    va_list ap;

    if (flags & MREMAP_FIXED) {
        va_start(ap, flags);
        new_addr = va_arg(ap, void *);
        va_end(ap);
        hooks_notify((uintptr_t)new_addr, hooks_end(new_addr, new_len));
    }
    /* Even an in-place resize is reported: cheap, and shrinking does unmap the tail. */
    hooks_notify((uintptr_t)old, hooks_end(old, old_len));
    return (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
}

static int hooks_madvise(void *addr, size_t len, int advice)
{
    if (advice == MADV_DONTNEED || advice == MADV_FREE || advice == MADV_REMOVE ||
        advice == MADV_DONTNEED_LOCKED)
        hooks_notify((uintptr_t)addr, hooks_end(addr, len));
    return (int)syscall(SYS_madvise, addr, len, advice);
}

static void *hooks_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    /* MAP_FIXED replaces what was there; MAP_FIXED_NOREPLACE fails instead. */
    if ((flags & MAP_FIXED) && !(flags & MAP_FIXED_NOREPLACE))
        hooks_notify((uintptr_t)addr, hooks_end(addr, len));
    return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

static int hooks_brk(void *addr)
{
    uintptr_t old = (uintptr_t)__curbrk;
    uintptr_t now = (uintptr_t)syscall(SYS_brk, addr); /* the new break, never an error */

    __curbrk = (void *)now;
    if (old && now < old)
        hooks_notify(now, old); /* after the fact: the exact range, known only now */
    if (now < (uintptr_t)addr) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* ---- patching ---- */

struct hooks_site {
    const char *name;
    void *repl;
    unsigned char *fn;
};

static int hooks_resolve(void *libc, struct hooks_site *site)
{
    const ElfW(Sym) *sym = NULL;
    Dl_info info;

    site->fn = dlsym(libc, site->name);
    if (!site->fn || !dladdr1(site->fn, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
        return RMP_ERR_NOT_SUPPORTED;
    /* The whole patch must fit inside the function. */
    if (sym->st_size < RCACHE_PATCH_LEN || info.dli_saddr != (void *)site->fn)
        return RMP_ERR_NOT_SUPPORTED;
    /* Someone (UCX's ucm, a profiler) already jumps elsewhere: do not fight over it. */
    if (site->fn[0] == 0xe9 || site->fn[0] == 0xeb || site->fn[0] == 0xff ||
        (site->fn[0] == 0x49 && site->fn[1] == 0xbb) || (site->fn[0] == 0x48 && site->fn[1] == 0xb8))
        return RMP_ERR_NOT_SUPPORTED;
    return RMP_SUCCESS;
}

static int hooks_patch(struct hooks_site *site, uintptr_t page_mask)
{
    uintptr_t target = (uintptr_t)site->repl;
    uintptr_t lo = (uintptr_t)site->fn & ~page_mask;
    uintptr_t hi = ((uintptr_t)site->fn + RCACHE_PATCH_LEN + page_mask) & ~page_mask;
    unsigned char code[RCACHE_PATCH_LEN] = {0x49, 0xbb}; /* movabs $target, %r11 */

    memcpy(code + 2, &target, 8);
    code[10] = 0x41; /* jmp *%r11 */
    code[11] = 0xff;
    code[12] = 0xe3;
    /* mprotect is not hooked; keeping PROT_EXEC lets other code on the page run on. */
    if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC))
        return RMP_ERR_NOT_SUPPORTED;
    memcpy(site->fn, code, sizeof(code));
    __builtin___clear_cache((char *)site->fn, (char *)site->fn + sizeof(code));
    mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC);
    return RMP_SUCCESS;
}

/* The structural checks above cannot tell whether free() really goes through the patched
   entry points (an allocator that unmaps by raw system call, a sanitizer's quarantine, a
   libc that inlines the call). So free a block glibc always serves with mmap (above the
   largest dynamic mmap threshold, 32 MiB; its pages are never touched) and require that a
   hook saw it go. */
static int hooks_self_test(void)
{
    size_t len = ((size_t)33 << 20) + 4096;
    char *p = malloc(len);

    if (!p) {
        hooks_why = "self-test: cannot allocate its 33 MiB probe";
        return RMP_ERR_NOT_SUPPORTED;
    }
    atomic_store(&hooks_probe_seen, 0);
    atomic_store(&hooks_probe, (uintptr_t)p + len / 2);
    free(p);
    atomic_store(&hooks_probe, 0);
    if (!atomic_load(&hooks_probe_seen)) {
        hooks_why = "self-test: freeing a 33 MiB block did not reach the munmap hook "
                    "(malloc replaced, e.g. by a sanitizer or a custom allocator)";
        return RMP_ERR_NOT_SUPPORTED;
    }
    return RMP_SUCCESS;
}

/* Threads of this process (/proc/self/task), 0 when it cannot be read. */
static int hooks_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

static int hooks_do_install(void)
{
#if defined(__x86_64__) && defined(__GLIBC__)
    /* The 13-byte patch is not one atomic store: another thread could run a half-written
     * function. So it is written only while the calling thread is alone (rmp_init runs
     * before PMIx starts its threads); otherwise no hooks, and the cache is not used. */
    if (hooks_threads() != 1) {
        hooks_why = "other threads were running when rmp was initialised (libc is patched "
                    "only while one thread exists)";
        return RMP_ERR_NOT_SUPPORTED;
    }
    struct hooks_site sites[] = {
        {"munmap", (void *)hooks_munmap, NULL},   {"mremap", (void *)hooks_mremap, NULL},
        {"madvise", (void *)hooks_madvise, NULL}, {"mmap", (void *)hooks_mmap, NULL},
        {"brk", (void *)hooks_brk, NULL},
    };
    size_t i, n = sizeof(sites) / sizeof(sites[0]);
    long page = sysconf(_SC_PAGESIZE);
    void *libc;
    Dl_info self;
    int status;

    libc = dlopen(LIBC_SO, RTLD_NOW | RTLD_NOLOAD);
    if (!libc) {
        hooks_why = "libc.so.6 not found by dlopen";
        return RMP_ERR_NOT_SUPPORTED;
    }
    for (i = 0; i < n; i++) {
        status = hooks_resolve(libc, &sites[i]);
        if (status != RMP_SUCCESS) {
            hooks_why = "unexpected libc layout, or another library patched it already";
            goto out_close;
        }
    }
    /* libc will jump into this object until the process ends: never unload it. */
    if (dladdr((void *)hooks_do_install, &self) && self.dli_fname)
        dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    for (i = 0; i < n; i++) {
        status = hooks_patch(&sites[i], (uintptr_t)(page > 0 ? page : 4096) - 1);
        if (status != RMP_SUCCESS) {
            hooks_why = "libc's text cannot be made writable (mprotect)";
            goto out_close; /* sites already patched keep working: they are complete */
        }
    }
    status = hooks_self_test();
out_close:
    dlclose(libc);
    return status;
#else
    hooks_why = "only x86-64 with glibc is supported";
    return RMP_ERR_NOT_SUPPORTED;
#endif
}

int rcache_hooks_install(void)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static int result = 1; /* 1: not tried yet */

    pthread_mutex_lock(&lock);
    if (result == 1) {
        result = hooks_do_install();
        if (result == RMP_SUCCESS)
            atomic_store(&hooks_installed, 1);
    }
    pthread_mutex_unlock(&lock);
    return result;
}

int rcache_hooks_active(void) { return atomic_load(&hooks_installed); }

const char *rcache_hooks_why(void)
{
    return atomic_load(&hooks_installed) ? "installed" : hooks_why;
}
