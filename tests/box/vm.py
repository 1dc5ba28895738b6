"""The Pi stand-in: an arm64 Debian system booted in ``qemu-system-aarch64 -M virt``.

QEMU's own interfaces drive it, no agent of ours:

* QMP (a Unix socket): ``screendump`` of the virtio-gpu display (the DRM framebuffer the table
  draws into), and the power cut (the QEMU process killed: the guest's unwritten page cache is
  gone, exactly as on a Pi whose plug is pulled; what the guest flushed has reached the image).
* the QEMU guest agent (Debian's ``qemu-guest-agent`` in the image, on a virtio-serial port):
  ``guest-exec`` runs a command on the booted system and returns its exit code and output.

The guest's ports 8000 (phone page) and 9001 (MQTT over WebSockets) are forwarded to the same
ports on the host's loopback, so a phone page in the host's Chromium reaches the box as a phone
on the table's Wi-Fi would.
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path


class VMError(RuntimeError):
    pass


def wait_for(what, fn, timeout, every=1.0):
    """Poll ``fn`` until it returns something true; that value, or VMError after ``timeout``."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            value = fn()
            if value:
                return value
        except (OSError, VMError, ValueError) as e:
            last = e
        if time.monotonic() > deadline:
            raise VMError(f"timed out after {timeout:.0f} s waiting for {what}"
                          + (f" (last error: {last})" if last else ""))
        time.sleep(every)


