"""A TCP forwarder between a server under test and one of its dependencies (PostgreSQL, Redis),
which the test can hang or cut while the server runs: what a dependency that stops answering,
or goes away, looks like from the server.

`freeze()` keeps every connection open but lets nothing more through, to either side (a hung
dependency: a request waits for ever); `thaw()` lets it through again. `cut()` closes every
connection and the listening socket (a dependency that is down: connections are refused).
Threads do the forwarding, two per connection; `cut()` (also on leaving the `with` block) ends
them all.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from types import TracebackType


class TcpProxy:
    """Forwards 127.0.0.1:`port` to `host`:`target_port`."""

    def __init__(self, host: str, target_port: int) -> None:
        self.target = (host, target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self._flowing = threading.Event()
        self._flowing.set()
        self._cut = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    def __enter__(self) -> TcpProxy:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.cut()

    def freeze(self) -> None:
        """Let nothing more through (connections stay open, new ones are taken and held)."""
        self._flowing.clear()

    def thaw(self) -> None:
        """Let everything through again, what was held first."""
        self._flowing.set()

    def cut(self) -> None:
        """Close every connection and stop listening; wait for the forwarding threads."""
        with self._lock:
            self._cut = True
            sockets, self._sockets = [self.listener, *self._sockets], []
        self._flowing.set()  # held threads wake, see the cut and end
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked on it
            sock.close()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout=10)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # cut
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                if self._cut:
                    client.close()
                    upstream.close()
                    return
                self._sockets += [client, upstream]
                pumps = [
                    threading.Thread(target=self._pump, args=pair, daemon=True)
                    for pair in ((client, upstream), (upstream, client))
                ]
                self._threads += pumps
            for pump in pumps:
                pump.start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        """Copy `source` to `sink` until either closes (held while frozen); then close both."""
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                break
            if not data:
                break
            self._flowing.wait()
            if self._cut:
                break
            try:
                sink.sendall(data)
            except OSError:
                break
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
