"""memlib.saves: whole agents save and load, all or nothing, and damaged saves fail clearly."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from memlib import saves
from memlib.messages import Message
from memlib.saves import AgentSaveError, load_agent, save_agent
from memlib.storage import SQLiteArchivalStore
from test_storage import QUERIES, corpus, fill, results

# ---------------------------------------------------------------------------
# whole agents


def _agent(tmp_path):
    from memlib.context import MainContext
    from memlib.core_memory import CoreMemory
    from memlib.summarize import TruncatingSummarizer

    core = CoreMemory.default(persona="I am a careful assistant.", human="Name: Ines")
    ctx = MainContext(window=400, core_memory=core, summarizer=TruncatingSummarizer())
    for i in range(40):
        ctx.append(Message.user(f"turn {i}: remember that item {i} costs {i * 3} euros"))
        if i % 10 == 0:
            ctx.append(Message.assistant("calling a tool", tool_call_id=f"c{i}", name="calc"))
            ctx.append(Message.tool(str(i), tool_call_id=f"c{i}", name="calc"))
    archival = SQLiteArchivalStore(tmp_path / "a.db", page_size=3, synchronous="NORMAL")
    fill(archival, corpus(50))
    return core, ctx, archival


def test_save_and_load_a_whole_agent(tmp_path):
    core, ctx, archival = _agent(tmp_path)
    assert ctx.summary  # the scenario really evicted and summarised
    save_agent(tmp_path / "save", context=ctx, archival=archival)
    agent = load_agent(tmp_path / "save")
    assert agent.core_memory == core
    assert agent.context.messages == ctx.messages and agent.context.summary == ctx.summary
    assert agent.context.used == ctx.used and agent.context.segments() == ctx.segments()
    assert agent.recall.messages == ctx.recall.messages
    assert [r.to_dict() for r in agent.archival] == [r.to_dict() for r in archival]
    assert agent.archival.page_size == 3
    for query in QUERIES:
        assert results(agent.archival, query) == results(archival, query)
    # the loaded agent carries on exactly like the original
    # one timestamp for both: recall stamps a message to the second, and the two appends can straddle one
    for c in (ctx, agent.context):
        c.append(Message.user("one more message after the restart", timestamp=datetime(2026, 3, 1, 9, 30)))
    assert agent.context.messages == ctx.messages and agent.context.used == ctx.used
    assert "SavedAgent(" in repr(agent) and "archival=70 records" in repr(agent)
    manifest = json.loads((tmp_path / "save" / "manifest.json").read_text())
    assert manifest["format_version"] == saves.SAVE_FORMAT_VERSION
    assert set(manifest["files"]) == {"core_memory.json", "context.json", "archival.jsonl",
                                      "archival_history.jsonl", "recall.jsonl"}


def test_partial_saves_and_overwrite(tmp_path):
    core, ctx, archival = _agent(tmp_path)
    save_agent(tmp_path / "save", archival=archival)
    agent = load_agent(tmp_path / "save")
    assert agent.context is None and agent.core_memory is None and len(agent.archival) == 70
    with pytest.raises(FileExistsError, match="overwrite=True"):
        save_agent(tmp_path / "save", core_memory=core)
    save_agent(tmp_path / "save", core_memory=core, overwrite=True)
    agent = load_agent(tmp_path / "save")
    assert agent.archival is None and agent.core_memory == core
    (tmp_path / "mine").mkdir()
    with pytest.raises(FileExistsError, match="not a memlib agent save"):
        save_agent(tmp_path / "mine", core_memory=core, overwrite=True)
    with pytest.raises(ValueError, match="nothing to save"):
        save_agent(tmp_path / "empty")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_crash_while_saving_keeps_the_old_save(tmp_path, monkeypatch):
    core, ctx, archival = _agent(tmp_path)
    save_agent(tmp_path / "save", core_memory=core)
    before = {p.name: p.read_bytes() for p in (tmp_path / "save").iterdir()}
    calls = []

    def failing_write(path, data):
        calls.append(path)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        Path(path).write_bytes(data)

    monkeypatch.setattr(saves, "_write_synced", failing_write)
    with pytest.raises(OSError, match="No space"):
        save_agent(tmp_path / "save", context=ctx, archival=archival, overwrite=True)
    assert {p.name: p.read_bytes() for p in (tmp_path / "save").iterdir()} == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".save")]  # no temp dirs left


@pytest.mark.parametrize("damage, message", [
    (lambda d: (d / "manifest.json").unlink(), "manifest.json is missing"),
    (lambda d: (d / "manifest.json").write_text("{not json"), "not valid JSON"),
    (lambda d: _edit_manifest(d, format_version=0), "format version 0.*older than this memlib"),
    (lambda d: _edit_manifest(d, format_version=99), "format version 99.*newer than this memlib"),
    (lambda d: _edit_manifest(d, format="something-else"), "does not describe a memlib agent save"),
    (lambda d: (d / "archival.jsonl").unlink(), "archival.jsonl is listed in the manifest but missing"),
    (lambda d: _truncate(d / "recall.jsonl"), "recall.jsonl is .* bytes, the manifest says"),
    (lambda d: _flip_byte(d / "context.json"), "context.json does not match its sha256"),
    (lambda d: _resign(d, "archival.jsonl", b'{"id": "x"}\n'), r"archival.jsonl, line 1: cannot be loaded"),
    (lambda d: _resign(d, "archival.jsonl", b'not json\n'), r"archival.jsonl, line 1: not valid JSON"),
    (lambda d: _resign(d, "core_memory.json", b'{"blocks": 3}'), r"core_memory.json: cannot be loaded"),
])
def test_damaged_or_old_saves_fail_clearly_and_load_nothing(tmp_path, damage, message):
    core, ctx, archival = _agent(tmp_path)
    save_agent(tmp_path / "save", context=ctx, archival=archival)
    damage(tmp_path / "save")
    with pytest.raises(AgentSaveError, match=message):
        load_agent(tmp_path / "save")


def test_load_needs_a_directory(tmp_path):
    with pytest.raises(AgentSaveError, match="not a directory"):
        load_agent(tmp_path / "nothing-here")


def _edit_manifest(d, **changes):
    manifest = json.loads((d / "manifest.json").read_text())
    manifest.update(changes)
    (d / "manifest.json").write_text(json.dumps(manifest))


def _truncate(path):
    path.write_bytes(path.read_bytes()[:-10])


def _flip_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _resign(d, name, data):
    # A file whose checksum matches but whose content is wrong (e.g. written by a bug).
    import hashlib

    (d / name).write_bytes(data)
    manifest = json.loads((d / "manifest.json").read_text())
    manifest["files"][name] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    (d / "manifest.json").write_text(json.dumps(manifest))


def test_saved_agent_never_reuses_a_deleted_archival_id(tmp_path):
    from memlib.archival import ArchivalStore
    from memlib.saves import load_agent, save_agent

    store = ArchivalStore()
    store.insert("kept fact")
    store.delete(store.insert("deleted fact").id)
    save_agent(tmp_path / "save", archival=store)
    loaded = load_agent(tmp_path / "save").archival
    assert loaded.insert("new fact").id == "arc-000003"


def test_a_version_1_save_still_loads(tmp_path):
    from memlib.archival import ArchivalStore

    store = ArchivalStore()
    store.insert("Ines prefers window seats")
    save_agent(tmp_path / "save", archival=store)
    (tmp_path / "save" / "archival_history.jsonl").unlink()
    manifest = json.loads((tmp_path / "save" / "manifest.json").read_text())
    del manifest["files"]["archival_history.jsonl"]
    manifest["format_version"] = 1
    (tmp_path / "save" / "manifest.json").write_text(json.dumps(manifest))
    loaded = load_agent(tmp_path / "save").archival
    assert [r.text for r in loaded] == ["Ines prefers window seats"] and loaded.history() == []


# ---------------------------------------------------------------------------
# paging profiles: any profile saves and loads, and behaves the same after loading


def _profiled_context(profile):
    from memlib.context import MainContext
    from memlib.summarize import TruncatingSummarizer

    ctx = MainContext(window=500, summarizer=TruncatingSummarizer(), profile=profile)
    for i in range(30):
        ctx.append(Message.user(f"turn {i}: remember that item {i} costs {i * 3} euros"))
        if i % 7 == 0:
            ctx.append(Message.assistant(f"noted item {i}"))
    return ctx


def _state(ctx):
    return ([(m.id, m.role, m.content) for m in ctx.messages], ctx.summary, ctx.used, len(ctx.recall))


@pytest.mark.parametrize("evict", ["to_share", "token_share", "count_share", "partial_evict", "sliding_window"])
def test_a_custom_profile_of_each_eviction_rule_saves_loads_and_behaves_the_same(tmp_path, evict):
    from memlib.context import PROFILES, PagingProfile

    mine = PagingProfile(f"mine-{evict}", "a test's own numbers", warn_at=0.6 if evict == "to_share" else None,
                         trigger="after_append" if evict == "count_share" else "before_append",
                         trigger_at=0.85, evict=evict, amount=0.4, keep_last=1 if evict != "sliding_window" else 0)
    assert mine.name not in PROFILES
    ctx = _profiled_context(mine)
    save_agent(tmp_path / "save", context=ctx)
    loaded = load_agent(tmp_path / "save").context
    assert loaded.profile == mine and (loaded.warn_at, loaded.flush_at, loaded.evict_to) == (
        ctx.warn_at, ctx.flush_at, ctx.evict_to)
    assert _state(loaded) == _state(ctx)
    for i in range(25):  # the same messages from here on: the same evictions, summary and budget
        message = Message.user(f"later {i}: the tram to Belem leaves at {i % 12 + 1} o'clock from stop {i}")
        assert [(e.kind, e.message and e.message.content) for e in ctx.append(message)] == \
               [(e.kind, e.message and e.message.content) for e in loaded.append(message)]
    assert _state(loaded) == _state(ctx)


def test_a_named_profile_comes_back_as_itself(tmp_path):
    from memlib.context import PROFILES

    save_agent(tmp_path / "save", context=_profiled_context("letta"))
    assert load_agent(tmp_path / "save").context.profile is PROFILES["letta"]


def test_a_save_from_before_profiles_were_saved_whole_still_loads(tmp_path):
    from memlib.context import PROFILES

    for name, expected in (("memgpt", PROFILES["memgpt"]), (None, None)):
        d = tmp_path / f"save-{name}"
        save_agent(d, context=_profiled_context(name))
        state = json.loads((d / "context.json").read_text())
        del state["paging_profile"]
        _resign(d, "context.json", json.dumps(state).encode())
        loaded = load_agent(d).context
        if expected is not None:
            assert loaded.profile is expected
        else:  # no profile: the paper's thresholds, kept as explicit numbers
            assert (loaded.warn_at, loaded.flush_at, loaded.evict_to) == (0.7, 1.0, 0.5)


@pytest.mark.parametrize("bad, message", [
    ("fast", "a paging profile is a dict of its fields"),
    ({"name": "x"}, "missing"),
])
def test_a_damaged_saved_profile_fails_clearly(tmp_path, bad, message):
    d = tmp_path / "save"
    save_agent(d, context=_profiled_context("paper"))
    state = json.loads((d / "context.json").read_text())
    state["paging_profile"] = bad
    _resign(d, "context.json", json.dumps(state).encode())
    with pytest.raises(AgentSaveError, match=f"context.json: cannot be loaded .*{message}"):
        load_agent(d)
