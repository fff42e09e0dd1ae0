"""`python -m memlib demo` and the command-line dispatcher."""

import re
import subprocess
import sys

import pytest

from memlib.__main__ import SUBCOMMANDS, build_parser, main, run_demo


@pytest.fixture(scope="module")
def demo_output():
    result = subprocess.run(
        [sys.executable, "-m", "memlib", "demo"], capture_output=True, text=True, encoding="utf-8", timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


@pytest.mark.slow
def test_demo_shows_the_lesson_scenario(demo_output):
    key_lines = [
        # persona and user facts in core memory
        "core_memory_append(label='persona', content='I am Sam, a patient study buddy.'",
        "core_memory_append(label='human', content='Name: Ada'",
        '<human characters="9/2000">',
        # three facts archived
        "archived as [arc-000001 · session s1 turn",
        "archived as [arc-000002 · session s1 turn",
        "archived as [arc-000003 · session s1 turn",
        "archival memory holds 3 records",
        # pressure, alert and eviction
        "pressure     memory pressure:",
        "alert        [memory pressure]",
        "out of main context (still in recall storage)",
        "flush        evicted",
        "'Remember that my sister Maya is allergic to peanuts.': evicted from main context, kept in recall storage",
        # the follow-up answered from archival memory with a citation
        "archival_memory_search(query='sister allergic'",
        "send_message Your sister Maya is allergic to peanuts. [arc-000001 · session s1 turn",
        "citation check (memlib.citations.verify): OK",
        # conversation_search finds the evicted turn
        "conversation_search(query='dentist'",
        'user: I have a dentist appointment on Friday at 9.',
        "every message is still in recall storage",
    ]
    missing = [line for line in key_lines if line not in demo_output]
    assert not missing, f"demo output lacks {missing}:\n{demo_output}"


@pytest.mark.slow
def test_demo_explains_each_term_where_it_first_appears(demo_output):
    lines = demo_output.splitlines()

    def first(pattern: str) -> int:
        return next(i for i, line in enumerate(lines) if re.search(pattern, line))

    # flush and evict: the header says what they do before any trace line uses them
    assert first(r"\bflush\b") == first(r"a flush evicts the oldest") < first(r"^\s+flush\s")
    assert "Every message went into recall storage" in lines[first(r"\bflush\b") + 1]
    # heartbeat: the line after the first mention
    assert lines[first(r"heartbeat") + 1].strip().startswith("(heartbeat: the tool call asks for another turn")
    # the message range of an eviction: the line after the first one, with its own numbers
    evict = first(r"#\d+\.\.#\d+")
    low, high = re.search(r"#(\d+)\.\.#(\d+)", lines[evict]).groups()
    assert lines[evict + 1].strip().startswith(f"(#{low}..#{high}: the messages numbered {low} to {high};")
    # each explanation once
    assert sum("(heartbeat:" in line for line in lines) == 1 and sum("the messages numbered" in line for line in lines) == 1


@pytest.mark.slow
def test_the_demos_search_finds_what_was_said_not_the_question_asking(demo_output):
    search = demo_output.split("conversation_search(query='dentist'", 1)[1]
    hits = re.findall(r"^\s+\d+\. \[msg #\d+ .*$", search.split("send_message", 1)[0], re.M)
    assert hits and "I have a dentist appointment on Friday at 9." in hits[0]
    assert not any("What did I tell you about the dentist?" in hit for hit in hits)


@pytest.mark.slow
def test_demo_is_deterministic_and_short(demo_output):
    lines = []
    assert run_demo(lines.append) == 0
    assert "\n".join(lines) + "\n" == demo_output
    assert len(lines) < 120


def test_help_lists_every_subcommand(capsys):
    assert main([]) == 2
    text = capsys.readouterr().err
    for name in ["demo", *SUBCOMMANDS]:
        assert name in text
    assert build_parser().parse_args(["demo"]).command == "demo"


def test_unknown_subcommand_is_a_usage_error():
    with pytest.raises(SystemExit) as exc:
        main(["frobnicate"])
    assert exc.value.code == 2


def test_missing_subcommand_module_exits_2_with_a_message(capsys, monkeypatch):
    monkeypatch.setitem(SUBCOMMANDS, "extra", ("memlib.no_such_module_here", "an optional part"))
    assert main(["extra", "--quick"]) == 2
    assert "not available in this installation (memlib.no_such_module_here is missing)" in capsys.readouterr().err


def test_subcommands_get_their_arguments_untouched(monkeypatch):
    import types

    seen = []
    fake = types.ModuleType("memlib_fake_release")
    fake.main = lambda argv: seen.append(argv) or 0
    monkeypatch.setitem(sys.modules, "memlib_fake_release", fake)
    monkeypatch.setitem(SUBCOMMANDS, "release", ("memlib_fake_release", "release"))
    assert main(["release", "solutions/", "notebooks/", "--check"]) == 0
    assert seen == [["solutions/", "notebooks/", "--check"]]
