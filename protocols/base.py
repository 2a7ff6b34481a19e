"""The protocol interface: sans-I/O state machines, events in, effects out (docs/design.md §3).

A protocol object holds only its configuration knobs. The state of one process
is a pair ``(vol, stab)``: ``vol`` is lost at a crash, ``stab`` survives it
(stable storage, a reliable event logger). Every handler takes that state and
one event and returns a :class:`Step` — the new pair and a tuple of effects.
No handler reads a clock, a socket, randomness or another process's state: the
driver (the model checker or the MPI runtime) owns all of those.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, ClassVar, Iterable, NamedTuple

ANY = -1  # MPI_ANY_SOURCE / MPI_ANY_TAG

COLLECTIVES = ("barrier", "reduce", "bcast", "alltoall")


def coll_sources(kind: str, root: int, p: int, n: int) -> tuple[int, ...]:
    """The processes whose data (or, for a barrier, whose arrival) flows into p
    in one collective call (the C3 slides, "Collective Communication": single-sender
    bcast, single-receiver reduce/gather, all-to-all, barrier)."""
    if kind == "reduce":
        return tuple(q for q in range(n) if q != root) if p == root else ()
    if kind == "bcast":
        return () if p == root else (root,)
    return tuple(q for q in range(n) if q != p)  # barrier, alltoall


def value(cls):
    """A frozen, slotted dataclass that hashes itself once, on first use: states
    are hashed at every visited-set lookup, and a successor shares most of its
    parts with its parent (docs/design.md §5). The cached hash lives in a slot
    of a subclass, so it is not a field: not compared, printed or saved."""
    base = dataclass(frozen=True, slots=True)(cls)
    names = tuple(f.name for f in fields(base))
    parts = attrgetter(*names) if len(names) > 1 else (lambda o, get=attrgetter(*names): (get(o),))

    def __hash__(self) -> int:
        try:
            return self._h
        except AttributeError:
            h = hash(parts(self))
            object.__setattr__(self, "_h", h)
            return h

    return type(cls.__name__, (base,), {"__slots__": ("_h",), "__hash__": __hash__, "__doc__": cls.__doc__,
                                        "__qualname__": cls.__qualname__, "__module__": cls.__module__})


_INIT_FIELDS: dict[type, tuple[str, ...]] = {}


def replace(obj, **changes):
    """``dataclasses.replace`` for :func:`value` classes, without its per-call
    look at the fields (protocol handlers call it on every step)."""
    cls = type(obj)
    names = _INIT_FIELDS.get(cls) or _INIT_FIELDS.setdefault(cls, tuple(f.name for f in fields(cls) if f.init))
    new = cls(*[changes.pop(n) if n in changes else getattr(obj, n) for n in names])
    if changes:
        raise TypeError(f"{cls.__name__} has no field {', '.join(changes)}")
    return new


@value
class AppMsg:
    """An application message. ``gid = (src, dst, k)`` names the k-th message
    ``src`` sent ``dst`` in its current history; it is ghost data for the
    invariants and is carried opaquely — a protocol never reads it, nor ``_past``,
    the sends in its causal past (checker/model/ghost.py)."""

    gid: tuple[int, int, int]
    src: int
    dst: int
    tag: int
    payload: int
    _past: tuple[int, ...] = ()


@value
class Packet:
    """What crosses a channel: a protocol ``kind``, its piggybacked header and,
    for application traffic, the message it carries."""

    src: int
    dst: int
    kind: str
    hdr: tuple = ()
    msg: AppMsg | None = None


@value
class Mail:
    """A message handed to the MPI layer of its receiver, waiting to be matched
    by a receive; ``hdr`` is what the protocol keeps with it (e.g. its SSN)."""

    msg: AppMsg
    hdr: tuple = ()


# --- effects ---------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Send:
    """Put ``packet`` on the wire (lost if its destination is down)."""
    packet: Packet


@dataclass(frozen=True, slots=True)
class Deliver:
    """Hand a message to the application's matching queue."""
    mail: Mail


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """Save the application image (state, matching queue) as checkpoint ``cid``."""
    cid: int


@dataclass(frozen=True, slots=True)
class Restore:
    """Roll the application back to checkpoint ``cid`` (its queue included)."""
    cid: int


