# SPDX-License-Identifier: BSD-3-Clause
"""Shared code of benchmarks/compare-p2p, compare-rma, compare-coll and startup.

Builds the real OSU Micro-Benchmarks 7.4 (/work/shared/third_party, or $RMP_OSU_TARBALL)
with each MPI's compiler wrapper into BUILD/benchmarks/osu/FLAVOR, and the floor programs
into BUILD/benchmarks/floor; runs rmp and MPI jobs interleaved round by round (the VM
moves its two vCPUs between near and far placements minute to minute, and other jobs
share the machine, so only side-by-side runs give meaningful ratios), parses the OSU
output, reports the median of the rounds per size with their min and max, prints tables
with ratios of medians and writes the raw results as JSON or CSV.

Hook for OSU built against rmp's MPI ABI layer: the `rmp-osu` column appears when
$RMP_OSU_MPICC (a compiler wrapper, e.g. BUILD/.../mpicc_abi) is set; its binaries are
launched with rrun.
"""

import argparse
import csv
import datetime
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import statistics
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
NCPU = os.cpu_count() or 1

MPIS = {
    # name: (compiler wrapper, launcher)
    "ompi": ("mpicc.openmpi", "mpirun.openmpi"),
    "ompi-ucx": ("mpicc.openmpi", "mpirun.openmpi"),
    "mpich": ("mpicc.mpich", "mpirun.mpich"),
    "rmp-osu": (os.environ.get("RMP_OSU_MPICC", ""), "rrun"),
}
FLAVOR_DIR = {"ompi": "openmpi", "ompi-ucx": "openmpi", "mpich": "mpich", "rmp-osu": "rmp"}
IMPLS = ("rmp", "ompi", "ompi-ucx", "mpich", "rmp-osu")
DEFAULT_IMPLS = ("rmp", "ompi", "ompi-ucx", "mpich") + (("rmp-osu",) if os.environ.get("RMP_OSU_MPICC") else ())
OSU_TARBALL = os.environ.get("RMP_OSU_TARBALL",
                             "/work/shared/third_party/osu-micro-benchmarks-7.4.tar.gz")
# OSU program -> its directory under c/mpi
OSU_DIRS = {"osu_latency": "pt2pt/standard", "osu_bw": "pt2pt/standard",
            "osu_bibw": "pt2pt/standard", "osu_put_latency": "one-sided",
            "osu_get_latency": "one-sided", "osu_put_bw": "one-sided", "osu_get_bw": "one-sided",
            "osu_fop_latency": "one-sided", "osu_cas_latency": "one-sided",
            "osu_init": "startup"}
for _c in ("allreduce", "allgather", "alltoall", "barrier", "bcast", "reduce_scatter",
           "reduce", "gather", "scatter"):
    OSU_DIRS["osu_" + _c] = "collective/blocking"
# Open MPI's pml ucx accepts only RDMA transports by default; on a host without an HCA it
# must be told to use UCX's shared-memory and cma transports too.
OMPI_UCX = ["--mca", "pml", "ucx", "--mca", "pml_ucx_tls", "any", "--mca", "pml_ucx_devices", "any"]
CFLAGS = ["-O2", "-Wall", "-Wextra"]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- command line

def base_parser(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--build", default=os.path.join(SRC, "build"),
                   help="meson build directory (default: %(default)s)")
    p.add_argument("--rounds", type=int, default=None,
                   help="interleaved rounds; the median per size is reported, with min and max "
                        "(default 5, 1 with --quick)")
    p.add_argument("--quick", action="store_true",
                   help="fewer iterations and one round: a fast sanity run")
    p.add_argument("--impl", default=",".join(DEFAULT_IMPLS),
                   help="comma-separated subset of %s (default %%(default)s)" % ",".join(IMPLS))
    p.add_argument("--no-cold", dest="cold", action="store_false",
                   help="skip the cold single-size runs (-m S:S, one job per size)")
    p.add_argument("--out", default=None,
                   help="raw results file, .json or .csv (default BUILD/benchmarks/results/NAME-DATE.json)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per run (default 600)")
    p.add_argument("--verbose", "-v", action="store_true", help="print every command")
    p.add_argument("--note", default=os.environ.get("RMP_BENCH_NOTE", ""),
                   help="free text recorded in the results file (e.g. 'shared 2-core VM, "
                        "builds running'; default $RMP_BENCH_NOTE)")
    return p


