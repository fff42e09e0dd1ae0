"""Run a notebook's code cells in a fresh kernel and record what the grader saw.

This is the grader's only result channel. For each code cell the grader sends
an ``execute_request`` over the kernel's shell socket and reads back, itself:
the ``execute_reply`` (its status, and the error it names) and the cell's
output messages on the iopub socket. A cell fails when the reply is not
``ok`` or the cell produced an ``error`` output; no file, variable or module
the kernel can reach is ever read, and the only process the grader signals is
the one it started (held as a `subprocess.Popen`, never a pid read back).

It follows nbval's lax mode, which the course's tests use: cells tagged
``nbval-skip`` (or starting with ``# NBVAL_SKIP``) are not run, a cell tagged
``nbval-raises-exception`` passes when it raises, outputs are not compared.

Limits enforced here, on the grader's side of the socket, whatever the kernel
does to its own streams: a per-cell time limit (interrupt, then kill if the
cell ignores the interrupt), a per-notebook time limit (kill), and caps on
the output kept, per cell (`OUTPUT_CAP_CHARS`) and per notebook
(`NOTEBOOK_OUTPUT_CAP_CHARS`). Every kind of output counts toward them: a
stream's text, a display's or a result's ``text/plain``, an error's name,
message and traceback lines, plus `OUTPUT_OVERHEAD_CHARS` for each output
(and `LINE_OVERHEAD_CHARS` per traceback line), so a flood of small or empty
outputs fills them too. Past a cap every further output is read and dropped,
and the cell keeps one note saying how many outputs and characters were
dropped, and a short copy of its last error when that was dropped
(`CELL_EXTRA_CHARS` at most, both). So a flood costs time, never the
grader's memory: of one notebook the grader holds at most
``NOTEBOOK_OUTPUT_CAP_CHARS + CELL_EXTRA_CHARS`` per code cell run of
output (4,000,000 characters, plus 4,000 per cell; a graded cell's exchange
with the checker has its own ``OUTPUT_CAP_CHARS``), and its executed.ipynb
holds that besides the notebook's own cells (about 4 MB of plain text; JSON
writes a character in 1 to 6 bytes). Messages not yet read are bounded
apart, by the sockets: at most 256 queued per socket (``RCVHWM``), each at
most `MAX_MESSAGE_BYTES` (a flood of 800 KB errors held about 200 MB there).
The kernel is started by `memlib.course.sandbox`; this module does not
decide points.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty
from typing import Any, Callable

from memlib.course.sandbox import Kernel, Sandbox
# a cell's statuses, one vocabulary with the checks' and the gradebook's
from memlib.course.status import DIED, ERROR, NOT_RUN, NOTEBOOK_TIMEOUT, OK, SKIPPED, TIMEOUT  # noqa: F401

__all__ = ["CellRun", "NotebookRun", "run_notebook", "is_skipped", "OUTPUT_CAP_CHARS"]

#: Characters of output kept per cell (all streams and displays together); the rest is read and dropped.
OUTPUT_CAP_CHARS = 1_000_000
#: Characters of output kept per notebook, all its cells together: what the grader holds of one
#: notebook's output (and writes to its executed.ipynb) stays bounded however many cells print.
#: A graded cell's exchange with the checker has its own per-cell cap (the reply travels there).
NOTEBOOK_OUTPUT_CAP_CHARS = 4_000_000
#: Largest single message accepted from the kernel; a larger one drops the connection (which then reconnects).
MAX_MESSAGE_BYTES = 64 * 2**20
#: Most JSON values (objects, arrays, commas counted) in one part of a message the grader parses: 64 MiB of
#: ``{},`` is 15 million objects, over a gigabyte once parsed. A larger part is dropped unparsed.
MAX_MESSAGE_VALUES = 1_000_000
KERNEL_START_SECONDS = 60.0
# How long an interrupted cell has to stop before its kernel is killed (and its traceback, which tells the
# student where the loop was, lost): with 5 s, CI under load once lost it for a loop flooding output.
INTERRUPT_GRACE_SECONDS = 10.0
# After the execute reply, how long to wait for the cell's last output and its "idle" status. The reply
# comes on the shell socket and can come before output still queued on iopub; a kernel that never says
# idle costs this once per cell.
IDLE_WAIT_SECONDS = 10.0
LOG_TAIL_CHARS = 4000
ERROR_CHARS = 20_000  # of an error's message, and of each line of its traceback (its last 40 lines)
ENAME_CHARS = 200  # of an error's name
#: An error that no longer fits in full is kept short: its message, and its last lines, each shortened.
SHORT_ERROR_CHARS = 1_000
SHORT_ERROR_LINES = 5
SHORT_ERROR_LINE_CHARS = 500
#: What one output counts toward the caps besides its text (its type, its keys, its JSON), and each traceback line.
OUTPUT_OVERHEAD_CHARS = 100
LINE_OVERHEAD_CHARS = 10
#: Past its cap a cell keeps one note on what was dropped and a short copy of its last error, at most this much.
CELL_EXTRA_CHARS = 4_000


#: Answers the kernel's ``input(prompt)`` calls during one execution: prompt -> the line to send back.
Respond = Callable[[str], str]
#: ``execute(code, seconds, respond=None) -> (status, stdout, traceback)``: run code in the notebook's kernel
#: (`run_notebook`).
Execute = Callable[..., tuple[str, str, list[str]]]


#: What a dropped part of a message reads as: a header no request matches, content with no output.
_DROPPED: dict = {"msg_id": "", "msg_type": "", "dropped_by_grader": True}


def json_values(text: str | bytes) -> int:
    """About how many values a JSON text holds (its commas, arrays and objects), counted in C, nothing built:
    what parsing it would cost is known before it is parsed."""
    if isinstance(text, str):
        return text.count(",") + text.count("[") + text.count("{")
    return text.count(b",") + text.count(b"[") + text.count(b"{")


def _bounded_unpack(data: bytes) -> Any:
    """One part of a kernel's message, parsed; a part of more than `MAX_MESSAGE_VALUES` JSON values is not
    parsed and reads as `_DROPPED`: its output is lost, the grader's memory kept."""
    raw = bytes(data)
    if json_values(raw) > MAX_MESSAGE_VALUES:
        return dict(_DROPPED)
    return json.loads(raw.decode("utf8", "replace"))  # as jupyter_client's own unpacker reads it


