"""Signals a user or a machine sends a run: Ctrl-C (SIGINT) on a stream of rows, and
SIGTERM (``kill``, ``timeout``, a container or CI job stopped), which cleans up and
says what was kept as Ctrl-C does."""

from __future__ import annotations

import io
import signal

import pandas as pd
import pytest
from conftest import cli

from sunset_sim import runner


class SignalledStream(io.StringIO):
    """A stream (stdout) that receives ``number`` while its first write is under way, as
    a Ctrl-C typed at that moment would arrive."""

    def __init__(self, number: int) -> None:
        super().__init__()
        self.number = number
        self.sent = False

    def write(self, text: str) -> int:
        if not self.sent:
            self.sent = True
            signal.raise_signal(self.number)
        return super().write(text)


def test_ctrl_c_while_a_chunk_is_streamed_leaves_whole_games():
    """simulate --out -: a Ctrl-C while a chunk's rows go out is held until they are all
    out, then raised. Before, pandas wrote the chunk to stdout in pieces and the signal
    cut it wherever it came: the stream ended inside a game (3 of its 4 seat rows)."""
    frame = pd.DataFrame({"game": [0, 0, 1, 1], "seat": [0, 1, 0, 1], "fame": [3, 5, 2, 8]})
    stream = SignalledStream(signal.SIGINT)
    writer = runner._StreamWriter(stream)
    with pytest.raises(KeyboardInterrupt):
        writer.write(frame)
    assert stream.sent
    assert stream.getvalue() == frame.to_csv(index=False)


def test_sigterm_cleans_up_and_says_what_was_kept_like_ctrl_c(tmp_path, monkeypatch):
    """SIGTERM in the middle of simulate --out FILE: exit 143 (128 + SIGTERM), the one
    line Ctrl-C prints, and no temporary or lock file left beside the output. Before, the
    process died at once: no line, and the partial file, its lock and marker stayed."""
    chunks = []

    def terminated_after_one(self, frame):
        chunks.append(len(frame))
        real_write(self, frame)
        signal.raise_signal(signal.SIGTERM)

    real_write = runner._TableWriter.write
    monkeypatch.setattr(runner._TableWriter, "write", terminated_after_one)
    out = tmp_path / "big.parquet"
    before = signal.getsignal(signal.SIGTERM)
    result = cli("simulate", "--games", "40", "--chunk-size", "10", "--players", "2", "--out", out)
    assert chunks == [20]  # one chunk of 10 games, 2 seat rows each
    assert result.exit_code == 143, (result.output, result.exception)
    assert result.stderr.splitlines()[-1].startswith(f"interrupted; nothing written to {out}")
    assert list(tmp_path.iterdir()) == []
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is the command's only
