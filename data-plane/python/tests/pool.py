"""A real local kvpool for the tests: ``./kvpool local`` started as a subprocess, its printed process table parsed
(ports are picked by the pool), processes killed and restarted the way a crash would."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

from kvpool import PoolKey

REPO = Path(__file__).resolve().parents[3]
KVPOOL = REPO / "kvpool"
START_TIMEOUT = float(os.environ.get("KVPOOL_TEST_START_TIMEOUT", "300"))  # includes a first build


def wait_for(condition, timeout: float, what: str, interval: float = 0.05):
    """Polls ``condition`` until it returns a truthy value; fails naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = condition()
            if value:
                return value
        except Exception as e:  # noqa: BLE001 - polled conditions may fail while things start
            last_error = e
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}"
                                 + (f" (last error: {last_error!r})" if last_error else ""))
        time.sleep(interval)


def process_state(pid: int) -> str:
    """The state letter of /proc/<pid>/stat: R, S, T (stopped), Z (a zombie), ..."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split(") ")[-1].split()[0]


def pid_alive(pid: int) -> bool:
    try:
        return process_state(pid) != "Z"
    except FileNotFoundError:
        return False


def freeze(pid: int) -> int:
    """SIGSTOP, returning once the process is stopped (a hung or partitioned pool process); SIGCONT resumes it."""
    os.kill(pid, signal.SIGSTOP)
    wait_for(lambda: process_state(pid) == "T", 30, f"process {pid} to stop")
    return pid


def _tail(path: Path, lines: int, width: int = 400) -> list:
    """The last ``lines`` lines of a log, each cut to ``width`` characters: a process log starts with its command
    line, whose classpath alone runs to several thousand characters and would bury the lines that explain a
    failure."""
    return [line if len(line) <= width else f"{line[:width]}... ({len(line)} characters)"
            for line in path.read_text(errors="replace").splitlines()[-lines:]]


class Process:
    def __init__(self, role: str, node_id: str, pid: int, rpc: str, admin: str, log: str):
        self.role, self.node_id, self.pid, self.rpc, self.admin, self.log = role, node_id, pid, rpc, admin, log


class LocalPool:
    """``./kvpool local``; ``master`` is the master's RPC address, ``processes`` the table it printed, ``key_file`` the
    client key it printed (it authenticates by default; ``no_auth=True`` runs it without keys: then None) and ``key``
    that key, for ``ClientConfig(pool_key=...)``."""

    def __init__(self, env: dict | None = None, **options):
        """``env``: variables added to the environment of ``./kvpool local`` and the pool processes it starts."""
        settings = {"storage-nodes": "3", "memory": "256MiB"}
        settings.update({k.replace("_", "-"): v for k, v in options.items()})
        self.args = [part for name, value in settings.items()
                     for part in ((f"--{name}",) if value is True else (f"--{name}", str(value)))]
        self.output: list = []
        self.processes: list = []
        self.master = ""
        self.admin = ""
        self.key_file = None
        self.key = None
        self.log_dir = ""
        self.extra: list = []  # processes the tests started themselves (a restarted master)
        self._proc = subprocess.Popen([str(KVPOOL), "local", *self.args], stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
                                      start_new_session=True, env={**os.environ, **(env or {})})
        self._ready = threading.Event()
        threading.Thread(target=self._read_output, daemon=True).start()
        if not self._ready.wait(START_TIMEOUT) or not self.master:
            self.stop()
            raise AssertionError(f"./kvpool local {' '.join(self.args)} did not report a running pool (within "
                                 f"{START_TIMEOUT:.0f} s):\n" + "\n".join(self.output) + self.log_tails())

    def _read_output(self) -> None:
        for line in self._proc.stdout:
            line = line.rstrip("\n")
            self.output.append(line)
            m = re.match(r"(master|storage)\s+(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)$", line)
            if m:
                self.processes.append(Process(m.group(1), m.group(2), int(m.group(3)), m.group(4), m.group(5),
                                              m.group(6)))
                self.log_dir = os.path.dirname(m.group(6))
            m = re.match(r"keys in (\S+) \(clients: --key-file (\S+);", line)
            if m:
                self.key_file = m.group(2)
                self.key = PoolKey.from_file(self.key_file)
            m = re.match(r"master (\S+)\s+\(admin http://(\S+)/status\)", line)
            if m:
                self.master, self.admin = m.group(1), m.group(2)
            if line.startswith("Ctrl-C stops the pool"):
                self._ready.set()
        self._ready.set()

    def storage_nodes(self) -> list:
        return [p for p in self.processes if p.role == "storage"]

    def master_process(self) -> Process:
        return next(p for p in self.processes if p.role == "master")

    @staticmethod
    def kill9(pid: int) -> None:
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: not pid_alive(pid), 30, f"process {pid} to exit after kill -9")

    def restart_master(self) -> None:
        """kill -9 the master, then start it again with the same command line (same ports): the pool's storage
        nodes re-register and the new master rebuilds its index from them (lease recovery)."""
        old = self.master_process()
        with open(f"/proc/{old.pid}/cmdline", "rb") as f:
            command = [part.decode() for part in f.read().split(b"\0") if part]
        self.kill9(old.pid)
        log_path = os.path.join(self.log_dir, "master-restarted.log")
        log = open(log_path, "ab")
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        log.close()
        self.extra.append(proc)
        old.pid, old.log = proc.pid, log_path
        wait_for(lambda: "KVPOOL_READY" in Path(log_path).read_text(errors="replace"), 120,
                 "the restarted master's KVPOOL_READY line")

    def log_tails(self, lines: int = 40) -> str:
        out = []
        if self.log_dir and os.path.isdir(self.log_dir):
            for name in sorted(os.listdir(self.log_dir)):
                out.append(f"----- {name} (last {lines} lines) -----")
                out.extend(_tail(Path(self.log_dir, name), lines))
        return "\n" + "\n".join(out)

    def stop(self) -> None:
        for proc in self.extra:
            if proc.poll() is None:
                proc.terminate()
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)  # the CLI's shutdown hook stops every pool process
            try:
                self._proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self._proc.pid, signal.SIGKILL)
                self._proc.wait(10)
        for proc in self.extra:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        for p in self.processes:  # never leave a child behind, even when the CLI could not stop it
            if pid_alive(p.pid):
                try:
                    os.kill(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


def kvpool_cli(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    """Runs the Java CLI (``./kvpool ARGS``) and returns its completed process."""
    return subprocess.run([str(KVPOOL), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                          stdin=subprocess.DEVNULL)


CLASSPATH = f"{REPO}/data-plane/cli/target/kvpool-cli-0.1.0-SNAPSHOT.jar:{REPO}/data-plane/cli/target/lib/*"


class SecuredPool:
    """A master and storage nodes started directly (``java ... MasterMain`` / ``StorageNodeMain``, as
    data-plane/README.md shows) with ``options`` such as ``--secret-dir`` and ``--tls-dir`` naming folders the test
    made."""

    def __init__(self, log_dir: str, options: list, nodes: int = 2):
        self.log_dir = log_dir
        self.procs: list = []
        master = self._start("master", ["io.kvpool.master.MasterMain", "--pool-id", "secured", "--port", "0",
                                        "--admin-port", "0", *options])
        self.master = master["rpc"]
        for n in range(nodes):
            self._start(f"node-{n + 1}", ["io.kvpool.storage.StorageNodeMain", "--master", self.master, "--node-id",
                                          f"node-{n + 1}", "--port", "0", "--admin-port", "0", "--memory", "64MiB",
                                          *options])

    def _start(self, name: str, args: list) -> dict:
        log_path = os.path.join(self.log_dir, f"{name}.log")
        java = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else "java"
        with open(log_path, "ab") as log:
            proc = subprocess.Popen([java, "-Xmx256m", "-XX:+UseSerialGC", "-cp", CLASSPATH, *args], stdout=log,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs.append(proc)

        def ready():
            if proc.poll() is not None:
                raise AssertionError(f"{name} exited with {proc.returncode}:{self.log_tails()}")
            for line in Path(log_path).read_text(errors="replace").splitlines():
                if line.startswith("KVPOOL_READY"):
                    return dict(part.split("=", 1) for part in line.split()[2:] if "=" in part)
            return None
        return wait_for(ready, START_TIMEOUT, f"{name}'s KVPOOL_READY line")

    def log_tails(self, lines: int = 40) -> str:
        out = []
        for name in sorted(os.listdir(self.log_dir)):
            out.append(f"----- {name} (last {lines} lines) -----")
            out.extend(_tail(Path(self.log_dir, name), lines))
        return "\n" + "\n".join(out)

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
