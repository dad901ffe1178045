"""How the compiled-once engine asks a strategy: one call through a function address.

The engine (``kernel.py``) is compiled once for every line-up. It does not know which
strategies sit at the table: it receives ``strategy_functions``, an int64 array of
machine-code addresses (after one slot for a fault, see below), and at each decision
calls the seat's entry with four integers
(``kind``, ``n_options``, ``seat``, ``context``). ``context`` is the address of one tuple
``(obs, options, params, streams, tables)`` that the engine builds once per game; each
strategy's *adapter* (``adapter_for``) reads it back and calls the strategy's own
``decide(kind, obs, options, n_options, params[seat], streams[seat], tables)``, inlined,
with ``tables`` a reference into the context (``TablesRef``).
A line-up is then an array of addresses: nothing compiles per line-up, and each adapter
is cached on disk on its own (``engine/jit.py``), keyed by its strategy's files.

Designs measured before choosing (numba 0.68.1, this 2-core machine; a loop of 240 calls
per game into a toy strategy that reads ``tables`` (20 arrays) and ``obs``; ns per call):

- strategy inlined into the caller (the previous per-line-up generated kernel): 4-6 ns,
  but the 1,050-line kernel compiled again for every set of strategies (27-280 s);
- a jitted function passed as an argument: typed as that very function, so one compile
  per strategy set again, and numba did not cache it (a miss on every run);
- numba first-class ``FunctionType`` argument with the arrays as arguments: compiled and
  cached once, but 60-90 ns per call (every array passed and reference-counted);
- this design, a raw address and one context pointer, the strategy inlined into its
  adapter: 8-10 ns per call, compiled and cached once; with the strategy *not* inlined
  into its adapter it was 150-200 ns (every array of the context passed again).

Under ``NUMBA_DISABLE_JIT=1`` the same names are plain Python: ``address_of`` returns the
tuple itself and ``strategy_functions`` holds the adapters.

A strategy that raises (a bug in it) must be named, and only it, never an error of the
engine: ``call_strategy`` leaves the id of the strategy whose call failed in the first
slot of ``strategy_functions`` (``with_fault_slot``, ``faulted_strategy``), on the
failure's branch only, so a decision costs nothing more. ``batch.play_block`` reads it.
"""

from __future__ import annotations

import hashlib
import numbers
import threading
from collections.abc import Iterable

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from sunset_sim.engine.jit import jit
from sunset_sim.engine.state import strip_references

# The adapter's signature: (kind, n_options, seat, context address) -> chosen index.
ADAPTER_ARGS = (types.int64, types.int64, types.int64, types.int64)
ADAPTER_SIGNATURE = types.int64(*ADAPTER_ARGS)

# What an adapter raises when decide's answer is not an option index (batch.play_block
# turns them into an IllegalChoiceError naming the strategy).
NOT_AN_INDEX = "decide must return an integer option index"
RETURNED_NONE = "decide returned None"
FAULT_SLOT = 0  # where call_strategy leaves a failed strategy's id; the adapters follow
NO_FAULT = -1  # the fault slot's value while no strategy has failed

_LOCK = threading.Lock()
_ADAPTERS: dict[int, object] = {}
_CONTEXT_TYPE: list = []


# What a strategy may not write: obs, options and params (their indices in the context)
# and every table. In the fast engine they are the game's own arrays: a decide that wrote
# the options row it chose, the grid in obs or a commission's fame in tables changed the
# game played (the reference engine hands out copies), and --check-invariants missed the
# tables. Typed read-only, such a write does not compile (numba: "Cannot modify
# readonly array"), and the compiled code is the same: a type flag, not a copy.
READ_ONLY = (0, 1, 2)


def _refuse_flat_writes_to_read_only() -> None:
    """numba types a write through ``.flat`` of a read-only array (its flat iterator is a
    mutable sequence to ``SetItemSequence``) where numpy raises: a plug-in that rewrote
    the options row it chose through ``options.flat`` made the engine carry out a plan
    card it did not hold, exit 0 (--check-invariants: 276 of 300 games broken). Such a
    write is refused when it compiles, as any other write to a read-only array."""
    from numba.core.typing import collections as sequences

    template = sequences.SetItemSequence
    if getattr(template, "refuses_read_only_flat", False):
        return
    generic = template.generic

    def checked(self, args, kws):
        target = args[0] if args else None
        if isinstance(target, types.NumpyFlatType) and not target.array_type.mutable:
            raise numba.core.errors.NumbaTypeError(
                f"Cannot modify readonly array of type: {target.array_type} (through .flat): "
                f"setitem({target.array_type})"
            )
        return generic(self, args, kws)

    template.generic = checked
    template.refuses_read_only_flat = True


