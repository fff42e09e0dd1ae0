"""Plain data between the grader's checker and a student's kernel: what may cross, and how.

When a class is graded, the check runs in a checker process and the student's
answer runs in their sandboxed kernel (`memlib.course.serve`); the two only
exchange JSON. This module turns values into that JSON and back, the same way
on both sides:

* plain values pass as themselves: None, bool, int, float, str, lists, and
  dicts with string keys; another int or float class passes as its int or
  float value, so a number stays a number;
* numpy's numbers and arrays of numbers (bool, int, uint, float dtypes) are
  rebuilt as themselves, dtype and shape included (``{"$": "numpy", ...}``),
  so a check meets the same value in the checker as in the student's kernel;
* a tuple, a datetime and a dict with other keys are tagged
  (``{"$": "tuple", ...}``);
* memlib's own values are copied as data: the dataclasses listed in
  `DATACLASSES` (a `Message`, a `ToolCall`, a `Verdict`, a `CitedAnswer`, a
  `TraceEvent` ...) field by field, an `ArchivalStore`, a `CoreMemory`, a
  `MemorySystem`, an `AgentView`, a `ProbePolicy`, a `RecallStore` and
  memlib's summarizers (with a `RecordingSummarizer`'s log of calls) by their
  contents. Decoding rebuilds them with their own
  constructors, so their validation runs on the receiving side;
* anything else (the student's function, class or object) stays where it is
  and crosses as a *handle*, ``{"$": "handle", "id": 3, "kind": "class",
  "name": "MyDecider"}``; the other side calls it remotely;
* an exception crosses as its message, the names of its classes and the
  student's frame it came from (`encode_error`).

Decoding is strict: an unknown tag, a field of the wrong type, a value nested
too deep or too large is a `WireError`, never a guess. Nothing decoded is ever
code: a handle names an object, it cannot name a function to import.
"""

from __future__ import annotations

import builtins
import dataclasses
import functools
import importlib
import json
import math
import sys
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

__all__ = ["WireError", "RemoteError", "encode", "decode", "encode_error", "decode_error", "dumps", "loads",
           "DATACLASSES", "MAX_DEPTH", "MAX_CHARS", "MAX_ITEMS", "check_size", "crosses_by_state"]

#: Deepest nesting accepted, and the longest JSON text accepted from the other side.
MAX_DEPTH = 60
MAX_CHARS = 16 * 2**20
#: Most JSON items (each "[", "{" and "," counts) in one message. Decoding costs memory per item, not per
#: character: 16,000,000 empty lists are 48 MB of JSON and about 1.4 GB once parsed. This bounds a parse to
#: about 100 MB whatever the text holds (commas inside strings count too: the bound errs on the safe side).
MAX_ITEMS = 1_000_000

#: memlib dataclasses copied field by field ("module:qualname"); nothing outside this list is rebuilt.
DATACLASSES = (
    "memlib.messages:Message",
    "memlib.agent:ToolCall",
    "memlib.tools:ToolResult",
    "memlib.guard:Verdict",
    "memlib.citations:Citation",
    "memlib.citations:CitedAnswer",
    "memlib.archival:ArchivalRecord",
    "memlib.archival:Transition",
    "memlib.agent:TraceEvent",
)

#: Exceptions a remote error may be rebuilt as (the first one in the raising class's MRO wins).
_SAFE_BUILTIN_ERRORS = {
    name: getattr(builtins, name) for name in (
        "NotImplementedError", "RecursionError", "ZeroDivisionError", "OverflowError", "FloatingPointError",
        "ArithmeticError", "IndexError", "KeyError", "LookupError", "UnicodeError", "ValueError", "TypeError",
        "AttributeError", "NameError", "AssertionError", "RuntimeError", "MemoryError", "StopIteration",
        "TimeoutError", "OSError", "Exception",
    )
}


class WireError(ValueError):
    """A value that cannot cross between checker and kernel (the message says which and why)."""


class RemoteError(Exception):
    """An exception raised by the student's code in their kernel, rebuilt in the checker.

    Decoded errors are instances of a subclass that also derives from the
    nearest safe class of the original (ValueError, KeyError, a memlib error
    ...), so a check's ``except ValueError`` still catches a ValueError.
    `type_name` is the original class's name; `frame` is (function, line
    number, source line) of the student's innermost frame, or None.
    """

    type_name: str = "Exception"
    frame: tuple[str, int, str] | None = None


