"""The command line's conventions: the same short options and defaults on every command,
-v/--verbose, and help texts that need nothing outside an installed package."""

from __future__ import annotations

import re

import click
import pytest
from conftest import cli, fails, ok

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


# The Python API's functions and the commands that run them: the same defaults
API_OF_COMMAND = {
    "simulate": "simulate",
    "tournament": "tournament",
    "compare": "compare",
    "sweep": "sweep",
    "tune": "tune",
    "study": "run_study",
}


@pytest.mark.parametrize("name", list(API_OF_COMMAND))
def test_the_api_has_the_commands_defaults(name):
    import inspect

    import sunset_sim

    signature = inspect.signature(getattr(sunset_sim, API_OF_COMMAND[name])).parameters
    compared = 0
    for option in COMMANDS[(name,)].params:
        default = option.default  # (some commands read numbers as text: "2000")
        key = option.name.removesuffix("_text")
        if isinstance(default, str) and re.fullmatch(r"-?[0-9.]+", default):
            default = float(default)
        if not isinstance(default, int | float) or isinstance(default, bool):
            continue  # (flags, texts)
        if key == "jobs" or key not in signature:  # (--jobs 0 is the API's None: all cores)
            continue
        assert signature[key].default == default, (name, key)
        compared += 1
    assert compared >= 2, name  # games and players at least
    assert signature["progress"].default is False, name


FEWER = ("--strategy", "greedy", "--strategy", "random")


@pytest.mark.parametrize(
    "args",
    [
        ("simulate", "-n", "20"),
        ("tournament", "-n", "5", "--rating-games", "5", "--strategy", "early-bird"),
        ("compare", "-n", "5", "--b-rule", "days=5"),
        ("sweep", "-n", "5", "--rule-values", "days=5,6"),
        ("sweep", "-n", "5", "--param", "balanced:deny=0,1"),
        ("report", "-n", "20", "--study-games", "0", "--format", "csv"),
    ],
    ids=lambda args: " ".join(args[:1] + args[3:4]),
)
def test_fewer_strategies_than_seats_is_one_note_on_every_command(args, tmp_path):
    """Two strategies for four seats: who sits twice, said once on stderr by every command
    that seats them (only tournament said it; simulate, compare, sweep and report doubled a
    strategy's seats without a word)."""
    out = ("-o", tmp_path / "report") if args[0] == "report" else ()
    result = cli(*args, *FEWER, *out, "-q")
    ok(result)
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    seats = "3 seats beside the swept one" if "--param" in args else "4 seats"
    assert len(notes) == 1, result.stderr
    assert re.match(f"note: [23] strategies for {seats}: repeated round the table", notes[0])
    if args[0] != "tournament":  # (which needs two strategies)
        alone = cli(*args, "--strategy", "greedy", *out, "--force" if out else "-q", "-q")
        assert "note: " not in ok(alone) + alone.stderr  # one strategy alone: self-play


def test_the_note_never_joins_an_error_line():
    """Bad input is one line: a note is held back until the command has done its work."""
    for args in (("simulate", "-n", "10", "--rule", "days=0"), ("compare", "-n", "0")):
        fails(
            cli(*args, *FEWER, "--b-rule", "days=5") if args[0] == "compare" else cli(*args, *FEWER)
        )


def test_the_api_warns_of_fewer_strategies_than_seats():
    import warnings

    import sunset_sim

    with pytest.warns(sunset_sim.TournamentSeatWarning, match="greedy \\(2 seats\\)"):
        sunset_sim.simulate(games=5, players=3, strategies=["greedy", "random"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sunset_sim.simulate(games=5, players=2, strategies=["greedy", "random"])
        sunset_sim.simulate(games=5, players=3, strategies=["balanced"])
