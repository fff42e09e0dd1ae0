"""llama-cpp-python's own request schema, read from its source distribution, for tests/test_llm.py.

llama-cpp-python's server (``python -m llama_cpp.server``) validates every request body with
the pydantic model `CreateChatCompletionRequest` (llama_cpp/server/types.py, built on the
TypedDicts of llama_cpp/llama_types.py); a body that does not fit is answered with HTTP 500
and the validation error, in an OpenAI-style error body. Installing the package compiles
llama.cpp, far too slow for CI, so .ci/run only downloads its sdist (pinned in
requirements-schemas.txt) into .venv/schemas, and this module executes those two pure-Python
files from the archive, without the compiled library (which they do not need: they only
declare types). `gate` then makes tests/chat_server.py answer like that server.

This module downloads nothing: without the archive the tests say how to fetch it (and fail
under CI=true, where .ci/run must have fetched it).
"""

from __future__ import annotations

import functools
import sys
import tarfile
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PINS = ROOT / "requirements-schemas.txt"
SDISTS = ROOT / ".venv" / "schemas"


def pinned_version(package: str = "llama-cpp-python") -> str:
    """The version requirements-schemas.txt pins for `package`."""
    for line in PINS.read_text(encoding="utf-8").splitlines():
        name, _, version = line.split("#")[0].strip().partition("==")
        if name.strip().lower() == package and version:
            return version.strip()
    raise LookupError(f"{PINS.name} pins no {package}")


def sdist_path() -> Path:
    version = pinned_version()
    return SDISTS / f"llama_cpp_python-{version}.tar.gz"


def missing() -> str:
    """Why the schema cannot be loaded here ("" when it can)."""
    path = sdist_path()
    if path.is_file():
        return ""
    return (f"llama-cpp-python's sdist is not at {path.relative_to(ROOT)}: run "
            f"pip download --no-deps --no-binary llama-cpp-python -r {PINS.name} -d {SDISTS.relative_to(ROOT)}")


def require() -> "LlamaCppSchema":
    """The loaded schema; skip saying how to fetch the sdist (fail under CI=true: .ci/run fetches it)."""
    from pg_server import skip_or_fail  # the suite's one rule for a missing requirement

    reason = missing()
    if reason:
        skip_or_fail(reason)
    return load()


@dataclass(frozen=True)
class LlamaCppSchema:
    version: str
    request_model: Any  # llama_cpp.server.types.CreateChatCompletionRequest (a pydantic model)
    response_adapter: Any  # a TypeAdapter of llama_cpp.llama_types.CreateChatCompletionResponse

    def problem(self, body: dict) -> str:
        """The server's validation error for this request body ("" when it validates)."""
        import pydantic

        try:
            self.request_model.model_validate(body)
        except pydantic.ValidationError as exc:
            return str(exc)
        return ""

    def check_response(self, body: dict) -> None:
        """Raise unless `body` has the shape of the server's own chat-completion answer."""
        self.response_adapter.validate_python(body)

    def gate(self, request: dict):
        """For ChatServer(gate=...): answer an invalid body as llama-cpp-python's server does."""
        from chat_server import Reply

        problem = self.problem(request)
        if not problem:
            return None
        # llama_cpp/server/errors.py: RouteErrorHandler turns any exception of the route,
        # the request's validation error included, into this 500.
        return Reply(500, {"error": {"message": problem, "type": "internal_server_error",
                                     "param": None, "code": None}})


@functools.lru_cache(maxsize=1)
def load() -> LlamaCppSchema:
    """Execute llama_types.py and server/types.py from the pinned sdist as the modules they are."""
    import pydantic

    path = sdist_path()
    version = pinned_version()
    wanted = {f"llama_cpp_python-{version}/llama_cpp/{name}": name for name in ("llama_types.py", "server/types.py")}
    sources: dict[str, str] = {}
    with tarfile.open(path) as archive:
        for member in archive:  # in order, stopping once both are read: most of the archive is llama.cpp
            if member.name in wanted:
                sources[wanted[member.name]] = archive.extractfile(member).read().decode("utf-8")
                if len(sources) == len(wanted):
                    break
    if len(sources) != len(wanted):
        raise LookupError(f"{path} lacks {sorted(set(wanted.values()) - set(sources))}")
    llama_types_source, server_types_source = sources["llama_types.py"], sources["server/types.py"]
    # types.py does `import llama_cpp` and reads the TypedDicts from the package, which
    # re-exports llama_types (its __init__ also loads the compiled library: not needed here).
    package = types.ModuleType("llama_cpp")
    package.__path__ = []
    llama_types = types.ModuleType("llama_cpp.llama_types")
    server = types.ModuleType("llama_cpp.server")
    server.__path__ = []
    server_types = types.ModuleType("llama_cpp.server.types")
    modules = {m.__name__: m for m in (package, llama_types, server, server_types)}
    saved = {name: sys.modules.get(name) for name in modules}
    sys.modules.update(modules)
    try:
        exec(compile(llama_types_source, f"{path}/llama_cpp/llama_types.py", "exec"), llama_types.__dict__)
        package.__dict__.update({k: v for k, v in llama_types.__dict__.items() if not k.startswith("_")})
        exec(compile(server_types_source, f"{path}/llama_cpp/server/types.py", "exec"), server_types.__dict__)
        request_model = server_types.CreateChatCompletionRequest
        request_model.model_rebuild()  # resolves every annotation now, while the modules are registered
        response_adapter = pydantic.TypeAdapter(llama_types.CreateChatCompletionResponse)
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return LlamaCppSchema(version, request_model, response_adapter)


# What FastAPI (which llama-cpp-python's server runs on) writes for a request that does not fit,
# as its error body's message: the count, then each pydantic error as a dict. Used to check that
# ChatPolicy recognises the real server's wording too, not only pydantic's own.
FASTAPI_STYLE_MESSAGE = (
    "1 validation error:\n  {'type': 'string_type', 'loc': ('body', 'messages', 2, 'typed-dict', "
    "'content'), 'msg': 'Input should be a valid string', 'input': None}\n"
    "  File \"llama_cpp/server/app.py\", line 1, in create_chat_completion\n    POST /v1/chat/completions"
)
