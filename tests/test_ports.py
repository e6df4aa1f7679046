"""The ports the suite's servers take: never one another test's outgoing connection may be holding."""

import socket

import pytest

from tests.processes import LOWEST_PORT, _ephemeral_low, free_port


def test_a_free_port_is_below_the_range_outgoing_connections_take_theirs_from():
    ephemeral_low = _ephemeral_low()
    if ephemeral_low - 2 <= LOWEST_PORT:
        pytest.skip("no room below this kernel's ephemeral range: the kernel's choice is used")
    ports = {free_port() for _ in range(50)}
    assert all(LOWEST_PORT <= port < ephemeral_low - 2 for port in ports), sorted(ports)
    assert len(ports) > 1  # spread, so two processes of the suite rarely pick the same one


def test_a_port_taken_in_that_range_is_passed_over(monkeypatch):
    taken = free_port()
    other = next(port for port in iter(free_port, None) if port != taken)
    with socket.create_server(("127.0.0.1", taken)):
        picks = iter([taken, other])
        monkeypatch.setattr("tests.processes.random.randrange", lambda low, high: next(picks))
        assert free_port() == other
