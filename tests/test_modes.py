import pytest

from tether.config import load_settings
from tether.errors import ConfigError
from tether.modes import GATES, parse_modes, resolve_modes


def test_defaults_are_on_for_every_gate():
    assert resolve_modes() == {g: "on" for g in GATES}


def test_call_overrides_setting_gate_by_gate():
    assert resolve_modes("shadow", ["figures=off"]) == {
        "abstain": "shadow", "contradiction": "shadow", "figures": "off", "judge": "shadow"
    }
    assert resolve_modes("abstain=off", {"judge": "shadow"})["abstain"] == "off"


@pytest.mark.parametrize("bad", ["abstain=maybe", "probe=on", "sometimes", "abstain="])
def test_bad_modes_are_config_errors(bad):
    with pytest.raises(ConfigError):
        parse_modes(bad)


def test_setting_is_validated_at_load(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no tether.toml here
    monkeypatch.setenv("TETHER_MODES", "abstain=shadow,figures=off")
    assert load_settings().modes == "abstain=shadow,figures=off"
    monkeypatch.setenv("TETHER_MODES", "abstian=shadow")
    with pytest.raises(ConfigError, match="unknown gate 'abstian'"):
        load_settings()