@dataclass
class CellRun:
    """What the grader observed of one code cell."""

    index: int  # position among the notebook's cells
    status: str  # ok / error / timeout (interrupted) / died (the kernel died in it) / not-run / skipped
    ename: str = ""
    evalue: str = ""
    traceback: list[str] = field(default_factory=list)
    stdout: str = ""
    outputs: list[dict] = field(default_factory=list)
    output_chars: int = 0  # everything the cell printed, kept or not
    output_kept: int = 0  # what the grader kept of it
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.status not in (OK, SKIPPED)


@dataclass
class NotebookRun:
    cells: list[CellRun]
    start_error: str = ""
    notebook_timed_out: bool = False
    died_in: int | None = None  # index of the cell in which the kernel died or was killed
    log_tail: str = ""

    def cell(self, index: int) -> CellRun | None:
        return next((c for c in self.cells if c.index == index), None)


def is_skipped(cell: dict) -> bool:
    """nbval does not run this cell (tag ``nbval-skip`` or a first line ``# NBVAL_SKIP``)."""
    tags = cell.get("metadata", {}).get("tags", [])
    first = cell.get("source", "").lstrip().splitlines()[:1]
    return (isinstance(tags, list) and "nbval-skip" in tags) or bool(first and first[0].strip().upper() == "# NBVAL_SKIP")


def _expects_error(cell: dict) -> bool:
    tags = cell.get("metadata", {}).get("tags", [])
    first = cell.get("source", "").lstrip().splitlines()[:1]
    return (isinstance(tags, list) and "nbval-raises-exception" in tags) or bool(
        first and first[0].strip().upper() == "# NBVAL_RAISES_EXCEPTION"
    )