_refuse_flat_writes_to_read_only()


def read_only(member: types.Type) -> types.Type:
    """``member`` typed read-only where it is an array (the same data model)."""
    if isinstance(member, types.Array) and member.mutable:
        return member.copy(readonly=True)
    return member


def context_type() -> types.Type:
    """numba type of the tuple the engine passes: (obs, options, params, streams, tables)."""
    if not _CONTEXT_TYPE:
        from sunset_sim.cards.loader import load_cards
        from sunset_sim.cards.tables import build_tables

        _CONTEXT_TYPE.append(
            types.Tuple(
                (
                    types.int32[::1],  # obs
                    types.int32[:, ::1],  # options
                    types.float64[:, ::1],  # params, one row per seat
                    types.uint64[:, ::1],  # strategy streams, one row per seat
                    numba.typeof(build_tables(load_cards())),
                )
            )
        )
    return _CONTEXT_TYPE[0]


if numba.config.DISABLE_JIT:

    def address_of(value, value_type):
        return value

    def call_strategy(strategy_functions, strategy_id, kind, n_options, seat, context):
        try:
            return strategy_functions[1 + strategy_id](kind, n_options, seat, context)
        except Exception:
            strategy_functions[FAULT_SLOT] = strategy_id
            raise

    def option_index(answer):
        if answer is None:
            raise TypeError(RETURNED_NONE)
        if isinstance(answer, bool) or not isinstance(answer, numbers.Integral):
            raise TypeError(NOT_AN_INDEX, answer)
        return answer

else:

    @intrinsic
    def address_of(typingctx, value, value_type):
        """The address of a copy of ``value`` (which must be of ``value_type``, the type
        the adapters read back) in the caller's stack frame: valid until the caller
        returns, so pass it only to calls made before then."""
        if value != value_type.instance_type:
            raise numba.core.errors.TypingError(
                f"decision context is {value}, the adapters read {value_type.instance_type}"
            )

        def codegen(context, builder, signature, args):
            slot = cgutils.alloca_once_value(builder, args[0])
            return builder.ptrtoint(slot, ir.IntType(64))

        return types.int64(value, value_type), codegen

    @intrinsic
    def call_strategy(typingctx, strategy_functions, strategy_id, kind, n_options, seat, context):
        """Call strategy ``strategy_id``'s adapter, at address ``strategy_functions[1 +
        strategy_id]`` (numba's calling convention; ``with_fault_slot``). An exception
        raised in the strategy propagates to the caller, with ``strategy_id`` stored in
        the array's FAULT_SLOT: only on that branch, which needs nothing the call does not
        (the slot is the first, so not even the array's length). Compared in the engine's
        machine code against the call without it: the address's load gains a displacement
        (``8(%rax,%rcx,8)``), the stores sit on the error branches, nothing else moved."""

        def codegen(context_, builder, signature, args):
            functions = context_.make_array(signature.args[0])(context_, builder, args[0])
            strategy_id = args[1]
            call_conv = context_.call_conv
            function_type = call_conv.get_function_type(types.int64, ADAPTER_ARGS)
            one = ir.IntType(64)(1)
            address = builder.load(builder.gep(functions.data, [builder.add(strategy_id, one)]))
            pointer = builder.inttoptr(address, function_type.as_pointer())
            status, result = call_conv.call_function(
                builder, pointer, types.int64, ADAPTER_ARGS, args[2:]
            )
            with cgutils.if_unlikely(builder, status.is_error):
                slot = builder.gep(functions.data, [ir.IntType(64)(FAULT_SLOT)])
                builder.store(strategy_id, slot)
                call_conv.return_status_propagate(builder, status)
            return result

        if not (
            isinstance(strategy_functions, types.Array)
            and strategy_functions.dtype == types.int64
            and strategy_functions.ndim == 1
            and strategy_functions.layout == "C"
        ):
            raise numba.core.errors.TypingError(f"strategy functions are {strategy_functions}")
        return types.int64(strategy_functions, types.int64, *ADAPTER_ARGS), codegen

    @intrinsic
    def option_index(typingctx, answer):
        """``decide``'s answer as its adapter returns it, an int64. Typed when the adapter
        compiles: a ``decide`` typed to return anything else (a float, a string) does not
        compile, the error saying NOT_AN_INDEX (``compiling`` names the strategy); one
        that may return None (a path without a ``return``) raises RETURNED_NONE if it does.
        For an integer it is a plain cast, as the adapter's return did before."""
        if isinstance(answer, types.Optional) and isinstance(answer.type, types.Integer):

            def codegen_optional(context, builder, signature, args):
                optional = context.make_helper(builder, answer, value=args[0])
                with builder.if_then(builder.not_(optional.valid), likely=False):
                    context.call_conv.return_user_exc(builder, TypeError, (RETURNED_NONE,))
                return context.cast(builder, optional.data, answer.type, types.int64)

            return types.int64(answer), codegen_optional
        if isinstance(answer, types.Integer):

            def codegen(context, builder, signature, args):
                return context.cast(builder, args[0], answer, types.int64)

            return types.int64(answer), codegen
        raise numba.core.errors.TypingError(f"{NOT_AN_INDEX}, not {answer}")


