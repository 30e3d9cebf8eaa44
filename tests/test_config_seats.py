"""Seat tokens (issue 18, point 6): two seats with one token, or a token shorter than 32
characters, are configuration errors naming the file and the seats (before, the last seat with
a shared token silently won). The shipped example configs still load."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from chatmem.config import MIN_TOKEN_LENGTH, load_config, parse_config
from chatmem.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
GOOD = "k" * MIN_TOKEN_LENGTH


def write_config(tmp_path: Path, seats: dict) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({"seats": seats}), encoding="utf-8")
    return path


def test_two_seats_with_one_token_are_refused(tmp_path):
    path = write_config(tmp_path, {"assistant": {"token": GOOD}, "bot": {"token": GOOD}})
    with pytest.raises(ConfigError) as err:
        load_config(path)
    message = str(err.value)
    assert str(path) in message and "'assistant'" in message and "'bot'" in message
    assert "same token" in message and GOOD not in message


def test_a_short_token_is_refused(tmp_path):
    short = "k" * (MIN_TOKEN_LENGTH - 1)
    path = write_config(tmp_path, {"assistant": {"token": short}})
    with pytest.raises(ConfigError) as err:
        load_config(path)
    message = str(err.value)
    assert str(path) in message and "'assistant'" in message and str(MIN_TOKEN_LENGTH) in message
    assert short not in message


def test_distinct_long_tokens_load_and_find_their_seat(tmp_path):
    other = "z" * 40
    cfg = load_config(write_config(tmp_path, {"a": {"token": GOOD}, "b": {"token": other}}))
    assert cfg.seat_for_token(GOOD).name == "a"
    assert cfg.seat_for_token(other).name == "b"


def test_the_cli_says_it_in_one_line(cli, tmp_path):
    path = write_config(tmp_path, {"a": {"token": GOOD}, "b": {"token": GOOD}})
    result = cli("--config", str(path), "stats", expect=None)
    assert result.exit_code != 0
    assert result.output.startswith("chatmem: error:") and len(result.output.strip().splitlines()) == 1
    assert "'a' and 'b'" in result.output


def test_fixture_config_loads():
    cfg = load_config(ROOT / "fixtures" / "config.yaml")
    assert {"assistant", "notebook"} <= set(cfg.seats)


def _readme_yaml_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)


@pytest.mark.parametrize("block", _readme_yaml_blocks())
def test_readme_config_examples_load(block):
    data = yaml.safe_load(block)
    if "seats" not in data:
        pytest.skip("no seats in this example")
    parse_config(data, Path("README.md"))


def test_the_config_docstring_example_loads():
    import chatmem.config as config_module

    example = config_module.__doc__.split("Example (every key optional):", 1)[1]
    parse_config(yaml.safe_load(example), Path("chatmem/config.py"))
