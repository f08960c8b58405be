"""The agent's transcript, kept to debug a run with: what the CLI printed on standard output
(its JSON stream, when asked for one) and on standard error, written beside the result as
`baton-transcript.txt`, which the agent job uploads with it.

It is bounded: of each stream, the first and the last LIMIT // 2 bytes are kept, and a line
says how many were left out between them. Every secret value the job held is replaced by
`[secret]` (agents/secrets.py: as it is, base64-encoded, and as a JSON string escapes it, since
the CLIs' streams quote tool output as JSON). A cut never leaves part of a secret behind: each
kept piece is redacted with a margin as long as the longest form of a secret beyond the cut,
and the margin is dropped after, with whatever half of a secret was in it. Linear in the
length of what the agent printed.
"""

from __future__ import annotations

import json

from baton.agents import secrets

TRANSCRIPT_FILE = "baton-transcript.txt"
LIMIT = 512 * 1024  # bytes of each stream kept (half from its start, half from its end)


def with_json_forms(held: list[secrets.Secret]) -> list[secrets.Secret]:
    """Each secret also as a JSON string holds it (`"` and `\\` escaped, control characters
    as `\\u00XX`), where that differs."""
    found = []
    for secret in held:
        raw = secret.forms[0].decode("utf-8", "surrogateescape")
        escaped = json.dumps(raw)[1:-1].encode("utf-8", "surrogateescape")
        forms = secret.forms if escaped in secret.forms else (*secret.forms, escaped)
        found.append(secrets.Secret(name=secret.name, forms=forms))
    return found


def margin_of(held: list[secrets.Secret]) -> int:
    """The longest form of any secret, in bytes: how far past a cut a secret can reach."""
    return max((len(form) for secret in held for form in secret.forms), default=0)


class Kept:
    """A stream's first and last `limit // 2` bytes (and a margin each side), fed as it comes,
    in bounded memory; `total` counts every byte fed."""

    def __init__(self, limit: int = LIMIT, margin: int = 0) -> None:
        self.margin = margin
        self.cap = limit // 2 + margin
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk[-self.cap :]
            if len(self.tail) > 2 * self.cap:  # trimmed now and then: each byte moved O(1) times
                del self.tail[: len(self.tail) - self.cap]

    def text(self, held: list[secrets.Secret]) -> str:
        """What was kept, secrets redacted, a line in place of what was left out. `held` are
        the secrets whose longest form the margin was made for (`margin_of`)."""
        tail = bytes(self.tail[-self.cap :])
        left_out = self.total - len(self.head) - len(tail)
        if left_out <= 0:  # nothing was left out: one piece, redacted whole
            return _redacted(bytes(self.head) + tail, held)
        margin = self.margin
        head_text = _redacted(bytes(self.head), held)
        tail_text = _redacted(tail, held)
        if margin:
            head_text, tail_text = head_text[:-margin], tail_text[margin:]
        return f"{head_text}\n[... {left_out:,} bytes left out ...]\n{tail_text}"


def _redacted(data: bytes, held: list[secrets.Secret]) -> str:
    text = data.decode("utf-8", "replace")
    return secrets.redact(text, held) if held else text


def render(
    *, command: str, exit_status: int | None, stdout: Kept, stderr: Kept, held: list[secrets.Secret]
) -> str:
    """The transcript file: the command line, how it ended, and both streams."""
    ended = "ran out of time" if exit_status is None else f"exit status {exit_status}"
    return (
        f"# baton agent: {_redacted(command.encode(), held)}\n# {ended}\n"
        f"\n## standard output ({stdout.total:,} bytes)\n{stdout.text(held)}\n"
        f"\n## standard error ({stderr.total:,} bytes)\n{stderr.text(held)}\n"
    )
