"""Control flow of one function's decoded instructions: successors, dominators and
post-dominators (Cooper, Harvey & Kennedy's iterative algorithm).

The labels loop uses the immediate post-dominator of each branch as the point where the
pc label the branch raised is dropped: everything before it may or may not run depending
on the branch, everything after it runs either way. The VM computes this itself, from the
code it is about to run, so a hand-crafted .synb cannot move a release point; the
verifier uses dominators to check that every local's declaration comes before its uses.
"""

from synsema.vm import opcodes as O

EXIT = -1

_BRANCH2 = {O.JUMP_IF_FALSE, O.AND_JUMP, O.OR_JUMP, O.TRY_BEGIN}


def successors(code):
    """code: [(op, arg)] decoded (jump targets are instruction indexes). -> [[succ...]]"""
    n = len(code)
    succ = []
    for i, (op, arg) in enumerate(code):
        if op in (O.JUMP, O.JUMP_BACK):
            s = [arg]
        elif op in _BRANCH2:
            s = [i + 1, arg[0] if type(arg) is tuple else arg]
        elif op == O.FOR_ITER:
            s = [i + 1, arg]
        elif op == O.JUMP_IF_SET:
            s = [i + 1, arg[1]]
        elif op == O.RETURN:
            s = [EXIT]
        else:
            s = [i + 1]
        succ.append([x if x == EXIT or 0 <= x < n else EXIT for x in s])
    return succ


def _idoms(nodes_rpo, preds, root):
    """Immediate dominators over a graph given in reverse postorder from root."""
    order = {node: k for k, node in enumerate(nodes_rpo)}
    idom = {root: root}
    changed = True
    while changed:
        changed = False
        for b in nodes_rpo:
            if b == root:
                continue
            new = None
            for p in preds.get(b, ()):
                if p not in idom:
                    continue
                if new is None:
                    new = p
                    continue
                x, y = p, new
                while x != y:
                    while order[x] > order[y]:
                        x = idom[x]
                    while order[y] > order[x]:
                        y = idom[y]
                new = x
            if new is not None and idom.get(b) != new:
                idom[b] = new
                changed = True
    return idom


def _rpo(root, edges):
    seen, post = {root}, []
    stack = [(root, iter(edges.get(root, ())))]
    while stack:
        node, it = stack[-1]
        for nxt in it:
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, iter(edges.get(nxt, ()))))
                break
        else:
            stack.pop()
            post.append(node)
    post.reverse()
    return post


def post_dominators(code):
    """{instruction: immediate post-dominator (an index, or EXIT)}; instructions that
    cannot reach the end of the function (endless loops) post-dominate nothing and map
    to EXIT, which keeps a label raised until the function returns: the safe side."""
    succ = successors(code)
    rev = {}
    for i, ss in enumerate(succ):
        for s in ss:
            rev.setdefault(s, []).append(i)
    preds = {i: list(ss) for i, ss in enumerate(succ)}   # predecessors in the reverse graph
    rpo = _rpo(EXIT, rev)
    idom = _idoms(rpo, preds, EXIT)
    return {i: idom.get(i, EXIT) for i in range(len(code))}


def dominators(code):
    """{instruction: immediate dominator} for instructions reachable from the entry."""
    succ = successors(code)
    edges = {i: [s for s in ss if s != EXIT] for i, ss in enumerate(succ)}
    preds = {}
    for i, ss in edges.items():
        for s in ss:
            preds.setdefault(s, []).append(i)
    if not code:
        return {}
    rpo = _rpo(0, edges)
    return _idoms(rpo, preds, 0)


def dominates(idom, a, b):
    """Does instruction a dominate instruction b (both reachable)?"""
    while True:
        if a == b:
            return True
        parent = idom.get(b)
        if parent is None or parent == b:
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
