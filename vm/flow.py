"""Control flow of one function's decoded instructions: successors, dominators and
post-dominators (Lengauer & Tarjan's algorithm: near-linear on any graph a file can make).

The labels loop uses the immediate post-dominator of each branch as the point where the
pc label the branch raised is dropped: everything before it may or may not run depending
on the branch, everything after it runs either way. The VM computes this itself, from the
code it is about to run, so a hand-crafted .synb cannot move a release point. The
verifier uses dominators to check that every local's declaration comes before its uses,
and post-dominators to find the top-level variables declared outside every block.
"""

import sys

from synsema.vm import opcodes as O
from synsema.vm import optable as T

EXIT = -1

# Instructions that raise the pc until their post-dominator: those with a jump and a
# release id (JUMP_IF_FALSE, AND_JUMP, OR_JUMP, TRY_BEGIN), by the generated table.
_BRANCH2 = frozenset(op for op, f in T.FIELDS.items()
                     if "t" in f and "rid" in f and op < O.FIRST_INTERNAL)

# The graphs are flat int arrays (a compressed adjacency list per direction), not lists
# and dicts of lists: a crafted file's code can be long, and these cost 8 bytes per edge.
# They are memoryviews of 8-byte integers over a bytearray, as fast to index as the
# `array` module's, which `syn exec` would otherwise import (with collections.abc) for
# this alone, a seventieth of its start-up (issue 31). Their size is fixed: the
# depth-first search's stacks are sized for every node and counted by hand.
_ORDER = sys.byteorder


def _ints(n, fill=0):
    """n 8-byte integers, each `fill` (made in place: no bytes object to copy from)."""
    if not fill:
        return memoryview(bytearray(8 * n)).cast("q")
    return memoryview(bytearray(fill.to_bytes(8, _ORDER, signed=True)) * n).cast("q")


def _copy(ints):
    return memoryview(bytearray(ints)).cast("q")


def successors(code):
    """code: [(op, arg)] decoded (jump targets are instruction indexes). -> (first, second):
    each instruction's successors, len(code) standing for the exit, -1 for none."""
    n = len(code)
    first = _ints(n, n)
    second = _ints(n, -1)
    flow, jump_at = T.FLOW, T.JUMP_AT
    for i, (op, arg) in enumerate(code):
        kind = flow[op]
        if kind == "return":
            continue
        j = jump_at.get(op)
        t = -1 if j is None else (arg[j] if type(arg) is tuple else arg)
        a, b = (t, -1) if kind == "jump" else (i + 1, t)
        first[i] = a if 0 <= a < n else n
        if b != -1:
            second[i] = b if 0 <= b < n else n
    return first, second


def _adjacency(nodes, first, second, reverse):
    """(start, to): the edges out of node v are to[start[v]:start[v + 1]]; reverse=True
    gives the edges into each node instead."""
    count = _ints(nodes + 1)
    for sources in (first, second):
        for i, t in enumerate(sources):
            if t >= 0:
                count[(t if reverse else i) + 1] += 1
    for v in range(nodes):
        count[v + 1] += count[v]
    start = _copy(count)
    to = _ints(count[nodes])
    for sources in (first, second):
        for i, t in enumerate(sources):
            if t >= 0:
                v, w = (t, i) if reverse else (i, t)
                to[count[v]] = w
                count[v] += 1
    return start, to


def _idoms(nodes, root, out, into):
    """Immediate dominators from root over a graph given as adjacency (start, to) pairs
    out of and into each node; -1 for unreachable nodes, root for root."""
    return _lengauer_tarjan(nodes, root, out, into)[0]