def finish_args(args):
    args.build = os.path.abspath(args.build)
    if args.rounds is None:
        args.rounds = 1 if args.quick else 5
    args.impls = [i for i in args.impl.split(",") if i]
    for i in args.impls:
        if i not in IMPLS:
            sys.exit("unknown implementation %r (choose from %s)" % (i, ",".join(IMPLS)))
    return args


# ---------------------------------------------------------------- building

def _stale(target, sources):
    if not os.path.exists(target):
        return True
    t = os.path.getmtime(target)
    return any(os.path.getmtime(s) > t for s in sources)


def _compile(compiler, target, sources, extra=()):
    if not _stale(target, sources):
        return True
    os.makedirs(os.path.dirname(target), exist_ok=True)
    cmd = [compiler] + CFLAGS + ["-o", target] + list(sources) + list(extra)
    log("building: " + " ".join(cmd))
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        log(r.stdout + r.stderr)
        log("warning: build of %s failed" % target)
        return False
    if r.stderr.strip():
        log(r.stderr)
    return True


def mpi_program(build, impl, name):
    """Path of benchmarks/mpi/NAME.c built with IMPL's wrapper, or None if it cannot be built."""
    compiler = MPIS[impl][0]
    if not shutil.which(compiler):
        log("warning: %s not found, skipping %s" % (compiler, impl))
        return None
    src = [os.path.join(HERE, "mpi", name + ".c"), os.path.join(HERE, "bench_common.c")]
    deps = src + [os.path.join(HERE, "mpi", "bench_mpi.h"), os.path.join(HERE, "bench_common.h")]
    target = os.path.join(build, "benchmarks", "mpi", FLAVOR_DIR[impl], name)
    if _stale(target, deps) and os.path.exists(target):
        os.unlink(target)
    return target if _compile(compiler, target, src) else None


def osu_program(build, impl, name):
    """Path of the real OSU 7.4 benchmark NAME built with IMPL's compiler wrapper (configure
    and make once per flavor, in BUILD/benchmarks/osu/FLAVOR), or None."""
    compiler = MPIS[impl][0]
    if not compiler or not shutil.which(compiler):
        log("warning: %s not found, skipping %s" % (compiler or "RMP_OSU_MPICC", impl))
        return None
    top = os.path.join(build, "benchmarks", "osu", FLAVOR_DIR[impl])
    src = os.path.join(top, "osu-micro-benchmarks-7.4")
    target = os.path.join(src, "c", "mpi", OSU_DIRS[name], name)
    if os.access(target, os.X_OK):
        return target
    if not os.path.isdir(src):
        if not os.path.exists(OSU_TARBALL):
            log("warning: %s missing: %s skipped" % (OSU_TARBALL, impl))
            return None
        os.makedirs(top, exist_ok=True)
        with tarfile.open(OSU_TARBALL) as t:
            t.extractall(top)
    # A stamp, not the Makefile: an interrupted configure leaves a Makefile behind.
    stamp = os.path.join(src, ".rmp-configured")
    steps = []
    if not os.path.exists(stamp):
        steps.append(["./configure", "CC=" + compiler, "CXX=" + compiler])
    steps.append(["make", "-j2", "-C", os.path.join("c", "mpi", OSU_DIRS[name])])
    for cmd in steps:
        log("building OSU for %s: %s" % (impl, " ".join(cmd)))
        r = subprocess.run(cmd, cwd=src, capture_output=True, text=True)
        if r.returncode != 0:
            log((r.stdout + r.stderr)[-3000:])
            log("warning: OSU build for %s failed" % impl)
            return None
        if cmd[0] == "./configure":
            open(stamp, "w").close()
    return target if os.access(target, os.X_OK) else None


def floor_program(build, name):
    src = [os.path.join(HERE, "floor", name + ".c")]
    target = os.path.join(build, "benchmarks", "floor", name)
    return target if _compile("cc", target, src, ["-pthread"]) else None


