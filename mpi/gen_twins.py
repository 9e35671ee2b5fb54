#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The `_c` twins of the MPI bindings, written from one definition per function.

Most large-count functions (MPI_Name_c, MPI 4.0) do what MPI_Name does with MPI_Count
where MPI_Name has int counts. A file of mpi/ states such a pair once, at file scope:

    MPII_TWINS(Ireduce, nr_run(NR_REDUCE, sendbuf, recvbuf, count, datatype, op, root,
                               comm, request, FN))

(the macro expands to nothing in C). The expression uses the parameter names of
mpi/include/mpi.h's prototype and FN for the function's name string; TWIN(a, b) stands
for a in MPI_Name and for b in MPI_Name_c (an argument only one of them has, a cast).
NARROW(p, conv) stands for an output count p, int * in MPI_Name and MPI_Count * in
MPI_Name_c: MPI_Name_c passes p; MPI_Name passes a MPI_Count it copies *p into (an in-out
count: a pack position) and, on success, stores conv(that count) into *p (conv: a function
or a cast that narrows it, say to MPI_UNDEFINED when it does not fit).
WIDEN(p, n, err) stands for an input array p of n counts, const int[] in MPI_Name and
const MPI_Count[] in MPI_Name_c: MPI_Name_c passes p; MPI_Name passes a MPI_Count copy of
it (mpii_widen; NULL when p is NULL, so the callee's NULL checks hold), made before the
expression is evaluated and freed after it. Should a copy not be allocated, MPI_Name
evaluates nothing else and returns err(MPI_ERR_NO_MEM, FN), err being the file's error
helper (it reports the error); the WIDENs of one expression name the same err. Arrays
the two forms treat in other ways go to a static function that takes both kinds:
TWIN(nv_int, nv_big)(counts, displs) in nbc_v.c (both read as they are), TWIN(pc_int,
pc_big)(...) in coll_persist.c (a request keeps them, the _c form's as int copies). For
every such line of SRC.c this script writes into SRC.twins.h

    int PMPI_Ireduce(<mpi.h's parameters>) { return <expression with FN = "MPI_Ireduce">; }
    MPII_WEAK(Ireduce)

and the same for Ireduce_c when mpi.h has it; SRC.c includes SRC.twins.h after the
static functions the expressions call. gen_stubs.py counts both names as implemented.

  gen_twins.py --header mpi.h --outdir DIR SRC.c...
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_stubs import parse_header  # noqa: E402

START = re.compile(r'^MPII_TWINS\((\w+),', re.M)


def twin_specs(src):
    """[(name, expression)] of the MPII_TWINS lines of a source text."""
    specs = []
    for m in START.finditer(src):
        depth, i = 1, m.end()
        while depth and i < len(src):
            depth += {'(': 1, ')': -1}.get(src[i], 0)
            i += 1
        if depth:
            sys.exit(f'MPII_TWINS({m.group(1)}, ...: unbalanced parentheses')
        specs.append((m.group(1), ' '.join(src[m.end():i - 1].split())))
    return specs


def split_args(text):
    """The top-level comma-separated parts of text (no outer parentheses)."""
    parts, depth, cur = [], 0, ''
    for ch in text:
        if ch == ',' and depth == 0:
            parts.append(cur.strip())
            cur = ''
            continue
        depth += {'(': 1, ')': -1}.get(ch, 0)
        cur += ch
    parts.append(cur.strip())
    return parts


ARITY = {'TWIN': 2, 'NARROW': 2, 'WIDEN': 3}


def pick(expr, which):
    """(expr with every TWIN(a, b) replaced by a (which 0) or b (which 1), every
    NARROW(p, conv) by p (which 1) or a pointer to p's MPI_Count copy (which 0), every
    WIDEN(p, n, err) by p (which 1) or p's MPI_Count copy (which 0); when which is 0,
    [(p, conv)] of the NARROWs and [(p, n, err)] of the WIDENs)."""
    narrow, widen = [], []
    while True:
        m = re.search(r'\b(TWIN|NARROW|WIDEN)\(', expr)
        if not m:
            return expr, narrow, widen
        depth, i = 1, m.end()
        while depth and i < len(expr):
            depth += {'(': 1, ')': -1}.get(expr[i], 0)
            i += 1
        args = split_args(expr[m.end():i - 1])
        if depth or len(args) != ARITY[m.group(1)]:
            sys.exit(f'{m.group(1)}(...) needs {ARITY[m.group(1)]} arguments: {expr}')
        if m.group(1) == 'TWIN':
            part = args[which]
        elif which:
            part = args[0]
        elif m.group(1) == 'NARROW':
            narrow.append((args[0], args[1]))
            part = f'{args[0]} ? &{args[0]}_c : NULL'
        else:
            if not re.fullmatch(r'\w+', args[0]):
                sys.exit(f'WIDEN({args[0]}, ...): the array must be a parameter: {expr}')
            if args[0] not in [p for p, _, _ in widen]:  # one copy per array
                widen.append(tuple(args))
            part = f'{args[0]}_w'
        expr = expr[:m.start()] + part + expr[i:]


def body(expr, narrow, widen, fn):
    """The statements of a function returning expr, narrowing the counts of narrow and
    widening the arrays of widen (freed on every path)."""
    if not narrow and not widen:
        return [f'    return {expr};']
    out = [f'    MPI_Count {p}_c = {p} ? *{p} : 0;' for p, _ in narrow]
    if widen:
        if len({err for _, _, err in widen}) > 1:
            sys.exit(f'{fn}: the WIDENs of one expression name different error helpers')
        out.append('    MPI_Count ' + ', '.join(f'*{p}_w = NULL' for p, _, _ in widen) + ';')
        cond = ' ||\n        '.join(f'!mpii_widen({p}, {n}, &{p}_w)' for p, n, _ in widen)
        err = widen[0][2]
        out += ['    int rc;', f'    if ({cond})', f'        rc = {err}(MPI_ERR_NO_MEM, {fn});',
                '    else', f'        rc = {expr};']
    else:
        out.append(f'    int rc = {expr};')
    for p, conv in narrow:
        out += [f'    if (rc == MPI_SUCCESS && {p})', f'        *{p} = {conv}({p}_c);']
    out += [f'    free({p}_w);' for p, _, _ in widen]
    return out + ['    return rc;']


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--header', required=True)
    ap.add_argument('--outdir', required=True)
    ap.add_argument('sources', nargs='+')
    a = ap.parse_args()
    _, _, funcs, _ = parse_header(a.header)
    protos = {name: (ret, params) for ret, name, params in funcs}
    for path in a.sources:
        out = [f'/* Generated by mpi/gen_twins.py from the MPII_TWINS lines of {os.path.basename(path)}',
               ' * and mpi/include/mpi.h. Do not edit. */']
        specs = twin_specs(open(path).read())
        if not specs:
            sys.exit(f'{path}: no MPII_TWINS line')
        for name, expr in specs:
            for which, n in enumerate((name, name + '_c')):
                if n not in protos:
                    if n == name:
                        sys.exit(f'{path}: MPII_TWINS({name}): MPI_{name} is not in {a.header}')
                    continue
                ret, params = protos[n]
                code, narrow, widen = pick(re.sub(r'\bFN\b', f'"MPI_{n}"', expr), which)
                out += [f'{ret} PMPI_{n}({params})', '{'] + body(code, narrow, widen,
                                                                 f'"MPI_{n}"') + ['}',
                        f'MPII_WEAK({n})', '']
        base = os.path.splitext(os.path.basename(path))[0]
        dest = os.path.join(a.outdir, base + '.twins.h')
        data = '\n'.join(out)
        if not os.path.exists(dest) or open(dest).read() != data:
            open(dest, 'w').write(data)


if __name__ == '__main__':
    main()