def _lengauer_tarjan(nodes, root, out, into):
    """Lengauer & Tarjan's algorithm (path compression, simple linking: O(E log V) on any
    graph; Cooper, Harvey & Kennedy's iteration, used before, is quadratic on a crafted
    file's thousands of branches to one place). Returns (idom, num, vertex, dom):
    idom by node (-1 unreachable); num: each node's depth-first preorder number (-1
    unreachable); vertex: the node of each number; dom: each number's immediate dominator
    as a number (always smaller: an immediate dominator is a depth-first ancestor)."""
    ostart, oto = out
    istart, ito = into
    num = _ints(nodes, -1)
    vertex = _ints(nodes)           # the node of each number, the first `count` of them
    parent = _ints(nodes)           # each number's parent in the depth-first tree
    stack, at = _ints(nodes), _ints(nodes)     # the path from root, each node's next edge
    num[root] = 0
    vertex[0] = root
    stack[0], at[0] = root, ostart[root]
    count = top = 1                 # every node is numbered, so pushed, once
    while top:                      # depth first, numbering in preorder
        v = stack[top - 1]
        k = at[top - 1]
        if k < ostart[v + 1]:
            at[top - 1] = k + 1
            w = oto[k]
            if num[w] < 0:
                num[w] = count
                parent[count] = num[v]
                vertex[count] = w
                count += 1
                stack[top], at[top] = w, ostart[w]
                top += 1
        else:
            top -= 1
    vertex = vertex[:count]
    # Everything below is on preorder numbers.
    semi = _ints(count)
    for w in range(count):
        semi[w] = w
    label = _copy(semi)
    ancestor = _ints(count, -1)     # the forest of processed nodes
    dom = _ints(count)
    head = _ints(count, -1)         # bucket[v]: the nodes whose semidominator is v,
    link = _ints(count, -1)         # a linked list through link
    path = []

    def compress(x):
        # eval's path compression (ancestor[x] >= 0): afterwards label[x] is the node of
        # least semidominator on x's path up its tree of the forest, and the path is short.
        while ancestor[ancestor[x]] >= 0:
            path.append(x)
            x = ancestor[x]
        while path:
            y = path.pop()
            a = ancestor[y]
            if semi[label[a]] < semi[label[y]]:
                label[y] = label[a]
            ancestor[y] = ancestor[a]

    for w in range(count - 1, 0, -1):
        vw = vertex[w]
        p = parent[w]
        k0, k1 = istart[vw], istart[vw + 1]
        if k1 - k0 == 1:                # straight-line code: its one predecessor, p
            semi[w] = p
            dom[w] = p
        else:
            s = w
            for k in range(k0, k1):
                v = num[ito[k]]
                if v < 0:               # an unreachable predecessor
                    continue
                if ancestor[v] >= 0:    # eval(v)
                    compress(v)
                    v = semi[label[v]]
                if v < s:               # (an unprocessed node is its own semidominator)
                    s = v
            semi[w] = s
            if s == p:
                dom[w] = p
            else:
                link[w] = head[s]
                head[s] = w
        ancestor[w] = p
        v = head[p]
        if v < 0:
            continue
        head[p] = -1
        while v >= 0:
            u = v
            if ancestor[u] >= 0:        # eval(v)
                compress(u)
                u = label[u]
            dom[v] = u if semi[u] < semi[v] else p
            v = link[v]
    for w in range(1, count):
        if dom[w] != semi[w]:
            dom[w] = dom[dom[w]]
    idom = _ints(nodes, -1)
    for w in range(count):
        idom[vertex[w]] = vertex[dom[w]]
    return idom, num, vertex, dom


def post_dominators(code):
    """The immediate post-dominator of each instruction (an index, or EXIT); instructions
    that cannot reach the end of the function (endless loops) post-dominate nothing and
    map to EXIT, which keeps a label raised until the function returns: the safe side."""
    n = len(code)
    first, second = successors(code)
    out = _adjacency(n + 1, first, second, reverse=True)    # the reversed graph
    into = _adjacency(n + 1, first, second, reverse=False)
    ipdom = _idoms(n + 1, n, out, into)[:n]
    for i in range(n):
        if ipdom[i] == n:           # (-1, unreachable, is EXIT already)
            ipdom[i] = EXIT
    return ipdom


def dominators(code):
    """The immediate dominator of each instruction; -1 for those the entry cannot reach."""
    return dominator_tree(code).idom