class TablesRef(types.Type):
    """The card tables as a strategy's ``decide`` receives them: a pointer to the tables
    in the decision context, each ``tables.name`` loaded where it is read.

    As a value loaded at the adapter's entry, every table a strategy reads anywhere was
    loaded on every decision, and where more of them were live than registers (a strategy
    calling several compiled helpers with a dozen tables each) kept on the stack:
    goal-chaser's adapter stored 114 words before its first branch, greedy's 1. A call
    passes one pointer instead of each array's 7-9 words. The tables stay valid while the
    decision runs, which is as long as a strategy can hold them.

    A helper compiled with a TablesRef argument (say, lookahead's ``choose_hike``) is
    cached under its own files' digest, which does not cover this file: an edit to how
    a field is read must change VERSION, which is in the type's name and so in every
    cache key of such a helper."""

    VERSION = 2  # 2: each table read-only (read_only)

    def __init__(self, tables_type: types.Type) -> None:
        self.tables_type = tables_type
        super().__init__(name=f"TablesRef{self.VERSION}({tables_type})")


if not numba.config.DISABLE_JIT:
    from numba.core.datamodel import models
    from numba.core.imputils import impl_ret_borrowed, lower_getattr_generic
    from numba.core.typing.templates import AttributeTemplate
    from numba.extending import infer_getattr, register_model

    @register_model(TablesRef)
    class _TablesRefModel(models.PrimitiveModel):
        def __init__(self, dmm, fe_type):
            pointee = dmm.lookup(fe_type.tables_type).get_value_type()
            super().__init__(dmm, fe_type, pointee.as_pointer())

    @infer_getattr
    class _TablesRefAttributes(AttributeTemplate):
        key = TablesRef

        def generic_resolve(self, typ, attr):
            fields = typ.tables_type.fields
            return read_only(typ.tables_type.types[fields.index(attr)]) if attr in fields else None

    @lower_getattr_generic(TablesRef)
    def _tables_ref_getattr(context, builder, typ, value, attr):
        index = typ.tables_type.fields.index(attr)
        member = typ.tables_type.types[index]
        field = builder.gep(value, [ir.IntType(32)(0), ir.IntType(32)(index)])
        loaded = _load_fields(builder, field, builder.module.add_metadata([]))
        array = strip_references(context, builder, member, loaded)
        return impl_ret_borrowed(context, builder, read_only(member), array)


