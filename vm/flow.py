"""Control flow of one function's decoded instructions: successors, dominators and
post-dominators (Cooper, Harvey & Kennedy's iterative algorithm).

The labels loop uses the immediate post-dominator of each branch as the point where the
pc label the branch raised is dropped: everything before it may or may not run depending
on the branch, everything after it runs either way. The VM computes this itself, from the
code it is about to run, so a hand-crafted .synb cannot move a release point. The
verifier uses dominators to check that every local's declaration comes before its uses,
and post-dominators to find the top-level variables declared outside every block.
"""

from array import array

from synsema.vm import opcodes as O
from synsema.vm import optable as T

EXIT = -1

# Instructions that raise the pc until their post-dominator: those with a jump and a
# release id (JUMP_IF_FALSE, AND_JUMP, OR_JUMP, TRY_BEGIN), by the generated table.
_BRANCH2 = frozenset(op for op, f in T.FIELDS.items()
                     if "t" in f and "rid" in f and op < O.FIRST_INTERNAL)

# The graphs are flat int arrays (a compressed adjacency list per direction), not lists
# and dicts of lists: a crafted file's code can be long, and these cost 8 bytes per edge.


def successors(code):
    """code: [(op, arg)] decoded (jump targets are instruction indexes). -> (first, second):
    each instruction's successors, len(code) standing for the exit, -1 for none."""
    n = len(code)
    first = array("q", [n]) * n
    second = array("q", [-1]) * n
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
    count = array("q", [0]) * (nodes + 1)
    for sources in (first, second):
        for i, t in enumerate(sources):
            if t >= 0:
                count[(t if reverse else i) + 1] += 1
    for v in range(nodes):
        count[v + 1] += count[v]
    start = array("q", count)
    to = array("q", [0]) * count[nodes]
    for sources in (first, second):
        for i, t in enumerate(sources):
            if t >= 0:
                v, w = (t, i) if reverse else (i, t)
                to[count[v]] = w
                count[v] += 1
    return start, to


def _idoms(nodes, root, out, into):
    """Immediate dominators from root (Cooper, Harvey & Kennedy) over a graph given as
    adjacency (start, to) pairs out of and into each node; -1 for unreachable nodes."""
    ostart, oto = out
    istart, ito = into
    seen = bytearray(nodes)
    seen[root] = 1
    post = array("q")
    stack, at = array("q", [root]), array("q", [ostart[root]])
    while stack:                        # depth-first, for the reverse postorder
        v = stack[-1]
        k = at[-1]
        if k < ostart[v + 1]:
            at[-1] = k + 1
            w = oto[k]
            if not seen[w]:
                seen[w] = 1
                stack.append(w)
                at.append(ostart[w])
        else:
            stack.pop()
            at.pop()
            post.append(v)
    post.reverse()
    order = array("q", [-1]) * nodes
    for k, v in enumerate(post):
        order[v] = k
    idom = array("q", [-1]) * nodes
    idom[root] = root
    changed = True
    while changed:
        changed = False
        for v in post:
            if v == root:
                continue
            new = -1
            for k in range(istart[v], istart[v + 1]):
                p = ito[k]
                if idom[p] < 0:
                    continue
                if new < 0:
                    new = p
                    continue
                x, y = p, new
                while x != y:
                    while order[x] > order[y]:
                        x = idom[x]
                    while order[y] > order[x]:
                        y = idom[y]
                new = x
            if new >= 0 and idom[v] != new:
                idom[v] = new
                changed = True
    return idom


def post_dominators(code):
    """The immediate post-dominator of each instruction (an index, or EXIT); instructions
    that cannot reach the end of the function (endless loops) post-dominate nothing and
    map to EXIT, which keeps a label raised until the function returns: the safe side."""
    n = len(code)
    first, second = successors(code)
    out = _adjacency(n + 1, first, second, reverse=True)    # the reversed graph
    into = _adjacency(n + 1, first, second, reverse=False)
    idom = _idoms(n + 1, n, out, into)
    return array("q", (EXIT if p < 0 or p == n else p for p in idom[:n]))


def dominators(code):
    """The immediate dominator of each instruction; -1 for those the entry cannot reach."""
    n = len(code)
    if not n:
        return array("q")
    first, second = successors(code)
    # The exit (node n) is a sink here: edges into it are kept, none leave it.
    out = _adjacency(n + 1, first, second, reverse=False)
    into = _adjacency(n + 1, first, second, reverse=True)
    return _idoms(n + 1, 0, out, into)[:n]


def dominates(idom, a, b):
    """Does instruction a dominate instruction b (both reachable)?"""
    while True:
        if a == b:
            return True
        parent = idom[b]
        if parent < 0 or parent == b:
            return False
        b = parent


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