_TABLE: dict[str, type] | None = None
_NAMES: dict[type, str] = {}


def _resolve(spec: str) -> type:
    module, _, qualname = spec.partition(":")
    return getattr(importlib.import_module(module), qualname)


def _dataclasses() -> dict[str, type]:
    """spec -> class, for the dataclasses and the stateful values that may cross (by the name notebooks import)."""
    global _TABLE
    if _TABLE is None:
        _TABLE = {spec: _resolve(spec) for spec in (*DATACLASSES, *_CODECS)}
        _NAMES.update({cls: spec for spec, cls in _TABLE.items()})
    return _TABLE


def crosses_by_state(cls: type) -> bool:
    """Whether values of `cls` cross as their state (rebuilt on the other side), not as a handle."""
    _dataclasses()
    return _NAMES.get(cls) in _CODECS


def _name(cls: type) -> str | None:
    _dataclasses()
    return _NAMES.get(cls)


def _spec(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


# --------------------------------------------------------------------------- encode


def encode(value: Any, handle: Callable[[Any], dict] | None = None, depth: int = 0) -> Any:
    """`value` as JSON-ready data; `handle(obj)` names what is not data (None: such a value is an error)."""
    if depth > MAX_DEPTH:
        raise WireError(f"a value nested more than {MAX_DEPTH} levels deep")
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else {"$": "float", "repr": repr(value)}
    numpy_value = _numpy_state(value, depth)
    if numpy_value is not None:
        return numpy_value
    if isinstance(value, int) and not isinstance(value, bool):  # an int subclass: its value, not its methods
        return int.__index__(value)
    if isinstance(value, float):
        return encode(float.__float__(value), handle, depth)
    if type(value) is list:
        return [encode(v, handle, depth + 1) for v in value]
    if type(value) is tuple:
        return {"$": "tuple", "items": [encode(v, handle, depth + 1) for v in value]}
    if type(value) is dict:
        if all(type(k) is str for k in value) and "$" not in value:
            return {k: encode(v, handle, depth + 1) for k, v in value.items()}
        return {"$": "dict", "items": [[encode(k, handle, depth + 1), encode(v, handle, depth + 1)]
                                       for k, v in value.items()]}
    if type(value) is datetime:
        return {"$": "datetime", "iso": value.isoformat()}
    spec = _name(type(value))  # exactly the class: a subclass is the student's own object
    if spec in _CODECS:
        return {"$": "state", "type": spec, "state": _CODECS[spec][0](value, handle, depth)}
    if spec is not None:
        return {"$": "dataclass", "type": spec,
                "fields": {f.name: encode(getattr(value, f.name), handle, depth + 1)
                           for f in dataclasses.fields(value) if f.init}}
    marker = getattr(value, "__memlib_handle__", None)
    if isinstance(marker, dict):  # a checker-side proxy going back to where it lives
        return {"$": "handle", "id": marker["id"]}
    if handle is None:
        raise WireError(f"a {type(value).__name__} cannot be sent to the student's kernel")
    return handle(value)


def encode_error(error: BaseException, frame: tuple[str, int, str] | None = None) -> dict:
    """An exception as data: its message, the names of its classes and where the student's code raised it."""
    return {"$": "error", "type": type(error).__name__,
            "mro": [_spec(c) for c in type(error).__mro__ if c is not object],
            "message": str(error)[:20_000], "frame": list(frame) if frame else None}


# --------------------------------------------------------------------------- decode


def decode(data: Any, handle: Callable[[dict], Any] | None = None, depth: int = 0) -> Any:
    """Rebuild what `encode` wrote; `handle(data)` turns a handle into an object (None: a handle is an error)."""
    if depth > MAX_DEPTH:
        raise WireError(f"a value nested more than {MAX_DEPTH} levels deep")
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is list:
        return [decode(v, handle, depth + 1) for v in data]
    if type(data) is not dict:
        raise WireError(f"unexpected {type(data).__name__} in the data")
    tag = data.get("$")
    if tag is None:
        return {_str(k, "a key"): decode(v, handle, depth + 1) for k, v in data.items()}
    if tag == "tuple":
        return tuple(decode(v, handle, depth + 1) for v in _list(data, "items"))
    if tag == "float":
        text = _str(data.get("repr"), "a float")
        if text not in ("nan", "inf", "-inf"):
            raise WireError(f"not a float: {text[:40]!r}")
        return float(text)
    if tag == "dict":
        out = {}
        for pair in _list(data, "items"):
            if type(pair) is not list or len(pair) != 2:
                raise WireError("a dict item is not a [key, value] pair")
            key = decode(pair[0], handle, depth + 1)
            try:
                out[key] = decode(pair[1], handle, depth + 1)
            except TypeError as error:  # an unhashable key
                raise WireError(f"a dict key cannot be a {type(key).__name__}") from error
        return out
    if tag == "datetime":
        try:
            return datetime.fromisoformat(_str(data.get("iso"), "a datetime"))
        except ValueError as error:
            raise WireError(f"not a datetime: {error}") from None
    if tag == "dataclass":
        spec = _str(data.get("type"), "a type")
        cls = _dataclasses().get(spec) if spec in DATACLASSES else None
        fields = data.get("fields")
        if cls is None or type(fields) is not dict:
            raise WireError(f"not a value that may cross: {str(data.get('type'))[:80]!r}")
        known = {f.name for f in dataclasses.fields(cls) if f.init}
        if set(fields) - known:
            raise WireError(f"{cls.__name__} has no field(s) {sorted(set(fields) - known)[:5]}")
        try:
            return cls(**{k: decode(v, handle, depth + 1) for k, v in fields.items()})
        except WireError:
            raise
        except Exception as error:  # the class's own validation refused the values
            raise WireError(f"not a valid {cls.__name__}: {type(error).__name__}: {error}") from None
    if tag == "state":
        codec = _CODECS.get(_str(data.get("type"), "a type"))
        if codec is None:
            raise WireError(f"not a value that may cross: {str(data.get('type'))[:80]!r}")
        try:
            return codec[1](data.get("state"), handle, depth)
        except WireError:
            raise
        except Exception as error:
            raise WireError(f"not a valid {data['type'].rpartition(':')[2]}: {type(error).__name__}: {error}") from None
    if tag == "numpy":
        return _numpy_from(data, depth)
    if tag == "handle":
        if handle is None:
            raise WireError("an object handle where only data may be")
        if type(data.get("id")) is not int:
            raise WireError("a handle without an integer id")
        return handle(data)
    raise WireError(f"unknown tag {str(tag)[:40]!r}")


def decode_error(data: dict) -> RemoteError:
    """The `RemoteError` for what `encode_error` wrote (also an instance of the nearest safe class)."""
    if type(data) is not dict or data.get("$") != "error":
        raise WireError("not an error")
    mro = [m for m in _list(data, "mro") if type(m) is str]
    base: type[BaseException] = Exception
    for spec in mro:
        module, _, name = spec.partition(":")
        if module == "builtins" and name in _SAFE_BUILTIN_ERRORS:
            base = _SAFE_BUILTIN_ERRORS[name]
            break
        if module.startswith("memlib.") and not module.startswith("memlib.course"):
            found = getattr(importlib.import_module(module), name, None) if module in _importable() else None
            if isinstance(found, type) and issubclass(found, Exception):
                base = found
                break
    type_name = _str(data.get("type", "Exception"), "a type name")[:100]
    cls = type(type_name, (RemoteError, base), {"__module__": "student", "type_name": type_name})
    try:
        error = cls(_str(data.get("message", ""), "a message"))
    except Exception:  # a memlib error whose constructor wants other arguments
        error = type(type_name, (RemoteError, Exception), {"type_name": type_name})(str(data.get("message", "")))
    frame = data.get("frame")
    if type(frame) is list and len(frame) == 3 and type(frame[1]) is int:
        error.frame = (str(frame[0])[:200], frame[1], str(frame[2])[:500])
    return error


@functools.lru_cache(maxsize=1)
def _importable() -> frozenset[str]:
    """memlib's own modules (never a name the other side could choose to import); read once."""
    import memlib
    root = Path(memlib.__file__).parent
    return frozenset("memlib." + p.stem for p in root.glob("*.py") if p.stem != "__init__")


def _str(value: Any, what: str) -> str:
    if type(value) is not str:
        raise WireError(f"expected a string for {what}, got {type(value).__name__}")
    return value


def _list(data: dict, key: str) -> list:
    value = data.get(key)
    if type(value) is not list:
        raise WireError(f"expected a list for {key!r}")
    return value


# --------------------------------------------------------------------------- numpy's numbers

#: numpy dtypes that cross as values (numbers and truth values); anything else is a handle.
NUMPY_DTYPES = frozenset({"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                          "float16", "float32", "float64"})


def _numpy_state(value: Any, depth: int) -> dict | None:
    """A numpy scalar or array of a `NUMPY_DTYPES` dtype as data; None for anything else.

    numpy is looked up, never imported: a kernel that has no numpy loaded has no numpy values.
    """
    numpy = sys.modules.get("numpy")
    if numpy is None or not isinstance(value, (numpy.generic, numpy.ndarray)) or type(value).__module__ != "numpy":
        return None
    dtype = str(value.dtype)
    if dtype not in NUMPY_DTYPES:
        return None
    if isinstance(value, numpy.generic):
        return {"$": "numpy", "dtype": dtype, "value": encode(value.item(), None, depth + 1)}
    if value.ndim > MAX_DEPTH - depth:
        raise WireError(f"an array of {value.ndim} dimensions")
    return {"$": "numpy", "dtype": dtype, "shape": list(value.shape),
            "items": encode(value.tolist(), None, depth + 1)}


def _numpy_from(data: dict, depth: int) -> Any:
    import numpy

    dtype = _str(data.get("dtype"), "a dtype")
    if dtype not in NUMPY_DTYPES:
        raise WireError(f"not a numpy dtype that may cross: {dtype[:40]!r}")
    if "shape" not in data:
        item = decode(data.get("value"), None, depth + 1)
        if type(item) not in (bool, int, float):
            raise WireError("a numpy scalar holds a bool, an int or a float")
        try:
            return numpy.dtype(dtype).type(item)
        except (OverflowError, ValueError) as error:
            raise WireError(f"not a valid {dtype}: {error}") from None
    shape = _list(data, "shape")
    if not all(type(n) is int and n >= 0 for n in shape):
        raise WireError("an array's shape is a list of sizes")
    items = decode(data.get("items"), None, depth + 1)
    try:
        array = numpy.array(items, dtype=dtype)
    except (OverflowError, ValueError, TypeError) as error:
        raise WireError(f"not a valid {dtype} array: {error}") from None
    if array.size == 0 and 0 in shape:  # [] does not say which of an empty array's sizes is 0
        array = array.reshape(shape)
    if list(array.shape) != shape:
        raise WireError(f"an array of shape {list(array.shape)}, said to be {shape}")
    return array


# --------------------------------------------------------------------------- stateful memlib values


def _store_state(store: Any, handle: Any, depth: int) -> dict:
    return {"scorer": store.scorer_name, "page_size": store.page_size, "next_id": store.next_id,
            "records": [r.to_dict() for r in store], "history": [t.to_dict() for t in store.history()],
            "now": encode(store.clock(), None)}


def _store_from(state: Any, handle: Any, depth: int) -> Any:
    from memlib.archival import ArchivalRecord, ArchivalStore, Transition

    if type(state) is not dict:
        raise WireError("an archival store needs its parts")
    now = decode(state.get("now"))
    options = {"clock": (lambda: now)} if isinstance(now, datetime) else {}
    store = ArchivalStore(scorer=_str(state.get("scorer"), "a scorer"), page_size=state.get("page_size", 5),
                          next_id=state.get("next_id", 1), **options)
    store.add_records([ArchivalRecord.from_dict(_plain(r)) for r in _list(state, "records")],
                      [Transition.from_dict(_plain(t)) for t in _list(state, "history")])
    return store


def _plain(item: Any) -> dict:
    if type(item) is not dict:
        raise WireError("a record or transition that is not a dict")
    return dict(item)


def _core_state(core: Any, handle: Any, depth: int) -> Any:
    return core.to_dict()


def _core_from(state: Any, handle: Any, depth: int) -> Any:
    from memlib.core_memory import CoreMemory

    return CoreMemory.from_dict(state)


def _memory_state(memory: Any, handle: Any, depth: int) -> dict:
    """A MemorySystem by its parts, in the agent-save format's shapes (memlib.saves)."""
    from memlib.saves import context_to_dict

    return {"core": memory.core.to_dict(), "recall": [m.to_dict() for m in memory.recall],
            "recall_page_size": memory.recall.page_size, "archival": _store_state(memory.archival, None, depth),
            "context": context_to_dict(memory.context) if memory.context is not None else None,
            "session_id": memory.session_id, "turn_id": memory.turn_id, "outbox": list(memory.outbox),
            "now": encode(memory.clock(), None)}


def _memory_from(state: Any, handle: Any, depth: int) -> Any:
    from memlib.core_memory import CoreMemory
    from memlib.messages import Message
    from memlib.recall import RecallStore
    from memlib.saves import context_from_dict
    from memlib.tools import MemorySystem

    if type(state) is not dict:
        raise WireError("a memory system needs its parts")
    now = decode(state.get("now"))
    clock = (lambda: now) if isinstance(now, datetime) else None
    core = CoreMemory.from_dict(state.get("core"))
    recall = RecallStore(page_size=state.get("recall_page_size", 5))
    for item in _list(state, "recall"):
        recall.add(Message.from_dict(_plain(item)))
    archival = _store_from(state.get("archival"), None, depth)
    session = state.get("session_id")
    session = session if type(session) is str else None
    if state.get("context") is not None:
        context = context_from_dict(_plain(state["context"]), core, recall, None, None)
        memory = MemorySystem(context=context, archival=archival, session_id=session, clock=clock)
    else:
        memory = MemorySystem(core=core, archival=archival, recall=recall, session_id=session, clock=clock)
    memory.turn_id = state.get("turn_id") if type(state.get("turn_id")) is int else None
    memory.outbox = [str(s) for s in state.get("outbox") or []]
    return memory


def _view_state(view: Any, handle: Any, depth: int) -> dict:
    return {"user_message": encode(view.user_message, handle, depth + 1),
            "memory": encode(view.memory, handle, depth + 1),
            "calls": encode(view.calls, handle, depth + 1), "alerts": encode(view.alerts, handle, depth + 1),
            "calls_left": view.calls_left}


def _view_from(state: Any, handle: Any, depth: int) -> Any:
    from memlib.agent import AgentView

    if type(state) is not dict:
        raise WireError("an agent view needs its parts")
    left = state.get("calls_left")
    return AgentView(decode(state.get("user_message"), handle, depth + 1), decode(state.get("memory"), handle, depth + 1),
                     tuple(decode(state.get("calls"), handle, depth + 1) or ()),
                     tuple(decode(state.get("alerts"), handle, depth + 1) or ()),
                     left if type(left) is int else None)


def _probe_state(probe: Any, handle: Any, depth: int) -> dict:
    return {"script": [encode(entry, None, depth + 1) for entry in probe.script],
            "seen": [[list(names), left, list(alerts)] for names, left, alerts in probe.seen]}


def _probe_from(state: Any, handle: Any, depth: int) -> Any:
    from memlib.agent import ToolCall
    from memlib.course.doubles import ProbePolicy

    if type(state) is not dict:
        raise WireError("a probe policy needs its script")
    script = [decode(entry, None, depth + 1) for entry in _list(state, "script")]
    if not all(type(entry) is ToolCall or entry in (ProbePolicy.RAISE, ProbePolicy.MALFORMED) for entry in script):
        raise WireError("a probe policy's script holds only ToolCalls and its two markers")
    probe = ProbePolicy(script)
    for turn in _list(state, "seen"):
        if (type(turn) is not list or len(turn) != 3 or type(turn[0]) is not list or type(turn[2]) is not list
                or not all(type(x) is str for x in turn[0] + turn[2])
                or not (turn[1] is None or type(turn[1]) is int)):
            raise WireError("a probe policy's turn is [call names, calls_left, alerts]")
        probe.seen.append((tuple(turn[0]), turn[1], tuple(turn[2])))
    if len(probe.seen) > len(script):
        raise WireError("a probe policy saw more turns than its script holds")
    return probe
def _recall_state(recall: Any, handle: Any, depth: int) -> dict:
    return {"page_size": recall.page_size,
            "messages": [encode(m, None, depth + 2) for m in recall.messages]}


def _recall_from(state: Any, handle: Any, depth: int) -> Any:
    from memlib.messages import Message
    from memlib.recall import RecallStore

    if type(state) is not dict or set(state) != {"page_size", "messages"}:
        raise WireError("a recall store needs its page_size and messages")
    recall = RecallStore(page_size=state["page_size"])
    for item in _list(state, "messages"):
        message = decode(item, None, depth + 2)
        if type(message) is not Message or message.id < 0 or message.timestamp is None:
            raise WireError("a recall store holds messages with an id and a timestamp")
        recall.add(message)
    return recall


def _summarizer_state(summarizer: Any, handle: Any, depth: int) -> dict:
    from memlib.summarize import ExtractiveSummarizer

    if type(summarizer) is ExtractiveSummarizer:
        return {"user_weight": summarizer.user_weight, "assistant_weight": summarizer.assistant_weight}
    return {}


def _summarizer_from(cls_name: str) -> Callable[..., Any]:
    def rebuild(state: Any, handle: Any, depth: int) -> Any:
        from memlib import summarize

        cls = getattr(summarize, cls_name)
        if cls is summarize.ExtractiveSummarizer:
            if type(state) is not dict or set(state) != {"user_weight", "assistant_weight"} or not all(
                    type(state[k]) in (int, float) and math.isfinite(state[k]) for k in state):
                raise WireError("an ExtractiveSummarizer needs its two weights, as numbers")
            return cls(**state)
        if state != {}:
            raise WireError(f"a {cls_name} has no state")
        return cls()

    return rebuild


def _recording_state(recorder: Any, handle: Any, depth: int) -> dict:
    return {"inner": encode(recorder.inner, None, depth + 1),
            "calls": [[c.previous, [encode(m, None, depth + 3) for m in c.evicted], c.max_tokens, c.kind]
                      for c in recorder.calls]}


def _recording_from(state: Any, handle: Any, depth: int) -> Any:
    from memlib.course.doubles import RecordingSummarizer, SummaryCall
    from memlib.summarize import ExtractiveSummarizer, NoSummarizer, TruncatingSummarizer

    if type(state) is not dict or set(state) != {"inner", "calls"}:
        raise WireError("a recording summarizer needs its inner summarizer and its calls")
    calls = []
    for call in _list(state, "calls"):
        if type(call) is not list or len(call) != 4 or type(call[1]) is not list or type(call[2]) is not int:
            raise WireError("a recorded call is [previous, [messages], max_tokens, kind]")
        calls.append(SummaryCall(_str(call[0], "a summary"), tuple(decode(call[1], None, depth + 2)), call[2],
                                 _str(call[3], "a kind")))
    inner = decode(state["inner"], None, depth + 1)
    if type(inner) not in (NoSummarizer, TruncatingSummarizer, ExtractiveSummarizer):
        raise WireError("a recording summarizer wraps one of memlib's summarizers")
    return RecordingSummarizer(inner, calls)


_CODECS: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "memlib.archival:ArchivalStore": (_store_state, _store_from),
    "memlib.core_memory:CoreMemory": (_core_state, _core_from),
    "memlib.tools:MemorySystem": (_memory_state, _memory_from),
    "memlib.agent:AgentView": (_view_state, _view_from),
    "memlib.course.doubles:ProbePolicy": (_probe_state, _probe_from),
    "memlib.recall:RecallStore": (_recall_state, _recall_from),
    "memlib.summarize:NoSummarizer": (_summarizer_state, _summarizer_from("NoSummarizer")),
    "memlib.summarize:TruncatingSummarizer": (_summarizer_state, _summarizer_from("TruncatingSummarizer")),
    "memlib.summarize:ExtractiveSummarizer": (_summarizer_state, _summarizer_from("ExtractiveSummarizer")),
    "memlib.course.doubles:RecordingSummarizer": (_recording_state, _recording_from),
}


# --------------------------------------------------------------------------- text


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=True, separators=(",", ":"), allow_nan=False)


def check_size(text: str) -> None:
    """WireError when `text` is longer than MAX_CHARS or holds more than MAX_ITEMS items: checked before
    any parsing, in time linear in the text and with no memory beyond it."""
    if len(text) > MAX_CHARS:
        raise WireError(f"a value of {len(text):,} characters of JSON (at most {MAX_CHARS:,})")
    items = text.count("[") + text.count("{") + text.count(",")
    if items > MAX_ITEMS:
        raise WireError(f"a value of about {items:,} items (lists, dicts and their entries; at most {MAX_ITEMS:,})")


def loads(text: str) -> Any:
    check_size(text)
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:
        raise WireError(f"not JSON: {str(error)[:120]}") from None


def _no_constant(name: str) -> Any:
    raise WireError(f"{name} is not JSON")