@intrinsic
def load_context(typingctx, address, value_type):
    """The tuple stored at ``address`` by ``address_of``: the tables as a ``TablesRef``,
    the other arrays borrowed (a constant null reference-counting handle, as
    ``state.borrowed`` gives): the engine holds them for the whole game, and numba's
    increfs and decrefs on them then fold away (with the handle loaded from memory
    instead, greedy's adapter made about 100 such calls per decision and played ~20%
    slower).

    Loaded field by field, each load invariant (``_load_fields``): as one load of the
    whole tuple, LLVM read and spilled all ~140 words of it at every adapter's entry.
    Measured (CPU time, alternating processes, 24 runs each): goal-chaser +6%,
    commission-hunter +4%, greedy +5% games/s."""
    stored = value_type.instance_type
    *arrays, tables = stored.types
    shown = [
        read_only(member) if index in READ_ONLY else member for index, member in enumerate(arrays)
    ]
    target = types.Tuple((*shown, TablesRef(tables)))

    def codegen(context, builder, signature, args):
        pointer = builder.inttoptr(args[0], context.get_value_type(stored).as_pointer())
        invariant = builder.module.add_metadata([])
        value = ir.Constant(context.get_value_type(target), ir.Undefined)
        for index, member in enumerate(arrays):
            field = builder.gep(pointer, [ir.IntType(32)(0), ir.IntType(32)(index)])
            loaded = _load_fields(builder, field, invariant)
            value = builder.insert_value(  # (a read-only array: the same data model)
                value, strip_references(context, builder, member, loaded), index
            )
        tables_at = builder.gep(pointer, [ir.IntType(32)(0), ir.IntType(32)(len(arrays))])
        return builder.insert_value(value, tables_at, len(arrays))

    return target(types.int64, value_type), codegen


def _load_fields(builder, pointer, invariant):
    """The value at ``pointer`` loaded field by field, each load marked invariant (the
    context does not change while a decision runs): LLVM then drops the fields a
    strategy never reads and may load the others again where they are used instead of
    keeping ~140 words of ``tables`` on the stack from the adapter's entry. (Sound
    because the adapter is only ever called through its address, so no caller is
    optimized with it: the context is invariant in every function it is inlined into.)"""
    kind = pointer.type.pointee
    if isinstance(kind, (ir.LiteralStructType, ir.IdentifiedStructType, ir.ArrayType)):
        count = len(kind.elements) if not isinstance(kind, ir.ArrayType) else kind.count
        value = ir.Constant(kind, ir.Undefined)
        for index in range(count):
            field = builder.gep(pointer, [ir.IntType(32)(0), ir.IntType(32)(index)])
            value = builder.insert_value(value, _load_fields(builder, field, invariant), index)
        return value
    loaded = builder.load(pointer)
    loaded.set_metadata("invariant.load", invariant)
    return loaded


def adapter_dispatcher(decide):
    """The jitted adapter of one strategy's ``decide``, not yet compiled (one per function
    and process; on disk, one cache entry per strategy, keyed by the files it compiles
    from)."""
    with _LOCK:
        found = _ADAPTERS.get(id(decide))
        if found is not None:
            return found[1]
        py_func = getattr(decide, "py_func", decide)
        if numba.config.DISABLE_JIT:
            inlined = py_func

            def adapter(kind, n_options, seat, context):
                obs, options, params, streams, tables = context
                answer = inlined(kind, obs, options, n_options, params[seat], streams[seat], tables)
                return option_index(answer)

        else:
            inlined = numba.njit(inline="always", nogil=True, error_model="numpy")(py_func)
            context_of = context_type()

            def adapter(kind, n_options, seat, context):
                obs, options, params, streams, tables = load_context(context, context_of)
                answer = inlined(kind, obs, options, n_options, params[seat], streams[seat], tables)
                return option_index(answer)

        # A name per strategy, so that each has its own cache index file.
        name = f"{py_func.__module__}.{py_func.__qualname__}".replace("<locals>", "locals")
        adapter.__qualname__ = adapter.__name__ = (
            "adapter_" + "_".join(name.split(".")) + _closure_tag(py_func)
        )
        dispatcher = jit(adapter)
        _ADAPTERS[id(decide)] = (decide, dispatcher)  # decide kept so its id stays unique
        return dispatcher


