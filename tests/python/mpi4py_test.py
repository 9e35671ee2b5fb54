# SPDX-License-Identifier: BSD-3-Clause
"""mpi4py over rmp (tools/build-mpi4py builds it against rmp's mpicc), run under rrun
at 2 and 3 ranks: numpy buffers and pickled objects through point-to-point,
collectives, one-sided, Comm.Split, and errors raised as Python exceptions.
Prints "rank R: N passed, M failed" per rank; exit status 1 on any failure."""
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"rank {rank}: FAIL: {what}", file=sys.stderr, flush=True)


def case(fn):
    """Run one case; an unexpected exception is a failure, not a crash."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - reported, then the other cases go on
        check(False, f"{fn.__name__} raised {type(e).__name__}: {e}")
    return fn


right, left = (rank + 1) % size, (rank - 1) % size


@case
def p2p_numpy():
    for n in (1, 1000, 100000):  # eager and rendezvous sizes
        out = np.arange(n, dtype=np.float64) + rank
        got = np.empty(n, dtype=np.float64)
        comm.Sendrecv(out, dest=right, sendtag=7, recvbuf=got, source=left, recvtag=7)
        check(np.array_equal(got, np.arange(n, dtype=np.float64) + left), f"Sendrecv {n} doubles")
    req = comm.Irecv(got := np.empty(10, dtype='i4'), source=left, tag=3)
    comm.Send(np.full(10, rank, dtype='i4'), dest=right, tag=3)
    st = MPI.Status()
    req.Wait(st)
    check((got == left).all() and st.Get_source() == left and st.Get_tag() == 3
          and st.Get_count(MPI.INT) == 10, "Irecv/Send with status")


@case
def p2p_pickle():
    obj = {"rank": rank, "list": list(range(rank + 3)), "text": "x" * (rank * 5000)}
    got = comm.sendrecv(obj, dest=right, source=left)
    check(got == {"rank": left, "list": list(range(left + 3)), "text": "x" * (left * 5000)},
          "pickled sendrecv")
    if rank == 0:
        comm.send(("hello", 42), dest=size - 1, tag=11)
    if rank == size - 1:
        check(comm.recv(source=0, tag=11) == ("hello", 42), "pickled send/recv")


@case
def collectives():
    a = np.full(1000, rank + 1, dtype=np.float64)
    s = np.empty_like(a)
    comm.Allreduce(a, s, op=MPI.SUM)
    check((s == size * (size + 1) / 2).all(), "Allreduce SUM float64")
    b = np.arange(5, dtype='i8') if rank == 0 else np.empty(5, dtype='i8')
    comm.Bcast(b, root=0)
    check((b == np.arange(5)).all(), "Bcast")
    g = np.empty(size, dtype='i4')
    comm.Allgather(np.array([rank * 10], dtype='i4'), g)
    check((g == np.arange(size) * 10).all(), "Allgather")
    check(comm.allreduce(rank, op=MPI.MAX) == size - 1, "pickled allreduce MAX")
    check(comm.gather(rank, root=0) == (list(range(size)) if rank == 0 else None), "gather")
    check(comm.bcast({"k": [1, 2]} if rank == 0 else None, root=0) == {"k": [1, 2]}, "bcast")
    check(comm.alltoall([rank * 100 + i for i in range(size)]) ==
          [i * 100 + rank for i in range(size)], "alltoall")
    comm.Barrier()


@case
def one_sided():
    buf = np.zeros(size, dtype='i4')
    win = MPI.Win.Create(buf, disp_unit=buf.itemsize, comm=comm)
    win.Fence()
    win.Put(np.array([rank + 1], dtype='i4'), right, target=(rank, 1, MPI.INT))
    win.Fence()
    check(buf[left] == left + 1, f"Put under Fence: {buf}")
    got = np.zeros(1, dtype='i4')
    win.Lock(right, MPI.LOCK_SHARED)
    win.Get(got, right, target=(rank, 1, MPI.INT))
    win.Unlock(right)
    check(got[0] == rank + 1, "Get under Lock")
    win.Fence()
    win.Accumulate(np.array([1], dtype='i4'), 0, target=(0, 1, MPI.INT), op=MPI.SUM)
    win.Fence()
    if rank == 0:  # every rank added 1 (buf[0] was 0: the Put wrote buf[size - 1])
        check(buf[0] == size, f"Accumulate: {buf}")
    win.Free()


@case
def split():
    sub = comm.Split(color=rank % 2, key=-rank)
    members = sub.allgather(rank)
    check(members == sorted([r for r in range(size) if r % 2 == rank % 2], reverse=True),
          f"Split members {members}")
    check(sub.Get_size() == len(members), "Split size")
    sub.Free()


@case
def errors_are_exceptions():
    comm.Set_errhandler(MPI.ERRORS_RETURN)
    try:
        comm.Send(np.zeros(1), dest=size + 5)
        check(False, "Send to a rank out of range raised nothing")
    except MPI.Exception as e:
        check(e.Get_error_class() == MPI.ERR_RANK, f"class {e.Get_error_class()}: {e}")
    try:
        comm.Allreduce(np.zeros(1), np.zeros(1), op=MPI.OP_NULL)
        check(False, "Allreduce with MPI.OP_NULL raised nothing")
    except MPI.Exception as e:
        check(e.Get_error_class() == MPI.ERR_OP, f"class {e.Get_error_class()}: {e}")
    comm.Set_errhandler(MPI.ERRORS_ARE_FATAL)
    comm.Barrier()


check(MPI.Get_version() >= (4, 0), f"MPI version {MPI.Get_version()}")
check(MPI.Is_initialized() and not MPI.Is_finalized(), "initialized")
print(f"rank {rank}: {passed} passed, {failed} failed", flush=True)
sys.exit(1 if failed else 0)