@dataclass(frozen=True, slots=True)
class Note:
    """Count a protocol situation as a witness (e.g. a duplicate dropped)."""
    name: str


Effect = Send | Deliver | Checkpoint | Restore | Note


class Step(NamedTuple):
    vol: Any
    stab: Any
    effects: tuple = ()


@dataclass(frozen=True, slots=True)
class Context:
    """What every process knows statically: the placement and the grouping."""

    n: int
    node_of: tuple[int, ...]
    group_of: tuple[int, ...]
    fifo: bool = True
    _groups: tuple = field(init=False, repr=False, compare=False)  # tables: asked at every step
    _others: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n, g = self.n, self.group_of
        object.__setattr__(self, "_groups", tuple(tuple(q for q in range(n) if g[q] == g[p]) for p in range(n)))
        object.__setattr__(self, "_others", tuple(tuple(q for q in range(n) if q != p) for p in range(n)))

    def group(self, p: int) -> tuple[int, ...]:
        return self._groups[p]

    def peers(self, p: int) -> tuple[int, ...]:
        """The other members of p's group (correlated set, cluster)."""
        return tuple(q for q in self._groups[p] if q != p)

    def others(self, p: int) -> tuple[int, ...]:
        return self._others[p]

    def internal(self, p: int, q: int) -> bool:
        return self.group_of[p] == self.group_of[q]


