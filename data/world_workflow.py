"""A coding agent on one repository for three days: the workflow-memory scenario.

Ines Halloran's team repository `kestrel/heron-ingest` (Project Heron, the scan
pipeline) gets a coding agent for three working days. Each day has its own bug,
whose context (the ticket, the failing log, the line that was wrong) matters
that day only and belongs in the context window. A few things are durable and
worth keeping in long-term memory: where the auth module lives, the command that
runs the tests, and the reviewer's style rules. Each is said once; some are said
again (a restatement) and the test command changes on day 2 (a new flag). Day 3
ends with questions whose answers depend on what was learned.

Content plus a small assembler, like the other `world_*.py`. `rules` and `tasks`
are the hand-written answer key: which statements are durable, where each was
said, how it gets confirmed, and what the day-3 questions should get. Nothing
here is computed from memlib; `memlib.workflow` is judged against this key.

Run from a checkout:  python data/world_workflow.py   (writes workflow_sessions.json;
re-running it gives the identical file).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "workflow_sessions.json"
REPOSITORY = "kestrel/heron-ingest"

# (session id, day, start time, the day's bug)
SESSIONS = [
    ("w1", "2026-07-06", "09:05", "HERON-412: Hull scanners get 401 after the nightly token rotation"),
    ("w2", "2026-07-07", "09:20", "HERON-415: duplicate scan events from Doncaster after a reconnect"),
    ("w3", "2026-07-08", "08:55", "HERON-419: Wakefield scan times are an hour off after a scanner firmware update"),
]

# Every message: (role, content, extras). Roles: user (Ines), assistant (the coding
# agent), tool (a shell command's output or a review comment). `local=True` marks
# the bug's context: useful in the window today, not worth keeping.
U, A = "user", "assistant"


def shell(command: str, exit_code: int, output: str, local: bool = False) -> tuple:
    return ("tool", output, {"tool": "shell", "command": command, "exit_code": exit_code, "local": local})


def review(content: str, path: str | None = None) -> tuple:
    return ("tool", content, {"tool": "review", "author": "Olu", "path": path})


DAY1 = [
    (U, "Morning. Ticket HERON-412: since last night the Hull scanners get 401 Unauthorized after the "
        "nightly token rotation at 00:00. Can you find out why?", {"local": True}),
    (A, "I'll look for where scanner tokens are refreshed.", {}),
    shell("grep -rn 'def refresh_token' src/", 0,
          "src/heron/auth/session.py:88:def refresh_token(session, now):\n"
          "src/heron/legacy/ftp_auth.py:12:def refresh_token(user):"),
    (A, "The auth module lives in `src/heron/auth/session.py`: that is where `refresh_token` is. "
        "`src/heron/legacy/ftp_auth.py` looks like the old SFTP login.", {}),
    (U, "Yes, `src/heron/auth/session.py` is the one. The legacy folder is dead code.", {}),
    shell("pytest -q", 2,
          "ImportError while loading conftest '/repo/tests/conftest.py':\n"
          "ModuleNotFoundError: No module named 'heron'", local=True),
    (A, "The package is not installed, so the tests cannot import `heron`. I'll put `src` on the path.", {}),
    shell("PYTHONPATH=src pytest -q tests/", 1,
          "F.......................................\n"
          "FAILED tests/auth/test_session.py::test_refresh_after_rotation - "
          "AssertionError: token expires 2026-07-06 00:00:00, expected 2026-07-07 00:00:00\n"
          "1 failed, 41 passed in 3.12s", local=True),
    (A, "The suite runs now, and one test reproduces the bug: after the rotation the new token gets "
        "the old expiry, because `refresh_token` copies `session.expires_at` before rotating.", {"local": True}),
    (U, "Makes sense. Fix it so the expiry is computed after the rotation.", {"local": True}),
    (A, "Done: `refresh_token` now rotates first and then sets `expires_at = now + TOKEN_TTL`.", {"local": True}),
    shell("PYTHONPATH=src pytest -q tests/", 0, "..........................................\n42 passed in 3.08s"),
    (U, "Great, open a PR and ask Olu to review.", {}),
    (A, "PR #231 is open: 'Compute token expiry after rotation', with the failing test as its regression test.", {"local": True}),
    review("Please keep lines under 100 characters; our ruff config has line-length = 100 "
           "and line 91 is 112.", path="src/heron/auth/session.py"),
    review("Every public function in src/heron/auth needs a docstring, even the small ones.",
           path="src/heron/auth/session.py"),
    review("The fix itself looks right to me: rotating before computing the expiry is the order the "
           "token service expects.", path="src/heron/auth/session.py"),
    review("Commit messages start with the ticket id, like 'HERON-412: compute expiry after rotation'."),
    (A, "I wrapped line 91, added the two docstrings and reworded the commit.", {"local": True}),
    shell("PYTHONPATH=src pytest -q tests/", 0, "..........................................\n42 passed in 3.11s"),
    (U, "Thanks. Olu approved it; merge when it is green.", {"local": True}),
]

DAY2 = [
    (U, "New ticket, HERON-415: Doncaster sends duplicate scan events after a scanner reconnects, and "
        "the planner counts some parcels twice.", {"local": True}),
    (A, "I'll run the tests first to see where we stand.", {}),
    shell("PYTHONPATH=src pytest -q tests/", 4,
          "ERROR: usage: pytest [options] [file_or_dir]\n"
          "conftest.py: error: the integration tests now need --kafka-stub (added in HERON-414)"),
    (A, "The suite needs a new flag since HERON-414 was merged yesterday; trying it with `--kafka-stub`.", {}),
    shell("PYTHONPATH=src pytest -q --kafka-stub tests/", 0,
          "..................................................\n50 passed in 4.40s"),
    (U, "Yes, `PYTHONPATH=src pytest -q --kafka-stub tests/` is the test command now; the stub replaces "
        "the real broker.", {}),
    (A, "The dedup window lives in `src/heron/dedup/window.py`; it keys on depot and scanner but not "
        "on the sequence number, so a reconnect replays events with new keys.", {"local": True}),
    (U, "Right, add the sequence number to the key. And to remind you: the auth module lives in "
        "`src/heron/auth/session.py`, in case the reconnect touches tokens.", {}),
    (A, "The config module lives in `src/heron/settings.py`, judging by the imports; I'll read the "
        "dedup window length from there.", {}),
    (U, "No, `src/heron/settings.py` is a leftover. The config module lives in `src/heron/config/` now.", {}),
    (A, "Thanks: the window length comes from `src/heron/config/dedup.toml` then. Key fixed to "
        "(depot, scanner, sequence).", {"local": True}),
    shell("PYTHONPATH=src pytest -q --kafka-stub tests/dedup", 1,
          "F........\nFAILED tests/dedup/test_window.py::test_reconnect_replay - "
          "assert 2 == 1 (the replayed event kept its old sequence number 0)\n1 failed, 8 passed in 0.91s",
          local=True),
    (A, "The replay test still fails: a reconnect resets the sequence to 0, so I also key on the "
        "scanner's boot id.", {"local": True}),
    shell("PYTHONPATH=src pytest -q --kafka-stub tests/", 0,
          "...................................................\n51 passed in 4.52s"),
    review("Imports go in three groups, standard library, third party, then heron, each sorted; "
           "ruff's isort rule checks it.", path="src/heron/dedup/window.py"),
    review("Never log a raw token; pass it through redact() from src/heron/auth/tokens.py first.",
           path="src/heron/dedup/window.py"),
    (A, "Regrouped the imports and removed the debug line that printed the session token.", {"local": True}),
    (U, "Good. Ship it.", {"local": True}),
]

DAY3 = [
    (U, "Last one for this week, HERON-419: since Sunday's firmware update the Wakefield scan times are "
        "an hour off in the planner.", {"local": True}),
    (A, "The new firmware sends local time (BST) without an offset; I'll convert in the parser.", {"local": True}),
    shell("PYTHONPATH=src pytest -q --kafka-stub tests/", 0,
          "...................................................\n51 passed in 4.49s"),
    review("Lines under 100 characters, please: the new parser line 40 is 104.",
           path="src/heron/parse/scan_time.py"),
    (U, "Before you push, a few questions so I know you have the routine.", {}),
    # the tasks (questions) follow; see TASKS, which point at these turns
]

# The day-3 questions, asked as the last user messages of w3. `needs` names the
# procedure a question depends on (empty: the answer is not a procedure and
# must come from the conversation history); `answer` is the phrase a correct
# reply contains.
TASKS = [
    ("Which command runs the test suite?", "PYTHONPATH=src pytest -q --kafka-stub tests/", ["test_command"]),
    ("Which flag does the test run need?", "--kafka-stub", ["test_command"]),
    ("Which file holds the auth module?", "src/heron/auth/session.py", ["path.auth"]),
    ("Where does the config module live now?", "src/heron/config/", ["path.config"]),
    ("What line length does Olu want?", "100", ["style.line_length"]),
    ("How should the commit message for HERON-419 start?", "ticket id", ["style.commit_messages"]),
    ("Do public functions in the auth package need docstrings?", "docstring", ["style.docstrings"]),
    ("How should imports be grouped?", "standard library, third party, then heron", ["style.imports"]),
    ("What do I do with a token before logging it?", "redact()", ["style.logging"]),
    ("What was the ticket number of Monday's 401 bug?", "HERON-412", []),
]

# The answer key for procedural memory: every durable statement, in order.
# (name, value, where it is said: (session, index in that day's list), source,
#  kind, how it gets confirmed: (by, session, index) or None while it stays pending)
# `value` is the identifier-like part of the statement (a command, a path, the line
# length) or, for another style rule, the reviewer's sentence. A rule the user states
# is confirmed where it is said; one the agent or a tool suggests waits for a confirmation.
RULES = [
    ("path.auth", "src/heron/auth/session.py", ("w1", 3), "assistant", "new", ("user", "w1", 4)),
    ("test_command", "PYTHONPATH=src pytest -q tests/", ("w1", 11), "tool", "new",
     ("rule:succeeded-twice", "w1", 19)),
    ("style.line_length", "100", ("w1", 14), "review", "new", ("rule:reviewer", "w1", 14)),
    ("style.docstrings", DAY1[15][1], ("w1", 15), "review", "new", ("rule:reviewer", "w1", 15)),
    ("style.commit_messages", DAY1[17][1], ("w1", 17), "review", "new", ("rule:reviewer", "w1", 17)),
    ("test_command", "PYTHONPATH=src pytest -q --kafka-stub tests/", ("w2", 4), "tool", "changed",
     ("user", "w2", 5)),
    ("path.auth", "src/heron/auth/session.py", ("w2", 7), "user", "restated", ("user", "w2", 7)),
    ("path.config", "src/heron/settings.py", ("w2", 8), "assistant", "rejected", None),
    ("path.config", "src/heron/config/", ("w2", 9), "user", "new", ("user", "w2", 9)),
    ("style.imports", DAY2[14][1], ("w2", 14), "review", "new", ("rule:reviewer", "w2", 14)),
    ("style.logging", DAY2[15][1], ("w2", 15), "review", "new", ("rule:reviewer", "w2", 15)),
    ("style.line_length", "100", ("w3", 3), "review", "restated", ("rule:reviewer", "w3", 3)),
]
# The rejected candidate is rejected by the user's next message.
REJECTIONS = [("path.config", "src/heron/settings.py", ("w2", 9))]

# Retrieval probes for "workflow retrieval is not profile retrieval": each asks
# for one procedure, either by its exact identifier or in other words. Written
# with the rules above, before any search was run on them.
LOOKUPS = [
    ("src/heron/auth/session.py", "identifier", "path.auth"),
    ("--kafka-stub", "identifier", "test_command"),
    ("PYTHONPATH=src pytest", "identifier", "test_command"),
    ("ruff line-length = 100", "identifier", "style.line_length"),
    ("redact() tokens.py", "identifier", "style.logging"),
    ("src/heron/config/", "identifier", "path.config"),
    ("isort import groups", "identifier", "style.imports"),
    ("HERON-412 commit", "identifier", "style.commit_messages"),
    ("where does the login code live", "paraphrase", "path.auth"),
    ("how do I run the checks before pushing", "paraphrase", "test_command"),
    ("how wide may a line of code be", "paraphrase", "style.line_length"),
    ("what goes at the front of a commit summary", "paraphrase", "style.commit_messages"),
    ("must small helpers be documented", "paraphrase", "style.docstrings"),
    ("which order for the modules we pull in", "paraphrase", "style.imports"),
    ("can I print a secret while debugging", "paraphrase", "style.logging"),
    ("where are the settings kept", "paraphrase", "path.config"),
]


def _messages() -> tuple[list[dict], dict[tuple[str, int], int]]:
    """All messages with ids and timestamps; also (session, index) -> turn id."""
    rows: list[dict] = []
    where: dict[tuple[str, int], int] = {}
    turn = 0
    for (sid, day, start, _bug), script in zip(SESSIONS, (DAY1, DAY2, DAY3 + _task_turns())):
        clock = datetime.fromisoformat(f"{day}T{start}:00")
        for index, (role, content, extras) in enumerate(script):
            turn += 1
            row = {"session_id": sid, "turn_id": turn, "role": role, "timestamp": clock.isoformat(),
                   "content": content}
            row.update({k: v for k, v in extras.items() if k != "local"})
            row["local"] = bool(extras.get("local", False))
            rows.append(row)
            where[(sid, index)] = turn
            # A working pace: two minutes a message, five for a command to run.
            clock += timedelta(minutes=5 if role == "tool" else 2)
    return rows, where


def _task_turns() -> list[tuple]:
    return [(U, question, {}) for question, _answer, _needs in TASKS]


def build() -> dict:
    messages, where = _messages()
    by_turn = {m["turn_id"]: m for m in messages}
    rules = []
    for n, (name, value, (sid, index), source, kind, confirm) in enumerate(RULES, 1):
        turn = where[(sid, index)]
        said = by_turn[turn]
        if said["role"] != ("tool" if source in ("tool", "review") else source):
            raise ValueError(f"rule {name} says source {source} but turn {turn} is {said['role']}")
        if source == "tool" and said.get("command") != value:
            raise ValueError(f"rule {name}: turn {turn} ran {said.get('command')!r}, not {value!r}")
        if source != "tool" and value not in said["content"]:
            raise ValueError(f"rule {name}: {value!r} is not in turn {turn}")
        if said["local"]:
            raise ValueError(f"rule {name} comes from turn {turn}, which is marked session-local")
        row = {"id": f"rule-{n:02d}", "name": name, "value": value, "kind": kind, "source": source,
               "session_id": sid, "turn_id": turn, "confirmed_by": None, "confirmed_turn_id": None}
        if confirm is not None:
            by, csid, cindex = confirm
            row["confirmed_by"], row["confirmed_turn_id"] = by, where[(csid, cindex)]
        rules.append(row)
    rejected = []
    for name, value, (sid, index) in REJECTIONS:
        turn = where[(sid, index)]
        if value not in by_turn[turn]["content"]:
            raise ValueError(f"rejection of {value!r}: not named in turn {turn}")
        rejected.append({"name": name, "value": value, "turn_id": turn})
    first_task = len(DAY3)
    tasks = []
    names = {r["name"] for r in rules}
    for n, (question, answer, needs) in enumerate(TASKS, 1):
        unknown = set(needs) - names
        if unknown:
            raise ValueError(f"task {question!r} needs unknown rules {sorted(unknown)}")
        if needs and not any(answer in r["value"] for r in rules if r["name"] in needs):
            raise ValueError(f"task {question!r}: no value of {needs} contains the answer {answer!r}")
        tasks.append({"id": f"task-{n:02d}", "session_id": "w3", "turn_id": where[("w3", first_task + n - 1)],
                      "question": question, "answer": answer, "needs": list(needs),
                      "source": "procedures" if needs else "recall"})
    for t in tasks:
        if not t["needs"] and not any(t["answer"] in m["content"] for m in messages if m["session_id"] == "w1"):
            raise ValueError(f"{t['id']}: the recall answer {t['answer']!r} is not in day 1")
    lookups = [{"id": f"lookup-{n:02d}", "query": q, "kind": kind, "needs": name}
               for n, (q, kind, name) in enumerate(LOOKUPS, 1)]
    for lk in lookups:
        if lk["needs"] not in names:
            raise ValueError(f"{lk['id']} needs unknown rule {lk['needs']!r}")
    sessions = [{"id": sid, "day": day, "bug": bug,
                 "first_turn_id": min(m["turn_id"] for m in messages if m["session_id"] == sid),
                 "last_turn_id": max(m["turn_id"] for m in messages if m["session_id"] == sid)}
                for sid, day, _start, bug in SESSIONS]
    return {"repository": REPOSITORY, "sessions": sessions, "messages": messages, "rules": rules,
            "rejected": rejected, "tasks": tasks, "lookups": lookups}


def render(data: dict) -> str:
    return json.dumps(data, indent=1, ensure_ascii=True) + "\n"


def main() -> None:
    OUT.write_text(render(build()), encoding="utf-8")
    data = json.loads(OUT.read_text(encoding="utf-8"))
    print(f"wrote {OUT.name}: {len(data['sessions'])} sessions, {len(data['messages'])} messages, "
          f"{len(data['rules'])} rule statements, {len(data['tasks'])} tasks, {len(data['lookups'])} lookups")


if __name__ == "__main__":
    main()