class _Tail:
    """Keeps the last characters the kernel process wrote to its own stdout / stderr."""

    def __init__(self, stream: Any) -> None:
        self.text = ""
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream: Any) -> None:
        while True:
            chunk = stream.read(65536)
            if not chunk:
                break
            self.text = (self.text + chunk.decode("utf-8", errors="replace"))[-LOG_TAIL_CHARS:]


class _Output:
    """Output of one cell, capped as it arrives.

    Every kept output counts toward the cap: its text (a stream's text, a display's ``text/plain``, an
    error's name, message and traceback lines) plus `OUTPUT_OVERHEAD_CHARS` for the output itself and
    `LINE_OVERHEAD_CHARS` per traceback line, so a flood of small or empty outputs fills it too. Past the
    cap every further output is read and dropped; `finish` leaves one note saying how much was dropped
    and, when the cell's last error was dropped, a short copy of it (at most `CELL_EXTRA_CHARS` both).
    """

    def __init__(self, cap: int, why: str = "") -> None:
        self.cap = cap
        self.why = why or f"output of this cell cut after {cap:,} characters"
        self.kept = 0  # characters kept, overheads included (what the cap counts)
        self.total = 0  # characters of text received, kept or not
        self.outputs: list[dict] = []
        self.stdout: list[str] = []
        self.last_error: dict | None = None  # the cell's last error, as kept (or in its short form)
        self.last_error_kept = False
        self.dropped_outputs = 0
        self.dropped_chars = 0
        self.cut = False  # once set, every further output is dropped

    def _text(self, text: str) -> str:
        """What fits of `text` as one new output ('' when nothing does: then it is counted as dropped)."""
        self.total += len(text)
        room = self.cap - self.kept - OUTPUT_OVERHEAD_CHARS
        if room <= 0 or self.cut:
            self.dropped_outputs += 1
            self.dropped_chars += len(text)
            self.cut = True
            return ""
        kept = text[:room]
        self.kept += len(kept) + OUTPUT_OVERHEAD_CHARS
        if len(kept) < len(text):
            self.dropped_chars += len(text) - len(kept)
            self.cut = True
        return kept

    def add(self, msg_type: str, content: dict) -> None:
        if msg_type == "stream":
            text = str(content.get("text", ""))
            if not text:
                return
            name = "stderr" if content.get("name") == "stderr" else "stdout"
            text = self._text(text)
            if text:
                self.outputs.append({"output_type": "stream", "name": name, "text": text})
                if name == "stdout":
                    self.stdout.append(text)
        elif msg_type in ("display_data", "execute_result"):
            data = content.get("data", {})
            plain = str(data.get("text/plain", "")) if isinstance(data, dict) else ""
            if not plain:
                return
            text = self._text(plain)
            if text:
                self.outputs.append({"output_type": "display_data", "data": {"text/plain": text}, "metadata": {}})
        elif msg_type == "error":
            # the message and traceback lines are shortened before anything else is done with them
            error = _error(content, ERROR_CHARS, 40, ERROR_CHARS)
            size = _error_size(error)
            traceback = content.get("traceback", [])
            raw = (len(str(content.get("ename", ""))) + len(str(content.get("evalue", "")))
                   + sum(len(str(line)) for line in (traceback if isinstance(traceback, list) else [])))
            self.total += raw
            if not self.cut and self.kept + size > self.cap:  # short, it may still fit: after a flood
                error = _short_error(error)                    # of prints the traceback is what the student reads
                size = _error_size(error)
            if not self.cut and self.kept + size <= self.cap:
                self.kept += size
                self.outputs.append(error)
                self.last_error, self.last_error_kept = error, True
            else:
                self.dropped_outputs += 1
                self.dropped_chars += raw
                self.cut = True
                self.last_error, self.last_error_kept = _short_error(error), False

    def finish(self) -> None:
        """The note on what was dropped, and the cell's last error if it was dropped (short)."""
        if not self.cut:
            return
        dropped = (f"{self.dropped_outputs:,} more output{'s' if self.dropped_outputs != 1 else ''} and "
                   if self.dropped_outputs else "")
        self.outputs.append({"output_type": "stream", "name": "stderr",
                             "text": f"\n[grader: {self.why}; {dropped}{self.dropped_chars:,} characters dropped]\n"})
        if self.last_error is not None and not self.last_error_kept:
            self.outputs.append(self.last_error)