class Protocol:
    """Base of every protocol. Subclasses set ``name``, ``scope`` (who may roll
    back after a failure: ``failed``, ``group`` or ``all``), ``RECOVERY_KINDS``
    (packet kinds that belong to a recovery) and override the handlers.

    Knobs are the keyword arguments of the constructor, declared as class
    attributes in ``KNOBS`` with their correct values; a mutant is the same
    protocol with one knob set wrong (protocols/mutants.py)."""

    name: ClassVar[str] = "base"
    scope: ClassVar[str] = "failed"
    source: ClassVar[str] = ""
    RECOVERY_KINDS: ClassVar[frozenset[str]] = frozenset()
    KNOBS: ClassVar[dict[str, Any]] = {}
    at_sites: ClassVar[bool] = False  # checkpoints only at a checkpoint_site (application level)
    # why no failure makes a process roll back twice (RecoveryBound, :meth:`restarts_heard`),
    # or None where the protocol cannot say yet (then RecoveryBound does not apply to it)
    RECOVERY_BOUND: ClassVar[str | None] = "only a failed process rolls back, once, at its restart"

    def __init__(self, **knobs: Any) -> None:
        unknown = set(knobs) - set(self.KNOBS)
        if unknown:
            raise ValueError(f"{self.name} has no knob {sorted(unknown)[0]!r}")
        self.knobs = {**self.KNOBS, **knobs}
        for k, v in self.knobs.items():
            setattr(self, k, v)

    # -- application events ------------------------------------------------
    def initial(self, ctx: Context, p: int) -> tuple[Any, Any]:
        """The state of p at start; checkpoint 0 is the initial state."""
        raise NotImplementedError

    def may_send(self, ctx: Context, p: int, vol: Any, dst: int) -> bool:
        return True

    def on_send(self, ctx: Context, p: int, vol: Any, stab: Any, msg: AppMsg) -> Step:
        return Step(vol, stab, (Send(Packet(p, msg.dst, "app", (), msg)),))

    def may_match(self, ctx: Context, p: int, vol: Any, mail: Mail) -> bool:
        return True

    def on_match(self, ctx: Context, p: int, vol: Any, stab: Any, mail: Mail) -> Step:
        return Step(vol, stab)

    def on_receive(self, ctx: Context, p: int, vol: Any, stab: Any, mail: Mail, src: int, tag: int) -> Step:
        """A match by a receive posted for (``src``, ``tag``), either may be
        ``ANY``: protocols that treat wildcard receptions apart (Meyer 2014
        Meyer 2014 §4.2.3) override this; the default is :meth:`on_match`."""
        return self.on_match(ctx, p, vol, stab, mail)

    def may_choose(self, ctx: Context, p: int, vol: Any, k: int, choice: int) -> bool:
        return True

    def on_choose(self, ctx: Context, p: int, vol: Any, stab: Any, k: int, choice: int) -> Step:
        return Step(vol, stab)

    def on_site(self, ctx: Context, p: int, vol: Any, stab: Any) -> Step:
        """A ``checkpoint_site`` of the program (application-level protocols)."""
        return Step(vol, stab)

    # -- collectives (one call of every process, never split into messages) ---
    def coll_header(self, ctx: Context, p: int, vol: Any) -> tuple:
        """What p piggybacks on a collective call."""
        return ()

    def may_collect(self, ctx: Context, headers: tuple) -> bool:
        """May a collective complete among processes showing these headers?"""
        return True

    def coll_local(self, ctx: Context, p: int, vol: Any, op: tuple) -> tuple | None:
        """The inputs with which p completes collective ``op`` alone (replayed
        from a log), or None if it must call it with the others."""
        return None

    def on_collective(self, ctx: Context, p: int, vol: Any, stab: Any, op: tuple, inputs: tuple,
                      headers: tuple | None) -> Step:
        """p completed collective ``op`` with ``inputs`` (the data that flowed
        into it); ``headers`` are every process's, or None if p completed it
        alone from :meth:`coll_local`."""
        return Step(vol, stab)

    # -- wire, internal steps, restart --------------------------------------
    def on_packet(self, ctx: Context, p: int, vol: Any, stab: Any, pkt: Packet) -> Step:
        return Step(vol, stab, (Deliver(Mail(pkt.msg)),)) if pkt.msg else Step(vol, stab)

    def internal(self, ctx: Context, p: int, vol: Any, stab: Any, may_checkpoint: bool) -> tuple:
        """Labels of the protocol-internal steps p may take now."""
        return ()

    def on_internal(self, ctx: Context, p: int, vol: Any, stab: Any, label: Any) -> Step:
        raise ValueError(f"{self.name}: no internal step {label!r}")

    def on_restart(self, ctx: Context, p: int, stab: Any) -> Step:
        """A replacement of p starts from stable storage alone."""
        raise NotImplementedError

    # -- what the checker may ask -------------------------------------------
    def beyond_fault_model(self, node_of: tuple[int, ...], sends: Iterable[tuple[int, int]],
                           crash_kinds: tuple[str, ...]) -> str | None:
        """Why a configuration (placement, static ``(sender, receiver)`` pairs,
        crash kinds) lies outside what the protocol's source claims, in one line
        quoting it, or None. The checker refuses such a configuration unless asked."""
        return None

    def holdings(self, ctx: Context, p: int, vol: Any, stab: Any) -> Iterable[AppMsg]:
        """Messages p can still (re)produce for their receivers without rolling
        back: sender-based logs, buffers, recorded channel states."""
        return ()

    def recorded_channels(self, ctx: Context, p: int, stab: Any, cid: int) -> Iterable[AppMsg]:
        """In-transit messages saved with checkpoint ``cid`` (Chandy–Lamport)."""
        return ()

    def recovering(self, ctx: Context, p: int, vol: Any) -> bool:
        return False

    def restarts_heard(self, ctx: Context, p: int, stab: Any) -> int:
        """RecoveryBound: how many restarts p's stable state says it has rolled
        back for. A rollback of p other than its own restart must raise it, and
        it never exceeds the restarts that happened: so no failure makes p roll
        back more than once. Protocols whose survivors never roll back keep 0."""
        return 0

    def coordinated_with(self, ctx: Context, p: int) -> tuple[int, ...]:
        """The processes that roll back together with p to one recovery line
        (Theorem 1 is checked inside this set)."""
        return (p,)

    # packet kinds, besides "app", that carry an application message to its
    # receiver (drawn as messages on diagrams)
    MESSAGE_KINDS: ClassVar[frozenset[str]] = frozenset()

    def describe(self, pkt: Packet) -> str:
        """What of a packet's header a trace should show (e.g. a phase); "" for nothing."""
        return ""


class Plain(Protocol):
    """No fault tolerance: the application over bare MPI. It defines the
    failure-free runs that FailureFreeEquivalence compares against."""

    name = "none"

    def initial(self, ctx: Context, p: int) -> tuple[Any, Any]:
        return (), ()

    def on_restart(self, ctx: Context, p: int, stab: Any) -> Step:
        return Step((), stab, (Restore(0),))