def rmp_available(build, program):
    rrun = os.path.join(build, "launcher", "rrun")
    prog = os.path.join(build, "benchmarks", program)
    ok = os.access(rrun, os.X_OK) and os.access(prog, os.X_OK)
    if not ok:
        log("note: %s or %s missing: rmp column skipped (build with: ninja -C %s)"
            % (rrun, prog, build))
    return ok


# ---------------------------------------------------------------- launching

def launcher(build, impl, np):
    """Command prefix that starts NP ranks. Ranks are bound one per core; above the core
    count every launcher oversubscribes (rmp and Open MPI need to be told)."""
    over = np > NCPU
    if impl in ("rmp", "rmp-osu"):
        cmd = [os.path.join(build, "launcher", "rrun"), "-n", str(np)]
        return cmd + (["--oversubscribe"] if over else [])
    if impl in ("ompi", "ompi-ucx"):
        cmd = [MPIS["ompi"][1], "--allow-run-as-root", "-n", str(np)]
        if impl == "ompi-ucx":
            cmd += OMPI_UCX
        if over:
            return cmd + ["--oversubscribe", "--bind-to", "core:overload-allowed"]
        return cmd + ["--bind-to", "core"]
    if impl == "mpich":
        return [MPIS["mpich"][1], "-n", str(np), "-bind-to", "core"]
    raise ValueError(impl)


# Size, then the values. Collectives (osu_* -f and rmp's programs) print the average, min
# and max over ranks, then the iterations: COLUMN_MAX picks the max (the slowest rank), as
# the brief asks of collective figures; other rows have one value (column 0).
ROW = re.compile(r"^\s*(\d+)((?:\s+(?:[-+0-9.eE]+|inf|nan))+)\s*$")
COLUMN_MAX = 2
SECTION = re.compile(r"^#\s*(\w+)\s*$")


def parse(text, column=0):
    """OSU-style output -> {section: {size: value of the column}}; rows before any one-word
    '# name' line belong to section ''; a row without that column keeps its first value."""
    out, sec = {}, ""
    for line in text.splitlines():
        m = SECTION.match(line)
        if m:
            sec = m.group(1)
            continue
        m = ROW.match(line)
        if m:
            vals = m.group(2).split()
            out.setdefault(sec, {})[int(m.group(1))] = float(vals[column if column < len(vals) else 0])
    return out


def _autogroup_nice(pid):
    """With the kernel's autogroup scheduling, nice orders processes only within their
    session, so a run in its own session competes as one equal group with every other
    session of the machine, however niced their processes are. $RMP_BENCH_AUTOGROUP_NICE
    (e.g. -10, needs CAP_SYS_NICE) sets the nice of the run's session group instead."""
    val = os.environ.get("RMP_BENCH_AUTOGROUP_NICE")
    if not val:
        return
    try:
        with open("/proc/%d/autogroup" % pid, "w") as f:
            f.write(val)
    except OSError as e:
        log("note: cannot set the autogroup nice of the run (%s)" % e)


def run(cmd, timeout, verbose=False, column=0, any_exit=False):
    """Runs cmd in its own process group; returns (parsed output or None, text).
    any_exit: rows count whatever the exit status (a program that prints its rows and
    then fails to finalize, such as OSU 7.4's osu_latency_mt)."""
    if verbose:
        log("+ " + " ".join(cmd))
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    _autogroup_nice(p.pid)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        log("timeout after %.0f s: %s" % (timeout, " ".join(cmd)))
        return None, (out or "") + (err or "")
    if p.returncode != 0 and not any_exit:
        log("failed (exit %d, %.1f s): %s\n%s" % (p.returncode, time.time() - t0,
                                                  " ".join(cmd), "\n".join((out + err).splitlines()[-15:])))
        return None, out + err
    res = parse(out, column)
    if not res:
        log("no data rows from: %s\n%s" % (" ".join(cmd), (out + err)[-2000:]))
        return None, out + err
    return res, out + err


# ---------------------------------------------------------------- experiments