def _error(content: dict, evalue_chars: int, lines: int, line_chars: int) -> dict:
    traceback = content.get("traceback", [])
    traceback = list(traceback[-lines:]) if isinstance(traceback, list) else []
    return {
        "output_type": "error",
        "ename": str(content.get("ename", ""))[:ENAME_CHARS],
        "evalue": str(content.get("evalue", ""))[:evalue_chars],
        "traceback": [str(line)[:line_chars] for line in traceback],
    }


def _short_error(error: dict) -> dict:
    return _error(error, SHORT_ERROR_CHARS, SHORT_ERROR_LINES, SHORT_ERROR_LINE_CHARS)


def _error_size(error: dict) -> int:
    return (OUTPUT_OVERHEAD_CHARS + len(error["ename"]) + len(error["evalue"])
            + sum(len(line) + LINE_OVERHEAD_CHARS for line in error["traceback"]))


def run_notebook(
    nb: dict,
    sandbox: Sandbox,
    job_dir: Path,
    support: list[Path],
    *,
    cell_timeout: float,
    timeout: float,
    output_cap: int = OUTPUT_CAP_CHARS,
    notebook_output_cap: int = NOTEBOOK_OUTPUT_CAP_CHARS,
    instead: dict[int, Callable[[Execute], CellRun]] | None = None,
) -> NotebookRun:
    """Execute `nb`'s code cells in order in a new kernel; `job_dir` is this run's private scratch folder.

    `instead` maps a cell's index to what the grader does there in place of
    running the cell (a graded cell's check, `memlib.course.checker`): it gets
    an ``execute(code, seconds, respond=None) -> (status, stdout, traceback)``
    that runs code in this kernel under this notebook's limits (`respond`
    answers the code's ``input()`` calls), and returns the cell's `CellRun`.
    """
    from jupyter_client.blocking import BlockingKernelClient
    import zmq

    started = time.monotonic()
    notebook_deadline = started + timeout
    work = job_dir / "work"
    work.mkdir(parents=True, exist_ok=True)
    # the sandbox says where the sockets are (the kernel's "ip" for transport ipc)
    connection = {"transport": "ipc", "shell_port": 1, "iopub_port": 2, "stdin_port": 3, "control_port": 4,
                  "hb_port": 5, "key": secrets.token_hex(32), "signature_scheme": "hmac-sha256", "kernel_name": ""}
    # normalised: `../venv/bin/python` names a folder the sandbox does not have (it binds the interpreter's own)
    argv = [os.path.abspath(sys.executable), "-m", "ipykernel_launcher", "--HistoryManager.hist_file=:memory:",
            "--IPKernelApp.quiet=True"]
    cells = nb.get("cells", [])
    result = NotebookRun([])
    # jupyter_client 8 wants a zmq.Context here, 7.x (Colab's) a zmq.asyncio.Context: ask the client.
    context_class = getattr(BlockingKernelClient.class_traits()["context"], "klass", None)  # an Instance trait
    context = (context_class if isinstance(context_class, type) else zmq.Context)()
    context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
    context.setsockopt(zmq.RCVHWM, 256)
    left = notebook_output_cap  # of the notebook's output budget
    client = None
    kernel: Kernel | None = None
    process: subprocess.Popen | None = None
    tail: _Tail | None = None
    try:
        kernel = sandbox.start(argv, connection, work, support, stdout=subprocess.PIPE)
        process = kernel.process
        tail = _Tail(process.stdout)
        client = BlockingKernelClient(context=context)
        info: Any = kernel.connection  # jupyter_client types it as a TypedDict of its own
        client.load_connection_info(info)
        client.session.unpack = _bounded_unpack
        client.start_channels()
        problem = _wait_ready(client, process, min(notebook_deadline, time.monotonic() + KERNEL_START_SECONDS))
        if problem:
            result.start_error = problem
        else:
            kernel.seal()  # before the first cell: no notebook code has run yet
        dead_since: int | None = None if not problem else -1
        for index, cell in enumerate(cells):
            if cell.get("cell_type") != "code":
                continue
            if is_skipped(cell):
                result.cells.append(CellRun(index, SKIPPED))
                continue
            if dead_since is not None or result.notebook_timed_out:
                result.cells.append(CellRun(index, NOT_RUN))
                continue
            if instead and index in instead:
                def execute(code: str, seconds: float, respond: Respond | None = None,
                            index: int = index) -> tuple[str, str, list[str]]:
                    done = _execute(client, process, {"source": code}, index, seconds, notebook_deadline, output_cap,
                                    store_history=False, respond=respond)
                    return done.status, done.stdout, done.traceback

                run = instead[index](execute)
                result.cells.append(run)
                if process.poll() is not None:  # the answer killed its kernel: nothing after this runs
                    dead_since = result.died_in = index
                    continue
                if run.status == TIMEOUT:
                    continue  # the check gave up on a slow answer; the kernel was interrupted, not killed
            else:
                run = _execute(client, process, cell, index, cell_timeout, notebook_deadline, min(output_cap, left),
                               why="" if left >= output_cap else
                               f"output cut: the notebook's cells printed {notebook_output_cap:,} characters in all")
                left = max(0, left - run.output_kept)
                result.cells.append(run)
            if run.status == OK or run.status == ERROR:
                if _expects_error(cell):
                    run.status = OK if run.status == ERROR else ERROR
                continue
            if run.status == NOTEBOOK_TIMEOUT:
                run.status = NOT_RUN
                result.notebook_timed_out = True
            elif run.status == DIED or (run.status == TIMEOUT and process.poll() is not None):
                dead_since = result.died_in = index  # (a cell that ignored its interrupt was killed)
    finally:
        if client is not None:
            try:
                client.stop_channels()
            except Exception:  # pragma: no cover - closing sockets of a dead kernel
                pass
        if process is not None:
            _kill(process)
        if kernel is not None:
            kernel.close()
        context.destroy(linger=0)
        if tail is not None:
            tail.thread.join(timeout=2)
            result.log_tail = tail.text
    return result


