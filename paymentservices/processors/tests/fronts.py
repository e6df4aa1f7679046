"""A TCP front for a processor's double: what the processor's side would count of the connections a connector
opens."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Front:
    url: str
    accepted: list[socket.socket] = field(default_factory=list)


@contextmanager
def tcp_front(port: int | None) -> Iterator[Front]:
    """A front for the double at 127.0.0.1:`port` that keeps every connection it accepts (what the processor's side
    would count) and passes the bytes through; with no port, it reads what is sent and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    front = Front(f"http://127.0.0.1:{listener.getsockname()[1]}")

    def pipe(source: socket.socket, sink: socket.socket | None) -> None:
        with contextlib.suppress(OSError):
            while chunk := source.recv(65536):
                if sink is not None:
                    sink.sendall(chunk)

    def accept() -> None:
        with contextlib.suppress(OSError):  # the listener closed: the test is over
            while True:
                client, _ = listener.accept()
                front.accepted.append(client)
                upstream = None if port is None else socket.create_connection(("127.0.0.1", port))
                threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
                if upstream is not None:
                    threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield front
    finally:
        listener.close()
        for client in front.accepted:
            client.close()
