"""``rrcheck group PATTERN --method node|metis|rcb|rpcs --groups K [--json]``.

Forms the groups of a pattern (or of a graph JSON file) and prints the grouping's cost
figures: Jitsumoto et al. eqs. (1)–(3) and Guermouche and Ropars Table 1's metrics. ``--save FILE`` writes the
grouping for ``rrcheck check --grouping``.
"""

from __future__ import annotations

import json
import time

from rrcheck.errors import UsageError
from rrcheck.grouping.cost import evaluate
from rrcheck.grouping.groups import METHODS, make_grouping
from rrcheck.grouping.patterns import load_pattern, pattern_names


def add_parser(subparsers):
    """Register the ``group`` subcommand on an argparse subparsers object."""
    p = subparsers.add_parser(
        "group", help="form groups of processes (node, METIS, RCB, RPCS) and print their cost",
        description="Form groups of processes for partial message logging (Jitsumoto et al., Guermouche and Ropars §4) "
                    "and print the cost figures of the grouping.")
    p.add_argument("pattern", metavar="PATTERN",
                   help=f"one of {', '.join(pattern_names())}, or a communication-graph .json file")
    p.add_argument("--method", default="rpcs", metavar="METHOD",
                   help=f"{'|'.join(METHODS)} (default rpcs; metis = kmetis)")
    p.add_argument("--groups", default=None, metavar="K",
                   help="number of groups; 'auto' with a METIS method minimises eq. (1) by bisection; "
                        "optional with --method node (one group per node)")
    p.add_argument("--level", default="process", metavar="LEVEL",
                   help="process|node: METIS and RCB partition processes, or nodes (default process)")
    p.add_argument("--alpha", type=float, default=0.23, help="message-logging weight α (default 0.23)")
    p.add_argument("--beta", type=float, default=0.124, help="restart weight β (default 0.124)")
    p.add_argument("--seed", type=int, default=1, help="METIS random seed (default 1)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--save", metavar="FILE", help="write the grouping to FILE for rrcheck check --grouping")
    p.set_defaults(func=run)
    return p


def _groups(text):
    if text is None or text == "auto":
        return text
    try:
        k = int(text)
    except ValueError:
        raise UsageError(f"--groups must be a positive integer or 'auto', got {text!r}") from None
    if k < 1:
        raise UsageError(f"--groups must be a positive integer or 'auto', got {k}")
    return k


def run(args) -> int:
    """Execute ``rrcheck group``; user errors raise UsageError."""
    if args.method not in METHODS:
        raise UsageError(f"unknown method {args.method!r}; use one of {', '.join(METHODS)}")
    k = _groups(args.groups)
    if not (0 <= args.alpha and 0 <= args.beta):
        raise UsageError("--alpha and --beta must be 0 or more")
    if args.save:
        from rrcheck.files import check_file
        check_file(args.save, "--save", (args.pattern,) if args.pattern.endswith(".json") else ())
    graph = load_pattern(args.pattern)
    t0 = time.perf_counter()
    group_of = make_grouping(graph, args.method, k, level=args.level, seed=args.seed,
                             alpha=args.alpha, beta=args.beta)
    elapsed = time.perf_counter() - t0
    figures = evaluate(graph, group_of, alpha=args.alpha, beta=args.beta)
    result = {
        "pattern": args.pattern,
        "synthetic": not args.pattern.endswith(".json"),
        "method": args.method,
        "level": "node" if args.method in ("node", "rpcs") else args.level,
        "groups_requested": k,
        "seconds": elapsed,
        **figures,
    }
    if args.save:
        from rrcheck.grouping.io import save_grouping
        save_grouping(args.save, group_of, pattern=args.pattern, method=args.method,
                      cost={key: figures[key] for key in ("L", "R_process", "R_node",
                                                          "process_fault_cost", "node_fault_cost")})
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(_table(result))
    return 0


def _table(r) -> str:
    label = " (SYNTHETIC pattern, not a trace)" if r["synthetic"] else ""
    rows = [
        ("pattern", f"{r['pattern']}: {r['processes']} processes on {r['nodes']} nodes{label}"),
        ("method", f"{r['method']} ({r['level']}-based), groups requested: {r['groups_requested']}"),
        ("groups", r["groups"]),
        ("min / max group size", f"{r['min_group_size']} / {r['max_group_size']}"),
        ("% rolled back, process fault", f"{r['pct_rolled_back']:.3f} %"),
        ("% rolled back, node fault", f"{r['pct_rolled_back_node_fault']:.3f} %"),
        ("% logged (B/D)", f"{r['pct_logged']:.3f} %"),
        ("edge-cut B (volume)", f"{r['edge_cut']:.6g}"),
        ("process fault cost, eq. (2)", f"{r['process_fault_cost']:.5f}"),
        ("node fault cost, eq. (3)", f"{r['node_fault_cost']:.5f}"),
        ("alpha / beta", f"{r['alpha']} / {r['beta']}"),
        ("grouping time", f"{r['seconds']:.3f} s"),
    ]
    width = max(len(a) for a, _ in rows)
    return "\n".join(f"{a:<{width}}  {b}" for a, b in rows)