def machine():
    """What the results file records about the machine: CPU model, cores, kernel."""
    info = {"cores": NCPU, "kernel": os.uname().release, "cpu_model": "unknown"}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            k, _, v = line.partition(":")
            if k.strip() == "Model name":
                info["cpu_model"] = v.strip()
            elif k.strip() in ("CPU(s)", "Thread(s) per core", "Hypervisor vendor"):
                info[k.strip().lower().replace("(s)", "s").replace(" ", "_")] = v.strip()
    except OSError:
        pass
    for key, cmd in (("openmpi", ["mpirun.openmpi", "--version"]), ("mpich", ["mpichversion"])):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout
            m = re.search(r"(\d+\.\d+(?:\.\d+)?)", out)
            info[key] = m.group(1) if m else "unknown"
        except (OSError, subprocess.SubprocessError):
            info[key] = "not installed"
    return info


class Job:
    """One command producing one or more metrics: sections maps output section -> metric."""

    def __init__(self, impl, cmd, sections, column=0):
        self.impl, self.cmd, self.sections, self.column = impl, cmd, sections, column


class Results:
    def __init__(self, name, args):
        self.name, self.args = name, args
        self.raw = {}        # metric -> impl -> [ {size: value} per successful round ]
        self.failures = {}   # metric -> impl -> count
        self.commands = {}   # metric -> impl -> command line
        self.started = datetime.datetime.now()

    def add(self, metric, impl, cmd, rows):
        self.commands.setdefault(metric, {})[impl] = " ".join(cmd)
        if rows is None:
            f = self.failures.setdefault(metric, {})
            f[impl] = f.get(impl, 0) + 1
            return
        self.raw.setdefault(metric, {}).setdefault(impl, []).append(rows)

    def values(self, metric, impl):
        """{size: [value per successful round]}"""
        vals = {}
        for rows in self.raw.get(metric, {}).get(impl, []):
            for size, v in rows.items():
                vals.setdefault(size, []).append(v)
        return vals

    def median(self, metric, impl, higher_better=None):
        """{size: median over the rounds} (what the tables compare)."""
        return {s: statistics.median(v) for s, v in self.values(metric, impl).items()}

    def spread(self, metric, impl):
        """{size: (min, max) over the rounds}"""
        return {s: (min(v), max(v)) for s, v in self.values(metric, impl).items()}

    def best(self, metric, impl, higher_better):
        """{size: best round} (kept in the JSON for comparison with older results)."""
        return {s: (max(v) if higher_better else min(v))
                for s, v in self.values(metric, impl).items()}

    def save(self, path, higher_better):
        if path is None:
            d = os.path.join(self.args.build, "benchmarks", "results")
            os.makedirs(d, exist_ok=True)
            path = os.path.join(d, "%s-%s.json" % (self.name, self.started.strftime("%Y%m%d-%H%M%S")))
        if path.endswith(".csv"):
            with open(path, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["metric", "impl", "round", "size", "value"])
                for metric, per in self.raw.items():
                    for impl, rounds in per.items():
                        for r, rows in enumerate(rounds):
                            for size in sorted(rows):
                                w.writerow([metric, impl, r, size, rows[size]])
        else:
            doc = {
                "benchmark": self.name,
                "date": self.started.isoformat(timespec="seconds"),
                "host": socket.gethostname(),
                "ncpu": NCPU,
                "machine": machine(),
                "note": getattr(self.args, "note", ""),
                "rounds": self.args.rounds,
                "argv": sys.argv,
                "command": " ".join([os.path.relpath(sys.argv[0], SRC)] + sys.argv[1:]),
                "commands": self.commands,
                "failures": self.failures,
                "raw": {m: {i: [{str(s): v for s, v in sorted(rows.items())} for rows in rs]
                            for i, rs in per.items()} for m, per in self.raw.items()},
                "median": {m: {i: {str(s): v for s, v in sorted(self.median(m, i).items())}
                               for i in per} for m, per in self.raw.items()},
                "min_max": {m: {i: {str(s): v for s, v in sorted(self.spread(m, i).items())}
                                for i in per} for m, per in self.raw.items()},
                "best": {m: {i: {str(s): v for s, v in sorted(self.best(m, i, higher_better(m)).items())}
                             for i in per} for m, per in self.raw.items()},
            }
            with open(path, "w") as f:
                json.dump(doc, f, indent=1)
        log("raw results written to %s" % path)
        return path


def cold_sizes(lo, hi):
    """Powers of two from lo to hi (0 counts as a size): the cold single-size runs."""
    out, s = ([0] if lo == 0 else []), max(1, lo)
    while s <= hi:
        out.append(s)
        s *= 2
    return out