def _wait_ready(client: Any, process: subprocess.Popen, deadline: float) -> str:
    """'' once the kernel answers kernel_info, else why it did not."""
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return f"the kernel exited while starting (exit code {process.returncode})"
        msg_id = client.kernel_info()
        until = min(deadline, time.monotonic() + 2.0)
        while time.monotonic() < until:
            try:
                reply = client.get_shell_msg(timeout=0.2)
            except Empty:
                if process.poll() is not None:
                    break
                continue
            if reply.get("parent_header", {}).get("msg_id") == msg_id and _iopub_heard(client, msg_id):
                _drain(client)
                return ""
    return "the kernel did not start in time"


def _iopub_heard(client: Any, msg_id: str) -> bool:
    """Whether iopub carried the kernel's status for request `msg_id`. Until the subscription has reached
    the kernel, what it publishes is lost (ZeroMQ's publish/subscribe): a first cell's whole print was."""
    until = time.monotonic() + 3.0  # (it comes within milliseconds once subscribed)
    while time.monotonic() < until:
        try:
            msg = client.get_iopub_msg(timeout=0.1)
        except Empty:
            continue
        if msg.get("parent_header", {}).get("msg_id") == msg_id:
            return True
    return False


def _drain(client: Any) -> None:
    while True:
        try:
            client.get_iopub_msg(timeout=0.05)
        except Empty:
            return


