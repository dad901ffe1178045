"""The command line's conventions: the same short options and defaults on every command,
-v/--verbose, and help texts that need nothing outside an installed package."""

from __future__ import annotations

import click
import pytest
from conftest import cli, ok

from sunset_sim.cli import SHORT_OPTIONS, main


def leaf_commands(group=main, path=()):
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from leaf_commands(command, (*path, name))
        else:
            yield (*path, name), command


COMMANDS = dict(leaf_commands())


@pytest.mark.parametrize("path", list(COMMANDS), ids=" ".join)
def test_every_common_flag_has_its_short_form_and_verbose(path):
    command = COMMANDS[path]
    options = [p for p in command.params if isinstance(p, click.Option)]
    for long, short in SHORT_OPTIONS.items():
        for option in options:
            if long in option.opts:
                assert short in option.opts, (path, long)
    assert any(o.opts[:2] == ["-v", "--verbose"] for o in options), path


def test_short_options_work_like_the_long_ones(tmp_path):
    short = ok(cli("simulate", "-n", "30", "-p", "3", "-s", "7", "-q", "-o", tmp_path / "a.csv"))
    long = ok(cli("simulate", "--games", "30", "--players", "3", "--seed", "7", "--quiet",
                  "--out", tmp_path / "b.csv"))  # fmt: skip
    assert short.replace("a.csv", "b.csv") == long
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_verbose_says_the_settings_and_the_time_on_stderr():
    result = cli("simulate", "-n", "20", "-q", "-v")
    out = ok(result)
    lines = result.stderr.splitlines()
    assert lines[0].startswith("sunset-sim ") and "simulate --games=20" in lines[0]
    assert "--players=4" in lines[0] and "--seed=0" in lines[0]  # defaults included
    assert lines[-1].endswith(" s") and " simulate: done in " in lines[-1]
    assert "done in" not in out and "--games=" not in out  # stdout holds only results


def test_every_command_defaults_to_four_players():
    for path, command in COMMANDS.items():
        for option in command.params:
            if isinstance(option, click.Option) and "--players" in option.opts:
                assert str(option.default) == "4", path
    out = ok(cli("play", "--seed", "3", "--quiet"))
    assert out.count("fame (commissions") == 4


@pytest.mark.parametrize("path", [(), *COMMANDS], ids=lambda p: " ".join(p) or "main")
def test_help_needs_nothing_outside_the_package(path):
    """An installed wheel has no docs/ folder and sunset-sim is on no index: the help
    says what it needs itself and gives install hints that work."""
    text = ok(cli(*path, "--help"))
    assert "docs/" not in text and "../shared" not in text
    assert "sunset-sim[" not in text