class DominatorTree:
    """The dominator tree of one function's code, from its entry. idom: each instruction's
    immediate dominator (-1 where the entry cannot reach); dominates(a, b) answers in
    constant time from each node's interval in a preorder of the tree (walking up the
    idom chain for every use of a variable would be quadratic in long straight code)."""

    __slots__ = ("idom", "_num", "_first", "_size")

    def __init__(self, idom, num, first, size):
        self.idom = idom
        self._num = num          # node -> its depth-first number (-1: unreachable)
        self._first = first      # number -> its place in a preorder of the dominator tree
        self._size = size        # number -> how many nodes it dominates (itself included)

    def dominates(self, a, b):
        """Does instruction a dominate instruction b? (False when either is unreachable.)"""
        x, y = self._num[a], self._num[b]
        if x < 0 or y < 0:
            return False
        first = self._first[x]
        return first <= self._first[y] < first + self._size[x]


def dominator_tree(code):
    """A DominatorTree of code (decoded: jump targets are instruction indexes)."""
    n = len(code)
    if not n:
        return DominatorTree(_ints(0), _ints(0), _ints(0), _ints(0))
    first, second = successors(code)
    # The exit (node n) is a sink here: edges into it are kept, none leave it.
    out = _adjacency(n + 1, first, second, reverse=False)
    into = _adjacency(n + 1, first, second, reverse=True)
    idom, num, _, dom = _lengauer_tarjan(n + 1, 0, out, into)
    # Each number's immediate dominator has a smaller number: subtree sizes bottom up,
    # then each subtree's place in a preorder top down.
    count = len(dom)
    size = _ints(count, 1)
    for w in range(count - 1, 0, -1):
        size[dom[w]] += size[w]
    place = _ints(count)
    fill = _ints(count)             # the next free place in each subtree
    fill[0] = 1
    for w in range(1, count):
        p = dom[w]
        at = place[w] = fill[p]
        fill[p] = at + size[w]
        fill[w] = at + 1
    return DominatorTree(idom[:n], num, place, size)


def release_points(code):
    """Labels mode: (code with rids rewritten from the post-dominator tree and PC_RELEASE
    instructions inserted where they take effect, jump map old -> new, own map old -> new).

    A branch (JUMP_IF_FALSE, AND_JUMP, OR_JUMP, FOR_ITER, TRY_BEGIN) raises the pc until
    its immediate post-dominator P: its release id is P + 1, and PC_RELEASE P + 1 is
    placed just before P (every path into P passes through it). P = EXIT gives id 0:
    until the function returns. ITER_START raises the pc for its loop: the id of the
    FOR_ITER after it. The file's own release ids and PC_RELEASE instructions are ignored.
    """
    code = [ins for ins in code if ins[0] != O.PC_RELEASE]
    ipdom = post_dominators(code)
    rid_of = {}
    for i, (op, arg) in enumerate(code):
        if op in _BRANCH2 or op == O.FOR_ITER:
            p = ipdom[i]
            rid_of[i] = 0 if p == EXIT else p + 1
    releases = sorted({r - 1 for r in rid_of.values() if r})
    m = {}          # old index -> where a jump to it lands (its first PC_RELEASE)
    own = {}        # old index -> the instruction itself
    out = []
    ri = 0
    for i, (op, arg) in enumerate(code):
        while ri < len(releases) and releases[ri] == i:
            m.setdefault(i, len(out))
            out.append((O.PC_RELEASE, i + 1))
            ri += 1
        m.setdefault(i, len(out))
        if op in _BRANCH2:
            t = arg[0] if type(arg) is tuple else arg
            arg = (t, rid_of[i])
        elif op == O.ITER_START:
            nxt = code[i + 1] if i + 1 < len(code) else None
            arg = rid_of.get(i + 1, 0) if nxt and nxt[0] == O.FOR_ITER else 0
        own[i] = len(out)
        out.append((op, arg))
    m[len(code)] = len(out)
    return out, m, own