class _JsonSocket:
    """A line-oriented JSON connection to a QEMU Unix socket (QMP or the guest agent)."""

    def __init__(self, path, timeout):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(str(path))
        self.buf = b""

    def send(self, obj, prefix=b""):
        self.sock.sendall(prefix + json.dumps(obj).encode() + b"\n")

    def recv(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise VMError("QEMU closed the socket")
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return json.loads(line.strip(b"\xff") or b"{}")

    def close(self):
        self.sock.close()


class VM:
    """One boot of ``image`` (raw ext4, the root file system) with ``kernel`` and ``initrd``."""

    def __init__(self, workdir, kernel, initrd, image, *, forwards=((8000, 8000), (9001, 9001)),
                 memory_mb=1024, cpus=2, size=(800, 480), append="", drives=()):
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.kernel, self.initrd, self.image = Path(kernel), Path(initrd), Path(image)
        self.forwards, self.memory_mb, self.cpus, self.size = forwards, memory_mb, cpus, size
        self.append = append
        #: more disks after the root (/dev/vda): the Pi's FAT boot partition (/dev/vdb), ...
        self.drives = [Path(d) for d in drives]
        self.proc: subprocess.Popen | None = None
        self.boots = 0
        self.started_at = None

    # -- power ------------------------------------------------------------------------------------
    @property
    def qmp_path(self):
        return self.dir / "qmp.sock"

    @property
    def qga_path(self):
        return self.dir / "qga.sock"

    def command(self):
        net = ",".join(["user", "id=n0", *(f"hostfwd=tcp:127.0.0.1:{h}-:{g}"
                                           for h, g in self.forwards)])
        drives = []
        for i, d in enumerate(self.drives, 1):
            drives += ["-drive", f"if=none,file={d},format=raw,id=hd{i},cache=writeback",
                       "-device", f"virtio-blk-pci,drive=hd{i}"]
        w, h = self.size
        return [
            shutil.which("qemu-system-aarch64") or "qemu-system-aarch64",
            "-M", "virt", "-cpu", "cortex-a72", "-smp", str(self.cpus), "-m", str(self.memory_mb),
            "-kernel", str(self.kernel), "-initrd", str(self.initrd),
            "-append", f"root=/dev/vda rw console=ttyAMA0 {self.append}".strip(),
            "-drive", f"if=none,file={self.image},format=raw,id=hd,cache=writeback",
            "-device", "virtio-blk-pci,drive=hd", *drives,
            "-device", f"virtio-gpu-pci,xres={w},yres={h}",
            "-netdev", net, "-device", "virtio-net-pci,netdev=n0",
            "-device", "virtio-serial-pci",
            "-chardev", f"socket,path={self.qga_path},server=on,wait=off,id=qga0",
            "-device", "virtserialport,chardev=qga0,name=org.qemu.guest_agent.0",
            "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
            "-display", "none", "-serial", f"file:{self.dir / f'serial-{self.boots}.log'}",
            "-no-reboot",
        ]

    def start(self):
        if self.proc is not None and self.proc.poll() is None:
            raise VMError("the VM is already running")
        for p in (self.qmp_path, self.qga_path):
            p.unlink(missing_ok=True)
        self.boots += 1
        self.started_at = time.monotonic()
        log = open(self.dir / f"qemu-{self.boots}.log", "wb")
        self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        wait_for("QEMU's QMP socket", lambda: self.qmp_path.exists() or self._died(), 30, 0.1)
        return self

    def _died(self):
        if self.proc.poll() is not None:
            log = (self.dir / f"qemu-{self.boots}.log").read_text(errors="replace")
            raise VMError(f"QEMU exited with {self.proc.returncode}: {log[-2000:]}")
        return False

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def power_cut(self):
        """Pull the plug: SIGKILL QEMU. Nothing the guest had not flushed survives."""
        if self.running():
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)

    def poweroff(self, timeout=180):
        """A clean shutdown from inside the guest; waits for QEMU to exit (-no-reboot)."""
        try:
            self.exec(["systemctl", "--no-block", "poweroff"], timeout=30)
        except VMError:
            pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.power_cut()
            raise VMError(f"the guest did not power off within {timeout} s")

    def seconds(self) -> float:
        """Seconds since this boot's QEMU started."""
        return time.monotonic() - self.started_at

    # -- QMP ----------------------------------------------------------------------------------------
    def qmp(self, execute, **arguments):
        s = _JsonSocket(self.qmp_path, 30)
        try:
            s.recv()                                   # the greeting
            s.send({"execute": "qmp_capabilities"})
            self._answer(s)
            s.send({"execute": execute, **({"arguments": arguments} if arguments else {})})
            return self._answer(s)
        finally:
            s.close()

    @staticmethod
    def _answer(s):
        while True:
            msg = s.recv()
            if "event" in msg:
                continue
            if "error" in msg:
                raise VMError(f"QMP: {msg['error'].get('desc', msg['error'])}")
            return msg.get("return")

    def screendump(self, path) -> Path:
        """The display as a PNG: what the box's screen shows."""
        path = Path(path).resolve()
        self.qmp("screendump", filename=str(path), format="png")
        return path

    # -- the guest agent ------------------------------------------------------------------------
    def ga(self, execute, timeout=30, **arguments):
        s = _JsonSocket(self.qga_path, timeout)
        try:
            sync = int(time.monotonic() * 1000) % 2**31
            # 0xFF first: the agent drops any half-read input, and its reply to
            # guest-sync-delimited starts with 0xFF, so stale replies are skipped.
            s.send({"execute": "guest-sync-delimited", "arguments": {"id": sync}}, b"\xff")
            while True:
                msg = s.recv()
                if msg.get("return") == sync:
                    break
            s.send({"execute": execute, **({"arguments": arguments} if arguments else {})})
            msg = s.recv()
            if "error" in msg:
                raise VMError(f"guest agent: {msg['error'].get('desc', msg['error'])}")
            return msg.get("return")
        except socket.timeout:
            raise VMError("the guest agent did not answer") from None
        finally:
            s.close()

    def wait_agent(self, timeout):
        def ping():
            self._died()
            self.ga("guest-ping", timeout=5)
            return True
        return wait_for("the guest agent (the system booted)", ping, timeout, 2)

    def exec(self, argv, timeout=120, input_text=None, check=False):
        """Run ``argv`` on the booted system: ``(exit code, stdout, stderr)``."""
        args = {"path": argv[0], "arg": list(argv[1:]), "capture-output": True}
        if input_text is not None:
            args["input-data"] = base64.b64encode(input_text.encode()).decode()
        pid = self.ga("guest-exec", **args)["pid"]
        deadline = time.monotonic() + timeout
        while True:
            st = self.ga("guest-exec-status", pid=pid)
            if st.get("exited"):
                break
            if time.monotonic() > deadline:
                raise VMError(f"{' '.join(argv)} did not finish within {timeout} s")
            time.sleep(0.3)
        out = base64.b64decode(st.get("out-data", "")).decode(errors="replace")
        err = base64.b64decode(st.get("err-data", "")).decode(errors="replace")
        code = st.get("exitcode", -st.get("signal", 0) or -1)
        if check and code != 0:
            raise VMError(f"{' '.join(argv)} exited {code}: {err or out}")
        return code, out, err

    def sh(self, script, timeout=120, check=True) -> str:
        """A shell script on the guest; its stdout (VMError when it fails and ``check``)."""
        code, out, err = self.exec(["/bin/sh", "-c", script], timeout=timeout)
        if check and code != 0:
            raise VMError(f"guest: `{script}` exited {code}: {(err or out).strip()[-1500:]}")
        return out

    def read_file(self, path) -> str:
        return self.sh(f"cat {path}")
