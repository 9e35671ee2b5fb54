#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""MPICH's test suite (test/mpi of MPICH at 6a79bf6) as a judge of an MPI library.

Extracts the suite's tarball into a work directory, compiles util/mtest*.c (and dtpools)
once, reads every folder's testlist (testlist.in or testlist.def where that is what
exists, with configure's @substitutions@ made as for an MPI that is not MPICH), compiles
each listed test with the MPI compiler wrapper and runs it at its listed process count.
A test passes when its output has a " No Errors" line and the launcher exits 0 (or as
its testlist's resultTest= says: TestStatus and TestErrFatal expect a non-zero exit).
Prints one line per test and last exactly "N passed, M failed". Tests listed in
exclude.txt beside this script are not run (each with its reason).

  run.py [--impl rmp|openmpi|mpich] [--build DIR] [FILTER...]

FILTER is a folder (coll, threads/pt2pt), a test (coll/allred) or a test at a count
(coll/allred:4). See README.md beside this script.
"""
import argparse
import concurrent.futures
import fnmatch
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TARBALL = "mpich-testsuite-6a79bf6.tar.gz"
# Folders never entered (the top-level testlist.in names the rest): MPI-IO (not in rmp
# yet), the language bindings, GPU, MPICH's implementation-specific tests, checkpointing.
SKIP_DIRS = {"f77", "f90", "f08", "cxx", "cuda", "hip", "ze", "impls", "ckpoint"}
# configure's substitutions in testlist.in, as MPICH's configure makes them with
# --enable-strictmpi for an MPI that is not MPICH ("#" comments the line out), except
# that perf and ft are entered (they are MPI-standard behaviour we want judged).
SUBST = {
    "partdir": "part", "rmadir": "rma", "spawndir": "spawn", "perfdir": "perf",
    "errordir": "errors", "threadsdir": "threads", "ftdir": "ft", "faultsdir": "faults",
    "comm_overlap": "", "namepub_tests": "", "coll_error": "#", "mpix": "#",
    "threadcommdir": "#", "iodir": "io",
}
SUBST.update({d: "#" for d in ("f77dir", "f90dir", "f08dir", "cxxdir", "cudadir", "hipdir",
                               "impldir", "pmidir", "ckpointdir")})
# Keys a testlist line may carry (runtests' list), besides arg=, env=, mpiexecarg=.
KNOWN_KEYS = {"resultTest", "init", "timeLimit", "xfail", "lock", "mem", "strict",
              "mpiversion", "hasgpu"}
RUNNING = set()  # process groups of the tests running now (--parallel: several)
# The io folder's tests share one working directory and most use the same file name
# ("testfile"): two of them at once write each other's files (wrong data, wrong counts).
# They run one at a time even under --parallel.
IO_LOCK = threading.Lock()
CATEGORIES = {"mpich-only", "resources", "suite-bug"}


class Test:
    def __init__(self, folder, name, np, opts, lineno):
        self.folder, self.name, self.np, self.lineno = folder, name, np, lineno
        self.args, self.env, self.mpiexecargs = [], [], []
        self.keys = {}
        for o in opts:
            k, _, v = o.partition("=")
            if k == "arg":
                self.args.append(v)
            elif k == "env":
                self.env.append(v)
            elif k == "mpiexecarg":
                self.mpiexecargs.append(v)
            elif k in KNOWN_KEYS:
                self.keys[k] = v
            else:
                print(f"warning: unknown key {k} in {folder}/testlist line {lineno}")
        self.ident = " ".join([f"{folder}/{name}", str(np)] + ["arg=" + a for a in self.args]
                              + ["env=" + e for e in self.env])
        self.run_np = np
        self.exclusion = None

    def logname(self):
        # One file per testlist line, the same in every run (a later run of one test replaces it).
        extra = re.sub(r"[^A-Za-z0-9=.,_-]+", "_", " ".join(self.ident.split()[2:]))[:80]
        return f"{self.folder.replace('/', '_')}__{self.name}__{self.np}" + (f"__{extra}" if extra else "") + ".log"

    def time_limit(self, default):
        t = self.keys.get("timeLimit", "")
        return int(t) if t.isdigit() else default


def find_tarball(opt):
    cands = [opt] if opt else []
    if os.environ.get("RMP_MPICH_TARBALL"):
        cands.append(os.environ["RMP_MPICH_TARBALL"])
    root = os.path.dirname(os.path.dirname(HERE))
    # CI's layout: shared/ beside the checkout (as tests/osu finds OSU).
    cands += [os.path.join(root, "..", "shared", "third_party", TARBALL),
              os.path.join("/work/shared/third_party", TARBALL)]
    for c in cands:
        if os.path.exists(c):
            return os.path.abspath(c)
    return None


def read_testlist(root, folder, tests, lineno_base=0):
    d = os.path.join(root, folder)
    for fname in ("testlist", "testlist.in", "testlist.def"):
        path = os.path.join(d, fname)
        if os.path.exists(path):
            break
    else:
        print(f"warning: no testlist in {folder}")
        return
    for lineno, line in enumerate(open(path), 1):
        def sub(m):
            if m.group(1) not in SUBST:
                print(f"warning: unknown @{m.group(1)}@ in {folder}/{fname}:{lineno}, line left out")
                return "#"
            return SUBST[m.group(1)]
        line = re.sub(r"@([A-Za-z0-9_]+)@", sub, line)
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        name = words[0]
        sub_folder = os.path.normpath(os.path.join(folder, name)) if folder else name
        if os.path.isdir(os.path.join(root, sub_folder)):
            if os.path.basename(sub_folder) not in SKIP_DIRS:
                read_testlist(root, sub_folder, tests)
            continue
        np = int(words[1]) if len(words) > 1 and words[1].isdigit() else 2
        opts = words[2:] if len(words) > 1 and words[1].isdigit() else words[1:]
        tfolder = folder
        if "/" in name:
            tfolder = os.path.normpath(os.path.join(folder, os.path.dirname(name)))
            name = os.path.basename(name)
        tests.append(Test(tfolder, name, np, opts, lineno))


def read_makefile_am(path):
    """Variables of a Makefile.am: continuation lines joined, += appended, every
    if/else branch taken."""
    vars_ = {}
    if not os.path.exists(path):
        return vars_
    text = open(path).read().replace("\\\n", " ")
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z0-9_]+)\s*(\+?=)\s*(.*)$", line)
        if m:
            k, op, v = m.groups()
            v = v.split("#", 1)[0]
            vars_[k] = (vars_.get(k, "") + " " + v) if op == "+=" else v
    return vars_


def canon(name):
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def expand(words):
    # Flags only: automake variables ($(AM_CPPFLAGS), $(LDADD), @socklib@) are what
    # every test gets anyway.
    return [w for w in words.split() if not w.startswith("$(") and not w.startswith("@")]


class Impl:
    def __init__(self, args):
        self.name = args.impl
        build = os.path.abspath(args.build) if args.build else None
        if self.name == "rmp":
            if not build:
                build = os.path.join(os.path.dirname(os.path.dirname(HERE)), "build")
            self.cc = os.path.join(build, "mpi", "mpicc_abi")
            self.launch = [os.path.join(build, "launcher", "rrun"), "--oversubscribe"]
        elif self.name == "openmpi":
            self.cc = "mpicc.openmpi"
            self.launch = ["mpiexec.openmpi", "--allow-run-as-root", "--oversubscribe"]
        else:
            self.cc = "mpicc.mpich"
            self.launch = ["mpiexec.mpich"]

    def command(self, np, env, exe, args, limit):
        cmd = list(self.launch)
        if self.name == "rmp":
            cmd += ["--timeout", str(limit)]
            for e in env:
                cmd += ["-x", e]
            # MPICH's fault-tolerance switches (ft/, errors/faults/): rmp's is rrun's flag.
            if "MPIR_CVAR_ENABLE_FT=1" in env or "MPIEXEC_ALLOW_FAULT=YES" in env:
                cmd += ["--enable-recovery"]
        elif self.name == "openmpi":
            cmd += ["--timeout", str(limit)]
            for e in env:
                cmd += ["-x", e]
        else:
            for e in env:
                k, _, v = e.partition("=")
                cmd += ["-genv", k, v]
        return cmd + ["-n", str(np), exe] + args


def sh(cmd, cwd=None):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace")
    return p.returncode, p.stdout


def prepare(work, tarball, impl, jobs):
    """Extract, configure and build the support libraries once per work directory."""
    root = os.path.join(work, "mpich-testsuite", "test", "mpi")
    stamp = os.path.join(work, "extracted.stamp")
    if not os.path.exists(stamp) or os.path.getmtime(stamp) < os.path.getmtime(tarball):
        if os.path.exists(os.path.join(work, "mpich-testsuite")):
            shutil.rmtree(os.path.join(work, "mpich-testsuite"))
        os.makedirs(work, exist_ok=True)
        with tarfile.open(tarball) as t:
            t.extractall(work)
        open(stamp, "w").close()
    inc = os.path.join(root, "include")
    shutil.copy(os.path.join(HERE, "mpitestconf.h"), os.path.join(inc, "mpitestconf.h"))
    # dtpools' configure header: it asks only for the standard C headers, as mtest does.
    shutil.copy(os.path.join(HERE, "mpitestconf.h"), os.path.join(root, "dtpools", "dtpoolsconf.h"))
    mpix = os.path.join(inc, "mtest_mpix.h")  # generated by MPICH's own build: empty elsewhere
    if not os.path.exists(mpix):
        open(mpix, "w").close()
    lib = os.path.join(work, "lib")
    os.makedirs(lib, exist_ok=True)
    cflags = cflags_common(root)
    # run_mpitests.c holds main() for the tests that define run() instead: in the archive,
    # the linker takes it only for them.
    srcs = [("util/mtest.c", []), ("util/mtest_common.c", []), ("util/dtypes.c", []),
            ("util/run_mpitests.c", []),
            ("util/mtest_single.c", []), ("util/mtest_thread.c", ["-DMTEST_USE_THREAD"])]
    srcs += [(f"dtpools/src/{f}", []) for f in sorted(os.listdir(os.path.join(root, "dtpools/src")))
             if f.endswith(".c")]

    def cc(item):
        src, extra = item
        obj = os.path.join(lib, os.path.basename(src)[:-2] + ".o")
        if os.path.exists(obj) and os.path.getmtime(obj) >= os.path.getmtime(os.path.join(root, src)) \
                and os.path.getmtime(obj) >= os.path.getmtime(os.path.join(HERE, "mpitestconf.h")):
            return obj, 0, ""
        rc, out = sh([impl.cc] + cflags + extra + ["-c", os.path.join(root, src), "-o", obj])
        return obj, rc, out
    objs = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for obj, rc, out in ex.map(cc, srcs):
            if rc:
                sys.exit(f"error: building {obj} failed:\n{out}")
            objs.append(obj)
    archive = os.path.join(lib, "libmtest.a")
    members = [o for o in objs if not o.endswith(("mtest_single.o", "mtest_thread.o"))]
    if not os.path.exists(archive) or any(os.path.getmtime(o) > os.path.getmtime(archive) for o in members):
        if os.path.exists(archive):
            os.remove(archive)
        rc, out = sh(["ar", "rcs", archive] + members)
        if rc:
            sys.exit(f"error: ar failed:\n{out}")
    return root, lib


def cflags_common(root):
    return ["-O1", "-w", "-I" + os.path.join(root, "include"),
            "-I" + os.path.join(root, "dtpools", "include")]


def build_plan(root, tests):
    """Per executable: sources and flags from the folder's Makefile.am."""
    plan = {}
    am_cache = {}
    for t in tests:
        key = (t.folder, t.name)
        if key in plan:
            continue
        d = os.path.join(root, t.folder)
        if d not in am_cache:
            am_cache[d] = read_makefile_am(os.path.join(d, "Makefile.am"))
            am_cache[d]["__threads__"] = "Makefile_threads.mtest" in open(os.path.join(d, "Makefile.am")).read() \
                if os.path.exists(os.path.join(d, "Makefile.am")) else "threads" in t.folder.split("/")
        am = am_cache[d]
        c = canon(t.name)
        srcs = am.get(c + "_SOURCES", t.name + ".c").split()
        srcs = [os.path.join(d, s) for s in srcs if s.endswith(".c")]
        flags = expand(am.get(c + "_CPPFLAGS", "")) + expand(am.get(c + "_CFLAGS", "")) \
            + expand(am.get("AM_CFLAGS", ""))
        libs = expand(am.get(c + "_LDADD", ""))
        plan[key] = (srcs, flags, libs, bool(am["__threads__"]))
    return plan


def compile_test(impl, root, lib, bindir, key, spec):
    folder, name = key
    srcs, flags, libs, threads = spec
    exe = os.path.join(bindir, folder, name)
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    deps = srcs + [os.path.join(lib, "libmtest.a")]
    if os.path.exists(exe) and all(os.path.exists(s) and os.path.getmtime(s) <= os.path.getmtime(exe) for s in deps):
        return key, exe, 0, ""
    missing = [s for s in srcs if not os.path.exists(s)]
    if missing:
        return key, None, 1, "missing source " + " ".join(missing)
    support = os.path.join(lib, "mtest_thread.o" if threads else "mtest_single.o")
    # The ft/ tests use the MPIX_ ULFM names that MPICH declares in its mpi.h; the standard
    # ABI's mpi.h cannot, rmp's mpi-ext.h does (an Open MPI ULFM program includes it).
    if folder == "ft" and impl.name == "rmp":
        flags = ["-include", "mpi-ext.h"] + flags
    cmd = [impl.cc] + cflags_common(root) + (["-DMTEST_USE_THREAD"] if threads else []) + flags \
        + ["-I" + os.path.join(root, folder), "-o", exe] + srcs + [support, os.path.join(lib, "libmtest.a")] \
        + libs + ["-lm", "-lpthread"]
    rc, out = sh(cmd, cwd=os.path.join(root, folder))
    return key, (exe if rc == 0 else None), rc, out


def judge(t, rc, out):
    """runtests' rules (check_result and the resultTest functions)."""
    lines = out.splitlines()
    no_errors = any(re.match(r"^\s*No [Ee]rrors\s*$", ln) for ln in lines)
    skipped = any(re.match(r"^\s*Test Skipped\s*$", ln) for ln in lines)
    rt = t.keys.get("resultTest", "")
    if rt in ("TestStatus", "TestErrFatal"):
        return rc != 0, "expected a non-zero exit status" if rc == 0 else ""
    if rt == "TestStatusNoErrors":
        ok = no_errors and rc != 0
        return ok, "" if ok else "expected No Errors and a non-zero exit status"
    if skipped and not no_errors:
        return False, "the test printed Test Skipped"
    if not no_errors:
        return False, f"no ' No Errors' line (exit status {rc})"
    if rc != 0:
        return False, f"exit status {rc}"
    return True, ""


def run_test(impl, t, exe, limit, logdir):
    env = dict(os.environ)
    env["MPIEXEC_TIMEOUT"] = str(limit)  # hydra's (MPICH) launcher time limit
    for e in t.env:
        a, _, b = e.partition("=")
        env[a] = b
    cmd = impl.command(t.run_np, t.env, exe, t.args, limit)
    if t.folder == "io":
        with IO_LOCK:
            return run_test_now(t, exe, cmd, env, limit, logdir)
    return run_test_now(t, exe, cmd, env, limit, logdir)


def run_test_now(t, exe, cmd, env, limit, logdir):
    t0 = time.monotonic()
    # The folder as working directory (some tests read files beside their source).
    p = subprocess.Popen(cmd, cwd=os.path.dirname(exe), env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    RUNNING.add(p.pid)
    timed_out = False
    try:
        raw, _ = p.communicate(timeout=limit + 15)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(p.pid, signal.SIGKILL)
        raw, _ = p.communicate()
    finally:  # leftover ranks of a launcher that gave up, or meson's SIGTERM
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        RUNNING.discard(p.pid)
    dt = time.monotonic() - t0
    out = raw.decode(errors="replace")
    rc = p.returncode
    if timed_out:
        ok, why = False, f"no result within {limit} s"
    else:
        # The launcher ends a job at the limit: a failure, except where the testlist wants
        # a non-zero status (init/timeout checks exactly that).
        ok, why = judge(t, rc, out)
        if not ok and dt >= limit - 1:
            timed_out, why = True, f"no result within {limit} s"
    log = os.path.join(logdir, t.logname())
    with open(log, "w") as f:
        f.write(" ".join(shlex.quote(c) for c in cmd) + "\n" + out)
    return ("PASS" if ok else "TIMEOUT" if timed_out else "FAIL"), dt, why, out, log


def read_rows(path, valid, usage):
    """The rows of one of the lists beside this script ('A | B | C', # comments): each
    row's fields, stripped; a row that `valid` refuses stops the run with `usage`."""
    rows = []
    if not os.path.exists(path):
        return rows
    for lineno, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if not valid(parts):
            sys.exit(f"error: {path}:{lineno}: want '{usage}'")
        rows.append(parts + [[0]])  # the last field counts the tests a row matched
    return rows


def read_excludes(path):
    return read_rows(path, lambda p: len(p) == 3 and p[1] in CATEGORIES,
                     f"PATTERN | {'/'.join(sorted(CATEGORIES))} | reason")


def read_known(path):
    """known-failures.txt: 'PATTERN | issue N | reason' a line: tests rmp fails today for a
    reason written down (a feature not built yet, a bug not fixed yet). They still run and
    are still counted as failed; only the exit status ignores them, so that CI fails on a
    new failure (a regression) while the list shrinks as issues close."""
    return read_rows(path, lambda p: len(p) == 3 and re.match(r"issue \d+$", p[1]) and p[2],
                     "PATTERN | issue N | reason")


def read_alone(path):
    """alone.txt: 'PATTERN | reason' a line: tests that run one at a time after all the
    others, with at least 60 s (MPICH's own default is 180 s): CPU-bound by design (their
    own loops and copies need most of both cores for longer than CI's 20 s) or timing
    tests that a neighbour's load breaks. They are run and counted like every other test."""
    return read_rows(path, lambda p: len(p) == 2 and p[1], "PATTERN | reason")


def matches(t, pat):
    return fnmatch.fnmatch(t.ident, pat) or fnmatch.fnmatch(f"{t.folder}/{t.name}", pat)


def known_reason(t, known):
    for pat, issue, why, hits in known:
        if matches(t, pat):
            hits[0] += 1
            return f"{issue}: {why}"
    return None


def selected(t, filters):
    if not filters:
        return True
    for f in filters:
        name, _, np = f.partition(":")
        name = name.rstrip("/")
        full = f"{t.folder}/{t.name}"
        if (full == name or t.folder == name or t.folder.startswith(name + "/")
                or fnmatch.fnmatch(t.ident, f) or fnmatch.fnmatch(full, name)) and (not np or int(np) == t.np):
            return True
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--impl", choices=["rmp", "openmpi", "mpich"], default="rmp")
    ap.add_argument("--build", help="rmp's build directory (default: build/ of this checkout)")
    ap.add_argument("--work", help="where the suite is extracted and built "
                    "(default: BUILD/tests/mpich/work-IMPL)")
    ap.add_argument("--tarball", help=f"{TARBALL} (default: ../shared/third_party beside the checkout)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel compiles (default 2)")
    ap.add_argument("--np-cap", type=int, default=8, help="run tests listed with more ranks at this many")
    ap.add_argument("--timeout", type=int, help="seconds per test without a testlist timeLimit "
                    "(default 60; 20 under CI=true)")
    ap.add_argument("--max-timeout", type=int, help="cap on a testlist timeLimit (default 300; 60 under "
                    "CI=true); tests whose timeLimit is above 300 s run only with RMP_MPICH_FULL=1")
    ap.add_argument("--parallel", type=int, help="tests run at once (default 1; 2 under CI=true)")
    ap.add_argument("--list", action="store_true", help="print the tests and exclusions, run nothing")
    ap.add_argument("--quiet-failures", action="store_true", help="no output excerpt under a failing test")
    ap.add_argument("filters", nargs="*")
    args = ap.parse_args()
    ci = os.environ.get("CI") == "true"
    # meson's timeout sends SIGTERM: kill the running tests' ranks and stop at once (the
    # pool of --parallel would otherwise go on with the queued tests).
    def stop(*_):
        for pg in list(RUNNING):
            try:
                os.killpg(pg, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        os._exit(130)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    full = os.environ.get("RMP_MPICH_FULL") == "1"
    # CI's budget (README.md, "CI"): hangs cost their whole limit, so shorter limits there.
    if args.timeout is None:
        args.timeout = 20 if ci and not full else 60
    if args.max_timeout is None:
        args.max_timeout = 60 if ci and not full else 300
    if args.parallel is None:
        args.parallel = 2 if ci and not full else 1

    tarball = find_tarball(args.tarball)
    if not tarball:
        print(f"SKIP: {TARBALL} not found (--tarball, RMP_MPICH_TARBALL, ../shared/third_party)")
        print("0 passed, 1 failed" if ci else "0 passed, 0 failed")
        sys.exit(1 if ci else 77)
    impl = Impl(args)
    if args.impl == "rmp":
        default_work = os.path.join(os.path.dirname(os.path.dirname(impl.cc)), "tests", "mpich", "work-rmp")
    else:
        default_work = os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "tests", "mpich",
                                    "work-" + args.impl)
    work = os.path.abspath(args.work or default_work)
    t0 = time.monotonic()
    root, lib = prepare(work, tarball, impl, args.jobs)

    tests = []
    read_testlist(root, "", tests)
    excludes = read_excludes(os.path.join(HERE, "exclude.txt"))
    for t in tests:
        for pat, cat, why, hits in excludes:
            if matches(t, pat):
                t.exclusion = f"{cat}: {why}"
                hits[0] += 1
                break
        if t.exclusion is None and not full and t.time_limit(0) > 300:
            t.exclusion = f"long: testlist timeLimit={t.time_limit(0)} s, run with RMP_MPICH_FULL=1"
    for pat, cat, why, hits in excludes:
        if hits[0] == 0:
            print(f"warning: exclude.txt pattern matches no test: {pat}")
    alone_list = read_alone(os.path.join(HERE, "alone.txt"))
    for t in tests:
        t.alone = None
        for pat, why, hits in alone_list:
            if matches(t, pat):
                t.alone = why
                hits[0] += 1
                break
    for pat, why, hits in alone_list:
        if hits[0] == 0:
            print(f"warning: alone.txt pattern matches no test: {pat}")
    tests = [t for t in tests if selected(t, args.filters)]
    for t in tests:
        if t.np > args.np_cap:
            t.run_np = args.np_cap
    print(f"MPICH test suite on {impl.name}: {tarball}; work dir {work}")
    print(f"process counts above {args.np_cap} run at {args.np_cap} (2 cores); "
          f"{args.timeout} s per test unless its testlist says timeLimit (at most {args.max_timeout} s); "
          f"{args.parallel} test(s) at a time" + (" (CI=true)" if ci else ""))
    excluded = [t for t in tests if t.exclusion]
    torun = [t for t in tests if not t.exclusion]
    if args.list:
        for t in tests:
            print(("EXCL " + t.ident + "  -- " + t.exclusion) if t.exclusion else ("TEST " + t.ident))
        print(f"{len(torun)} tests, {len(excluded)} excluded")
        return 0

    bindir = os.path.join(work, "bin")
    logdir = os.path.join(work, "logs")
    os.makedirs(logdir, exist_ok=True)
    plan = build_plan(root, torun)
    exes, cerr = {}, {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        for key, exe, rc, out in ex.map(lambda kv: compile_test(impl, root, lib, bindir, *kv), plan.items()):
            if exe:
                exes[key] = exe
            else:
                cerr[key] = out
    tc = time.monotonic() - t0
    print(f"compiled {len(exes)} programs, {len(cerr)} did not compile ({tc:.0f} s)")

    npass = nfail = 0
    byfolder = {}
    known = read_known(os.path.join(HERE, "known-failures.txt"))
    kfail, kpass, unexpected = [], [], []

    def one(t):
        key = (t.folder, t.name)
        if key in cerr:
            log = os.path.join(logdir, f"{t.folder.replace('/', '_')}__{t.name}__compile.log")
            open(log, "w").write(cerr[key])
            return "FAIL", 0.0, "did not compile", cerr[key], log
        limit = t.time_limit(args.timeout) if full else min(t.time_limit(args.timeout), args.max_timeout)
        if t.alone:
            limit = max(60, limit)
        return run_test(impl, t, exes[key], limit, logdir)
    # --parallel > 1 shares the cores between jobs: for quick looks, not for the record.
    # The tests of alone.txt come last, one at a time (a pool of one after the others').
    shared = [t for t in torun if not t.alone]
    single = [t for t in torun if t.alone]
    pool = concurrent.futures.ThreadPoolExecutor(args.parallel)
    futures = [pool.submit(one, t) for t in shared]
    pool_alone = concurrent.futures.ThreadPoolExecutor(1)
    # Submitted behind the shared pool's work: they start once it has drained.
    def after_shared(t):
        pool.shutdown(wait=True)
        return one(t)
    futures += [pool_alone.submit(after_shared, t) for t in single]
    for t, fut in zip(shared + single, futures):
        cap = f" (run at {t.run_np})" if t.run_np != t.np else ""
        cap += " (alone: alone.txt)" if t.alone else ""
        while True:  # a bounded wait, so that SIGTERM's handler gets to run
            try:
                status, dt, why, out, log = fut.result(timeout=1)
                break
            except concurrent.futures.TimeoutError:
                pass
        ok = status == "PASS"
        npass += ok
        nfail += not ok
        f = byfolder.setdefault(t.folder, [0, 0])
        f[0 if ok else 1] += 1
        kr = known_reason(t, known) if args.impl == "rmp" else None
        if kr:
            (kpass if ok else kfail).append((t.ident, kr))
        elif not ok and args.impl == "rmp":
            unexpected.append(t)
        print(f"{status:7s} {dt:6.1f}s  {t.ident}{cap}" + (f"  -- {why}" if why else "")
              + (f"  [known: {kr}]" if kr and not ok else ""), flush=True)
        if not ok and not args.quiet_failures:
            excerpt = [ln for ln in out.splitlines() if ln.strip()][:6]
            for ln in excerpt:
                print("          | " + ln[:200])
    print("by folder (passed/failed):")
    for fo in sorted(byfolder):
        print(f"  {fo:20s} {byfolder[fo][0]:4d} {byfolder[fo][1]:4d}")
    for t in excluded:
        print(f"excluded: {t.ident}  -- {t.exclusion}")
    print(f"{len(excluded)} excluded (tests/mpich/exclude.txt and the long-test rule), "
          f"{time.monotonic() - t0:.0f} s in all; logs in {logdir}")
    # A failure outside known-failures.txt is run once more, alone, with at least 60 s: a
    # test that then passes is reported FLAKY and stays counted as failed in the totals
    # below, but does not fail the run (it is a bug to look at, not a regression proof);
    # one that fails again does.
    flaky = []
    for t in [t for t in unexpected]:
        key = (t.folder, t.name)
        if key in cerr:
            continue
        limit = max(60, t.time_limit(args.timeout) if full else min(t.time_limit(args.timeout), args.max_timeout))
        status, dt, why, out, log = run_test(impl, t, exes[key], limit, logdir)
        print(f"retry   {status:7s} {dt:6.1f}s  {t.ident}" + (f"  -- {why}" if why else ""), flush=True)
        if status == "PASS":
            flaky.append(t.ident)
    for ident in flaky:
        print(f"FLAKY (failed, then passed alone on a retry): {ident}")
    for ident, kr in kpass:
        print(f"known failure passed (remove it from known-failures.txt if it keeps passing): "
              f"{ident}  -- {kr}")
    new_fail = nfail - len(kfail) - len(flaky)
    print(f"{len(kfail)} of the {nfail} failures are in tests/mpich/known-failures.txt "
          f"(the work left, each with its issue), {len(flaky)} flaky; {new_fail} are neither")
    print(f"{npass} passed, {nfail} failed")
    return 0 if new_fail == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
