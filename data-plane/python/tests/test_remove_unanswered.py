"""A REMOVE the master applied but whose answer was lost: the client asks again and the master answers NOT_FOUND.
The remove still happened, so the client must say so (True), not "it was not stored"."""
import socket
import threading

from kvpool import ClientConfig, KvPoolClient


class ReplyCuttingProxy:
    """Relays TCP between the client and the master; once armed, the next bytes the master sends are dropped and the
    connection closed (a leader lost after it applied a request), then it relays normally again."""

    def __init__(self, target: str):
        host, port = target.rsplit(":", 1)
        self.target = (host, int(port))
        self.armed = threading.Event()
        self.cut = threading.Event()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.server.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                downstream, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            threading.Thread(target=self._relay, args=(downstream, upstream, False), daemon=True).start()
            threading.Thread(target=self._relay, args=(upstream, downstream, True), daemon=True).start()

    def _relay(self, source, sink, from_master):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if from_master and self.armed.is_set():
                    self.armed.clear()
                    self.cut.set()
                    break
                sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self):
        self.server.close()


def test_a_remove_whose_answer_was_lost_still_says_removed(pool):
    proxy = ReplyCuttingProxy(pool.master)
    c = KvPoolClient(ClientConfig(proxy.address, pool_key=pool.key, replicas=2, timeout=10, operation_timeout=60))
    try:
        c.put("unanswered/remove", b"x" * 4096)
        assert c.exists("unanswered/remove")
        proxy.armed.set()
        assert c.remove("unanswered/remove") is True
        assert proxy.cut.is_set(), "the proxy never cut an answer: the test did not drive the lost reply"
        assert not c.exists("unanswered/remove")
        assert c.remove("unanswered/remove") is False  # answered: truly not stored
    finally:
        c.close()
        proxy.close()
