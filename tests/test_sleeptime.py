"""Tests for memlib.sleeptime (the background consolidation agent) and memlib.viz.timeline."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memlib.archival import ArchivalStore
from memlib.core_memory import CoreMemory
from memlib.sleeptime import BY, SleepTimeAgent, next_session_view, text_merges
from memlib.viz.timeline import timeline_figure, timeline_rows
from memlib.workflow import BLOCK_LABEL, ProceduralMemory, ScenarioClock, TimelineEvent, load_scenario, run_scenario


@pytest.fixture(scope="module")
def scenario():
    return load_scenario()


@pytest.fixture(scope="module")
def runs(scenario):
    return {sleep: run_scenario(scenario, sleep_time=sleep) for sleep in (False, True)}


def small_memory():
    clock = ScenarioClock("2026-07-06T09:00")
    memory = ProceduralMemory(ArchivalStore(clock=clock), CoreMemory.default(), clock=clock)
    old = memory.learn("test_command", "pytest -q", source="user", session_id="w1", turn_id=1)
    memory.append_line(old)
    clock.set("2026-07-06T10:00")
    same = memory.learn("path.auth", "src/auth.py", source="user", session_id="w1", turn_id=2)
    memory.append_line(same)
    clock.set("2026-07-07T09:00")
    new = memory.learn("test_command", "pytest -q --stub", source="user", session_id="w2", turn_id=3)
    memory.append_line(new)
    again = memory.learn("path.auth", "src/auth.py", source="user", session_id="w2", turn_id=4)
    memory.append_line(again)
    waiting = memory.learn("path.config", "src/settings.py", source="assistant", session_id="w2", turn_id=5)
    return memory, clock, (old, same, new, again, waiting)


def snapshot(memory):
    return ([r.to_dict() for r in memory.archival], len(memory.archival.history()), memory.core.to_json())


def test_a_run_supersedes_changed_and_restated_rules_and_deletes_nothing():
    memory, clock, (old, same, new, again, waiting) = small_memory()
    count = len(memory.archival)
    agent = SleepTimeAgent(memory)
    events = agent.run("2026-07-07T19:00")
    assert len(memory.archival) == count
    status = {r.id: r.status for r in memory.rules()}
    assert status[old.id] == status[same.id] == "superseded"
    assert status[new.id] == status[again.id] == "active" and status[waiting.id] == "pending"
    assert memory.archival.get(old.id).superseded_by == new.id
    log = [t for t in memory.archival.history() if t.action == "supersede"]
    assert {t.record_id for t in log} == {old.id, same.id} and all(t.by == BY for t in log)
    assert all(t.at >= agent.runs[0].started for t in log)
    reasons = {t.record_id: t.reason for t in log}
    assert reasons[same.id].startswith("restated") and reasons[old.id].startswith("changed")
    # the block: one line per rule, the current ones only
    block = memory.core.get(BLOCK_LABEL).value.splitlines()
    assert [line.split(":")[0] for line in block] == ["path.auth", "test_command"]
    assert "--stub" in block[1] and new.id in block[1]
    kinds = [e.kind for e in events]
    assert kinds[0] == "sleep_run" and kinds.count("supersede") == 2 and "block_rewrite" in kinds
    assert {e.who for e in events} == {BY}
    assert agent.runs[0].left_pending == (waiting.id,)


def test_a_second_run_has_nothing_to_do():
    memory, clock, _ = small_memory()
    agent = SleepTimeAgent(memory)
    agent.run("2026-07-07T19:00")
    before = snapshot(memory)
    agent.run("2026-07-07T20:00")
    after = snapshot(memory)
    assert after[0] == before[0] and after[2] == before[2]
    assert agent.runs[1].superseded == ()


def test_a_run_in_the_past_is_refused_and_changes_nothing():
    memory, clock, _ = small_memory()
    before = snapshot(memory)
    with pytest.raises(ValueError, match="before the memory's clock"):
        SleepTimeAgent(memory).run("2026-07-06T08:00")
    with pytest.raises(ValueError):
        SleepTimeAgent(memory).run("not a time")
    assert snapshot(memory) == before


def test_bad_construction_is_refused():
    memory, _, _ = small_memory()
    with pytest.raises(TypeError, match="ProceduralMemory"):
        SleepTimeAgent(object())
    with pytest.raises(ValueError, match="positive timedelta"):
        SleepTimeAgent(memory, step=timedelta(0))


def test_sleep_time_runs_interleave_with_the_sessions(runs):
    events = runs[True].events
    sessions = [e for e in events if e.kind == "session"]
    sleeps = [e for e in events if e.kind == "sleep_run"]
    assert len(sessions) == 3 and len(sleeps) == 2
    for before, sleep, after in zip(sessions, sleeps, sessions[1:]):
        assert before.end < sleep.at <= sleep.end < after.at
    assert not any(e.who == BY for e in runs[False].events)


def test_what_the_next_session_sees_with_and_without_sleep_time(runs):
    plain, slept = runs[False].views["w3"], runs[True].views["w3"]
    assert plain["stale_lines"] > 0 and plain["duplicate_lines"] > 0 and plain["stale_hits"] > 0
    assert slept["stale_lines"] == slept["duplicate_lines"] == slept["stale_hits"] == slept["duplicate_hits"] == 0
    assert slept["block_chars"] < plain["block_chars"]


def test_next_session_view_counts_by_hand():
    memory, clock, (old, same, new, again, waiting) = small_memory()
    view = next_session_view(memory, ["pytest", "src/auth.py"])
    assert view["block_lines"] == 4 and view["duplicate_lines"] == 2 and view["stale_lines"] == 1
    assert view["stale_hits"] == 2  # the old test command and the older copy of the path


def test_text_merges_compares_without_changing_anything():
    memory, _, _ = small_memory()
    before = snapshot(memory)
    report = text_merges(memory, same_tags=False)
    assert set(report.records) == {r.id for r in memory.rules() if r.status == "active"}
    assert snapshot(memory) == before


def test_timeline_figure_has_a_row_per_agent(runs):
    import plotly.graph_objects as go

    fig = timeline_figure(runs[True].events)
    assert type(fig) is go.Figure
    assert list(fig.layout.yaxis.categoryarray) == ["sleep-time", "primary"]
    names = {t.name for t in fig.data}
    assert {"session", "sleep run", "supersede", "block rewrite", "confirm"} <= names
    assert timeline_rows(runs[False].events) == ["primary"]
    fig.to_json()  # serialisable: renders without a widget
    assert fig.layout.yaxis.title.text == "agent"
    assert fig.layout.xaxis.title.text == "time (nights from 21:00 to 8:00 left out)"
    assert timeline_figure(runs[True].events, hide_hours=None).layout.xaxis.title.text == "time"


def test_timeline_figure_refuses_bad_input():
    with pytest.raises(ValueError, match="empty"):
        timeline_figure([])
    with pytest.raises(TypeError, match="TimelineEvent"):
        timeline_figure([{"who": "primary"}])
    with pytest.raises(TypeError):
        timeline_figure("events")
    night = [TimelineEvent("sleep-time", "2026-07-06T23:30", "sleep_run", "x", end="2026-07-06T23:40")]
    with pytest.raises(ValueError, match="hidden hours"):
        timeline_figure(night)
    assert len(timeline_figure(night, hide_hours=None).data) == 1
    with pytest.raises(ValueError, match="before it starts"):
        TimelineEvent("primary", "2026-07-06T10:00", "session", "x", end="2026-07-06T09:00")