def _execute(client: Any, process: subprocess.Popen, cell: dict, index: int, cell_timeout: float,
             notebook_deadline: float, cap: int, store_history: bool = True, respond: Respond | None = None,
             why: str = "") -> CellRun:
    started = time.monotonic()
    output = _Output(cap, why)
    msg_id = client.execute(cell.get("source", ""), store_history=store_history, allow_stdin=respond is not None,
                            stop_on_error=False)
    deadline = min(started + cell_timeout, notebook_deadline)
    interrupted = False
    reply: dict | None = None
    reply_at = 0.0
    idle = False
    status = ""
    poller = None
    if respond is not None:  # wait on both sockets: a request for input must not wait for output
        import zmq

        poller = zmq.Poller()
        poller.register(client.iopub_channel.socket, zmq.POLLIN)
        poller.register(client.stdin_channel.socket, zmq.POLLIN)
    while True:
        if poller is not None:
            poller.poll(50)
        try:
            msg = client.get_iopub_msg(timeout=0 if poller is not None else 0.05)
        except Empty:
            msg = None
        if msg is not None and msg.get("parent_header", {}).get("msg_id") == msg_id:
            kind = msg.get("msg_type", "")
            if kind == "status" and msg.get("content", {}).get("execution_state") == "idle":
                idle = True
            else:
                output.add(kind, msg.get("content", {}))
        if respond is not None and reply is None:
            try:
                asked = client.get_stdin_msg(timeout=0)
            except Empty:
                asked = None
            if (asked is not None and asked.get("msg_type") == "input_request"
                    and asked.get("parent_header", {}).get("msg_id") == msg_id):
                client.input(respond(str(asked.get("content", {}).get("prompt", ""))))
        # (the time limits are checked after every message: a flood of output must not stop the clock)
        if reply is None:
            try:
                candidate = client.get_shell_msg(timeout=0)
            except Empty:
                candidate = None
            if candidate is not None and candidate.get("parent_header", {}).get("msg_id") == msg_id:
                reply, reply_at = candidate, time.monotonic()
        now = time.monotonic()
        if reply is not None and (idle or now > min(reply_at + IDLE_WAIT_SECONDS, notebook_deadline)):
            break
        if reply is None and process.poll() is not None:
            status = DIED
            break
        if reply is None and now > deadline:
            if now >= notebook_deadline:
                _kill(process)
                status = NOTEBOOK_TIMEOUT
                break
            if not interrupted:
                interrupted = True
                _interrupt(client, process)
                deadline = min(now + INTERRUPT_GRACE_SECONDS, notebook_deadline)
                continue
            _kill(process)
            status = TIMEOUT
            break
    content = reply.get("content", {}) if reply else {}
    output.finish()
    if (isinstance(content, dict) and content.get("status") == "error"
            and (output.last_error is None or output.last_error["ename"] != str(content.get("ename", ""))[:ENAME_CHARS])):
        # the cell's own error output never arrived (iopub drops messages when a flood fills its queue); the
        # reply, on the shell socket, says what the error was: its short form is the cell's last output
        output.last_error = _short_error(content)
        output.outputs.append(output.last_error)
    run = CellRun(index, status or OK, outputs=output.outputs, stdout="".join(output.stdout),
                  output_chars=output.total, output_kept=output.kept, seconds=time.monotonic() - started)
    if reply is not None and content.get("status") != "ok" or output.last_error is not None:
        # the last error output as kept (or short), else the reply's own, short: bounded either way
        error = output.last_error or _short_error(content if isinstance(content, dict) else {})
        run.ename = (str(content.get("ename") or error["ename"])[:ENAME_CHARS]
                     or str(content.get("status", "error"))[:ENAME_CHARS])
        run.evalue = error["evalue"] or str(content.get("evalue", ""))[:SHORT_ERROR_CHARS]
        run.traceback = list(error["traceback"]) or _short_error(content)["traceback"]
        if not status:
            run.status = ERROR
    if interrupted and run.status in (OK, ERROR):
        run.status = TIMEOUT
    return run


def _interrupt(client: Any, process: subprocess.Popen) -> None:
    """Ask the kernel to interrupt itself (an ``interrupt_request`` on its control socket)."""
    try:
        client.control_channel.send(client.session.msg("interrupt_request", {}))
    except Exception:  # pragma: no cover - a kernel whose socket is gone is killed next
        pass


def _kill(process: subprocess.Popen) -> None:
    """Kill the process the grader started (and its process group); never any other pid."""
    # Its process group too, even after it exited: a group id is not reused
    # while members remain, so this reaches only what the kernel left behind.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass
    if process.poll() is None:
        try:
            process.kill()
        except OSError:
            pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover - a process that ignores SIGKILL
        pass
