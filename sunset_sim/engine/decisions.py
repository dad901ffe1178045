"""How the compiled-once engine asks a strategy: one call through a function address.

The engine (``kernel.py``) is compiled once for every line-up. It does not know which
strategies sit at the table: it receives ``strategy_functions``, an int64 array of
machine-code addresses, and at each decision calls the seat's entry with four integers
(``kind``, ``n_options``, ``seat``, ``context``). ``context`` is the address of one tuple
``(obs, options, params, streams, tables)`` that the engine builds once per game; each
strategy's *adapter* (``adapter_for``) reads it back and calls the strategy's own
``decide(kind, obs, options, n_options, params[seat], streams[seat], tables)``, inlined.
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
"""

from __future__ import annotations

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

_LOCK = threading.Lock()
_ADAPTERS: dict[int, object] = {}
_CONTEXT_TYPE: list = []


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

    def call_strategy(function, kind, n_options, seat, context):
        return function(kind, n_options, seat, context)

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
    def call_strategy(typingctx, function, kind, n_options, seat, context):
        """Call the adapter at address ``function`` (numba's calling convention);
        an exception raised in the strategy propagates to the caller."""

        def codegen(context_, builder, signature, args):
            call_conv = context_.call_conv
            function_type = call_conv.get_function_type(types.int64, ADAPTER_ARGS)
            pointer = builder.inttoptr(args[0], function_type.as_pointer())
            status, result = call_conv.call_function(
                builder, pointer, types.int64, ADAPTER_ARGS, args[1:]
            )
            with cgutils.if_unlikely(builder, status.is_error):
                call_conv.return_status_propagate(builder, status)
            return result

        return types.int64(types.int64, *ADAPTER_ARGS), codegen


@intrinsic
def load_context(typingctx, address, value_type):
    """The tuple stored at ``address`` by ``address_of``, its arrays borrowed (a constant
    null reference-counting handle, as ``state.borrowed`` gives): the engine holds them
    for the whole game, and numba's increfs and decrefs on them then fold away (with the
    handle loaded from memory instead, greedy's adapter made about 100 such calls per
    decision and played ~20% slower).

    Loaded field by field, each load invariant (``_load_fields``): as one load of the
    whole tuple, LLVM read and spilled all ~140 words of it at every adapter's entry.
    Measured (CPU time, alternating processes, 24 runs each): goal-chaser +6%,
    commission-hunter +4%, greedy +5% games/s."""
    target = value_type.instance_type

    def codegen(context, builder, signature, args):
        pointer = builder.inttoptr(args[0], context.get_value_type(target).as_pointer())
        value = _load_fields(builder, pointer, builder.module.add_metadata([]))
        return strip_references(context, builder, target, value)

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
                return inlined(kind, obs, options, n_options, params[seat], streams[seat], tables)

        else:
            inlined = numba.njit(inline="always", nogil=True, error_model="numpy")(py_func)
            context_of = context_type()

            def adapter(kind, n_options, seat, context):
                obs, options, params, streams, tables = load_context(context, context_of)
                return inlined(kind, obs, options, n_options, params[seat], streams[seat], tables)

        # A name per strategy, so that each has its own cache index file.
        name = f"{py_func.__module__}.{py_func.__qualname__}".replace("<locals>", "locals")
        adapter.__qualname__ = adapter.__name__ = "adapter_" + "_".join(name.split("."))
        dispatcher = jit(adapter)
        _ADAPTERS[id(decide)] = (decide, dispatcher)  # decide kept so its id stays unique
        return dispatcher


def adapter_for(decide):
    """The compiled adapter of one strategy's ``decide`` (compiled, or loaded from the
    cache, on first use)."""
    dispatcher = adapter_dispatcher(decide)
    if not numba.config.DISABLE_JIT and not dispatcher.overloads:
        try:
            dispatcher.compile(ADAPTER_SIGNATURE)
        except numba.core.errors.TypingError as error:
            problem = plugin_compile_error(decide, error)
            if problem is None:  # the project's own strategies: a bug, shown whole
                raise
            raise problem from None
        dispatcher.disable_compile()
    return dispatcher


def plugin_compile_error(decide, error: Exception):
    """A plug-in's ``decide`` that numba cannot type, as one line naming its file (a
    ``StrategyError``): numba's own report is a 60-line traceback that, for a helper
    without ``@jit``, says the helper "is not defined". None for the built-in strategies
    (``sunset_sim.*``), whose compile errors are bugs to be seen in full."""
    import inspect
    import re

    from sunset_sim.strategy import StrategyError

    py_func = getattr(decide, "py_func", decide)
    module = getattr(py_func, "__module__", None) or ""
    if module == "sunset_sim" or module.startswith("sunset_sim."):
        return None
    try:
        where = inspect.getsourcefile(py_func) or module
    except TypeError:
        where = module
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line).strip() for line in str(error).splitlines()]
    lines = [line for line in lines if line and not line.startswith("Failed in nopython")]
    detail = f" ({lines[0][:160]})" if lines else ""
    return StrategyError(
        f"strategy plug-in {where}: decide does not compile for the fast engine{detail}; "
        "decide and every function it calls must be numba-compiled (decorate helpers with "
        "@jit from sunset_sim.engine.jit, or numba.njit)"
    )


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


__all__ = [
    "adapter_dispatcher",
    "adapter_for",
    "address_of",
    "call_strategy",
    "context_type",
    "load_context",
    "strategy_functions",
]
