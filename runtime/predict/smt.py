"""The z3 query over the choices the clocks left (rrcheck.runtime.predict, step 3)."""
from __future__ import annotations

from dataclasses import replace

from rrcheck.runtime.predict.clocks import Trace
from rrcheck.runtime.predict.hazards import Durability


def solve(trace: Trace, dur: Durability, cands: list, limit: int):
    """Yield witnesses: z3 picks a failure and hazard (``pick``), the cut's
    frontier j_p (the join of the send's and the delivery's clocks: the
    smallest cut), with r re-executed (no checkpoint of r's rank in the cut
    after r) and r not durable (some durability event outside it, or its
    holder failed), and the match(r, s) of the re-executed reception
    (``match``, among the FIFO-consistent others); smallest cut first. Each
    model found is blocked and the query asked again."""
    import z3
    if not cands:
        return
    n = trace.n
    opt = z3.Solver()  # z3.Optimize takes minutes over 256 hazards x 64 ranks: bisection instead
    pick, match = z3.Int("pick"), z3.Int("match")
    j = [z3.Int(f"j{p}") for p in range(n)]
    opt.add(pick >= 0, pick < len(cands), match >= 0)
    for p in range(n):
        opt.add(j[p] >= 0, j[p] <= len(trace.events[p]))
    for k, c in enumerate(cands):
        w, ri = c.r
        holes = set(c.holes)

        def inside(p: int, i: int):  # an event is in the cut: under the frontier and no hole
            return z3.BoolVal(False) if (p, i) in holes else j[p] >= i
        conds = [j[p] == c.frontier[p] for p in range(n)] + [match < len(c.alternatives)]
        conds += [z3.Not(inside(w, ck)) for ck in dur.checkpoints[w] if ck > ri]
        need = dur.need.get(c.r)
        if need is not None and need[1] not in c.victims:
            conds.append(z3.Or([z3.Not(inside(e.p, e.i)) for e in need[0]]))
        opt.add(z3.Implies(pick == k, z3.And(conds)))
    size = z3.Sum(j)
    found, picked = 0, set()
    while found < limit and opt.check() == z3.sat:
        m = opt.model()
        lo, hi = 0, m.eval(size).as_long()  # the smallest cut first, by bisection on its size
        while lo < hi:
            mid = (lo + hi) // 2
            opt.push()
            opt.add(size <= mid)
            if opt.check() == z3.sat:
                m = opt.model()
                hi = m.eval(size).as_long()
            else:
                lo = mid + 1
            opt.pop()
        k, a = m[pick].as_long(), m[match].as_long()
        found += 1
        picked.add(k)
        yield replace(cands[k], alternative=cands[k].alternatives[a])
        opt.add(z3.Or(pick != k, match != a))
    # every hazard the clocks found is a model of the query: a disagreement is a bug
    assert len(picked) == len(cands) or found == limit, f"z3 found {len(picked)} of {len(cands)} hazards"