def parse_range(spec, default):
    """'[MIN:]MAX' with k/m suffixes -> (lo, hi)"""
    if not spec:
        return default

    def num(t):
        t = t.strip().lower()
        mult = {"k": 1 << 10, "m": 1 << 20}.get(t[-1:], 1)
        return int(t[:-1] if mult > 1 else t) * mult
    parts = spec.split(":")
    return (num(parts[0]), num(parts[1])) if len(parts) == 2 else (default[0], num(parts[0]))


def interleave(results, jobs_by_round, rounds, timeout, verbose=False):
    """jobs_by_round: list of groups, each a list of (metric, Job) run side by side. The
    order of the implementations inside a group rotates every round so slow drifts of the
    VM do not always favour the same one."""
    for r in range(rounds):
        log("round %d/%d" % (r + 1, rounds))
        for group in jobs_by_round:
            k = r % len(group) if group else 0
            for job in group[k:] + group[:k]:
                rows, _ = run(job.cmd, timeout, verbose, job.column)
                for sec, metric in job.sections.items():
                    results.add(metric, job.impl, job.cmd, None if rows is None else rows.get(sec))


# ---------------------------------------------------------------- tables

def fmt(v, prec=2):
    if v is None:
        return "-"
    if v >= 1e5:
        return "%.0f" % v
    return "%.*f" % (prec, v)


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def is_peer(impl):
    """Another implementation, not rmp itself (rmp, rmp-osu, or an rmp-osu variant)."""
    return not impl.startswith("rmp")


def table(results, metric, title, higher_better, impls, ref=None, ref_label=None, ref_scale=1.0,
          unit=""):
    """Prints size | each impl's median [min-max] | rmp/best-peer | [rmp/ref, peer/ref], all
    ratios of medians over the interleaved rounds. ref is {size: v} or a float applying to
    every size (the latency floor)."""
    best = {i: results.median(metric, i) for i in impls}
    rng = {i: results.spread(metric, i) for i in impls}
    sizes = sorted(set(s for i in impls for s in best[i]))
    peers = [i for i in impls if is_peer(i)]
    # The rmp column the ratios use: the native program's, else the OSU binary's on rmp.
    me = "rmp" if "rmp" in impls else ("rmp-osu" if "rmp-osu" in impls else None)
    cols = ["Size"] + impls
    if me and peers:
        cols.append(me + "/peer")
    if ref is not None:
        if me:
            cols.append(me + "/" + ref_label)
        if peers:
            cols.append("peer/" + ref_label)
    print()
    print("%s  [%s is better; median [min-max] of %d interleaved round(s)%s]" % (
        title, "higher" if higher_better else "lower", results.args.rounds, unit))
    widths = [10] + [24] * len(impls) + [11] * (len(cols) - 1 - len(impls))
    print("".join(c.rjust(w) if k else c.ljust(w) for k, (c, w) in enumerate(zip(cols, widths))))
    for s in sizes:
        vals = [best[i].get(s) for i in impls]
        line = [str(s).ljust(10)]
        for i, v in zip(impls, vals):
            lo, hi = rng[i].get(s, (None, None))
            cell = fmt(v) + ("" if lo is None or results.args.rounds < 2
                             else " [%s-%s]" % (fmt(lo), fmt(hi)))
            line.append(cell.rjust(24))
        pv = [best[i].get(s) for i in peers if best[i].get(s) is not None]
        bp = (max(pv) if higher_better else min(pv)) if pv else None
        rmpv = best[me].get(s) if me else None
        if me and peers:
            line.append(fmt(ratio(rmpv, bp)).rjust(11))
        if ref is not None:
            rv = ref if isinstance(ref, float) else ref.get(s)
            rv = rv * ref_scale if rv is not None else None
            if me:
                line.append(fmt(ratio(rmpv, rv)).rjust(11))
            if peers:
                line.append(fmt(ratio(bp, rv)).rjust(11))
        print("".join(line))
    fails = results.failures.get(metric)
    if fails:
        print("  failed runs: " + ", ".join("%s x%d" % kv for kv in fails.items()))
    sys.stdout.flush()