def _closure_tag(py_func, depth: int = 0) -> str:
    """ "" for a plain function; for a closure (one factory making several strategies'
    decide), a digest of what it closes over. Its cache key is its files', the same for
    every closure the factory makes: with one name, two such strategies shared a cache
    entry and one played the other's code. A value without a stable repr (an object's
    address) changes the tag each run: that closure compiles again, never wrongly."""
    cells = getattr(py_func, "__closure__", None)
    if not cells or depth > 3:  # (a closure over itself: deep enough)
        return ""
    shown = []
    for cell in cells:
        try:
            value = cell.cell_contents
        except ValueError:  # (an empty cell)
            shown.append("<empty>")
            continue
        inner = getattr(value, "py_func", value)
        if isinstance(value, np.ndarray):  # (its repr elides and rounds: its bytes)
            data = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()
            shown.append(f"ndarray:{value.dtype}:{value.shape}:{data}")
        elif callable(inner) and hasattr(inner, "__code__"):
            shown.append(f"{inner.__module__}.{inner.__qualname__}{_closure_tag(inner, depth + 1)}")
        else:
            shown.append(f"{type(value).__name__}:{value!r}")
    return "_c" + hashlib.sha256("\n".join(shown).encode()).hexdigest()[:12]


def typing_error(decide) -> Exception | None:
    """What numba says of ``decide`` called, not inlined, as its adapter calls it: the
    error, or None where that compiles. Inlined, a global numba cannot type (a
    ``collections.Counter``) came out as "NameError: name 'COUNTS' is not defined", with
    no line; called, it is numba's own "Untyped global name 'COUNTS' ..." and its line.
    Compiled in memory only, and only once the adapter has failed."""
    if numba.config.DISABLE_JIT or not hasattr(decide, "py_func"):
        return None
    context_of = context_type()

    def called(kind, n_options, seat, context):
        obs, options, params, streams, tables = load_context(context, context_of)
        return option_index(
            decide(kind, obs, options, n_options, params[seat], streams[seat], tables)
        )

    try:
        numba.njit(nogil=True, error_model="numpy")(called).compile(ADAPTER_SIGNATURE)
    except Exception as error:  # (what it is, the caller decides)
        return error
    return None


def adapter_for(decide):
    """The compiled adapter of one strategy's ``decide`` (compiled, or loaded from the
    cache, on first use)."""
    dispatcher = adapter_dispatcher(decide)
    if not numba.config.DISABLE_JIT and not dispatcher.overloads:
        dispatcher.compile(ADAPTER_SIGNATURE)
        dispatcher.disable_compile()
    return dispatcher


_ADDRESSES: dict[int, int] = {}  # id(adapter) -> address; adapters live as long as _ADAPTERS


def address(adapter) -> int:
    """Machine-code address of a compiled adapter (numba's calling convention). Looked up
    once per adapter and process: a study asks for it on each of its ~10,000 engine calls,
    and numba's lookup takes about 0.05 ms."""
    found = _ADDRESSES.get(id(adapter))
    if found is None:
        result = adapter.get_compile_result(ADAPTER_SIGNATURE)
        found = result.library.get_pointer_to_function(result.fndesc.llvm_func_name)
        _ADDRESSES[id(adapter)] = found
    return found


def strategy_functions(decides: Iterable) -> np.ndarray | list:
    """What the engine's ``strategy_functions`` argument holds for these strategies, in
    order: their adapters' addresses (the adapters themselves without JIT)."""
    adapters = [adapter_for(decide) for decide in decides]
    if numba.config.DISABLE_JIT:
        return adapters
    return np.array([address(adapter) for adapter in adapters], dtype=np.int64)


def with_fault_slot(functions: np.ndarray | list) -> np.ndarray | list:
    """What the engine's ``strategy_functions`` argument is: NO_FAULT in FAULT_SLOT (where
    ``call_strategy`` writes the id of a strategy that raised), then ``functions`` (from
    ``strategy_functions``). Made for each engine call, so that threads playing blocks of
    one batch at once never read each other's."""
    if isinstance(functions, list):
        return [NO_FAULT, *functions]
    return np.concatenate([np.array([NO_FAULT], dtype=np.int64), functions])


def faulted_strategy(functions: np.ndarray | list) -> int:
    """The id of the strategy whose call raised, from ``with_fault_slot``'s copy, or
    NO_FAULT when the error came from elsewhere (the engine)."""
    return int(functions[FAULT_SLOT])


__all__ = [
    "adapter_dispatcher",
    "adapter_for",
    "typing_error",
    "address_of",
    "call_strategy",
    "context_type",
    "faulted_strategy",
    "load_context",
    "option_index",
    "strategy_functions",
    "with_fault_slot",
]
