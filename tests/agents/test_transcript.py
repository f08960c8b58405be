"""The agent's transcript: both streams, the first and last halves of LIMIT kept, every secret
the job held replaced (as it is, base64-encoded or JSON-escaped), and no part of one left at a
cut. Exact outputs, a property over any placement and chunking (derandomised), and 64 KB of
adversarial input in linear time."""

from __future__ import annotations

import base64
import json
import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from baton.agents.secrets import REDACTED, secrets_of
from baton.agents.transcript import Kept, margin_of, render, with_json_forms
from support.property_budget import budget

SECRET = "SK9QZ7XW4VTR2PLM"  # letters and digits the filler below never uses
HELD = with_json_forms(secrets_of({"ANTHROPIC_API_KEY": SECRET}))


def kept(data: bytes, limit: int, chunk: int = 1 << 20) -> Kept:
    stream = Kept(limit, margin_of(HELD))
    for start in range(0, len(data), chunk):
        stream.feed(data[start : start + chunk])
    return stream


def test_a_short_run_is_kept_whole_with_its_secrets_replaced() -> None:
    out = kept(b'{"type":"result","result":"key ' + SECRET.encode() + b'"}\n', 1024)
    err = kept(b"warning: slow\n", 1024)

    text = render(command="claude -p", exit_status=0, stdout=out, stderr=err, held=HELD)

    assert text == (
        "# baton agent: claude -p\n# exit status 0\n"
        f'\n## standard output (50 bytes)\n{{"type":"result","result":"key {REDACTED}"}}\n\n'
        "\n## standard error (14 bytes)\nwarning: slow\n\n"
    )


def test_a_long_stream_keeps_its_start_and_end_and_says_how_much_is_left_out() -> None:
    data = b"a" * 100 + b"b" * 1000 + b"c" * 100
    stream = Kept(200)
    stream.feed(data)

    assert stream.text([]) == "a" * 100 + "\n[... 1,000 bytes left out ...]\n" + "c" * 100
    assert Kept(200).text([]) == ""


def test_a_secret_cut_by_the_limit_leaves_no_part_of_itself() -> None:
    """The head keeps 100 bytes and a margin; the first secret straddles where the margin ends,
    the second where the tail's margin begins: neither piece of either is shown."""
    margin = margin_of(HELD)
    secret = SECRET.encode()
    data = b"a" * (100 + margin - 5) + secret + b"b" * 500 + secret + b"c" * (100 + margin - 11)

    text = kept(data, 200).text(HELD)

    head, tail = text.split("\n[... ")
    assert head == "a" * 100 and tail.endswith("\n" + "c" * 100), text
    assert not re.search(r"[A-Z0-9]", text.replace(REDACTED, "").split("\n[...")[0])
    assert SECRET[:5] not in text and SECRET[-11:] not in text


def test_a_secret_as_base64_or_escaped_in_a_json_string_is_replaced() -> None:
    quoted = 'pass"word\\with-quotes'
    held = with_json_forms(secrets_of({"DB_PASSWORD": quoted}))
    line = json.dumps({"tool_result": f"DB_PASSWORD={quoted}"}).encode()
    encoded = base64.b64encode(quoted.encode())

    text = Kept(4096, margin_of(held))
    text.feed(line + b"\n" + encoded + b"\n")

    assert text.text(held) == f'{{"tool_result": "DB_PASSWORD={REDACTED}"}}\n{REDACTED}\n'


def test_a_run_out_of_time_says_so() -> None:
    text = render(command="x", exit_status=None, stdout=Kept(), stderr=Kept(), held=[])
    assert text.startswith("# baton agent: x\n# ran out of time\n")


# --- properties ---------------------------------------------------------------------------
filler = st.binary(max_size=400).map(lambda data: data.translate(FILLER))
FILLER = bytes.maketrans(
    bytes(range(256)), (b'ab \n{}:,"' * 29)[:256]
)  # every byte mapped into an alphabet without the secret's characters


@settings(budget(200), derandomize=True)
@given(st.lists(filler, min_size=1, max_size=6), st.integers(1, 64), st.integers(40, 600))
def test_no_part_of_a_secret_survives_any_placement_chunking_and_limit(
    pieces: list[bytes], chunk: int, limit: int
) -> None:
    data = SECRET.encode().join(pieces)

    text = kept(data, limit, chunk).text(HELD)

    shown = re.sub(r"\n\[\.\.\. [0-9,]+ bytes left out \.\.\.\]\n", "", text)
    assert not re.search(r"[A-Z0-9]", shown.replace(REDACTED, "")), text
    assert len(shown.encode()) <= limit + 2 * margin_of(HELD)


# --- bounded work -------------------------------------------------------------------------
def test_64_kb_of_near_misses_is_kept_and_redacted_in_linear_time() -> None:
    near = (SECRET[:-1] + "!" + SECRET[:8]).encode()  # almost the secret, over and over
    small = (near * 4096)[: 16 * 1024]
    large = (near * 16384)[: 64 * 1024]
    held = with_json_forms(secrets_of({f"KEY_{n}": SECRET[n:] + SECRET[:n] for n in range(8)}))

    def seconds(data: bytes) -> float:
        started = time.process_time()
        for _ in range(5):
            stream = Kept(1 << 20, margin_of(held))
            for start in range(0, len(data), 7):  # a writer that dribbles
                stream.feed(data[start : start + 7])
            stream.text(held)
        return time.process_time() - started

    seconds(small)  # warm up
    assert seconds(large) < 2.0
    assert seconds(large) < 12 * max(seconds(small), 0.01)
