"""A private PostgreSQL for the club's record, run from Debian's own packages.

The club needs a real PostgreSQL, not one of ours: this starts Debian's server (``initdb`` and
``pg_ctl`` from the newest ``/usr/lib/postgresql/*/bin``) in a data folder of its own, on a
port of its own, so it never touches the system's cluster. Its unix socket lives in the data
folder; TCP listens on the address asked for (127.0.0.1 unless told otherwise).

PostgreSQL refuses to run as root: under root the server runs as the ``postgres`` system user
(``runuser -u postgres``) and its data folder is handed to that user; under anyone else it
runs as that user. Local (socket) connections are trusted; TCP needs the password kept in the
data folder (``companion-club.password``), which the ``postgresql://`` URLs carry.

    server = Server("/var/lib/companion/club-pg", port=5544).start()   # reuses a folder
    url = server.create_database("club")        # postgresql://postgres:...@127.0.0.1:5544/club
    server.stop()                               # pg_ctl stop -m fast
"""
import glob
import os
import pwd
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import urllib.parse

from companion.core.errors import CompanionError

PASSWORD_FILE = "companion-club.password"
CONF_FILE = "companion-club.conf"         # port, address, socket folder: rewritten each start
SUPERUSER = "postgres"


class PostgresError(CompanionError):
    """The club's PostgreSQL could not be set up, started or stopped; one sentence says why."""


def bin_dir() -> str:
    """The newest installed PostgreSQL's binaries (Debian keeps each major version apart)."""
    found = []
    for d in glob.glob("/usr/lib/postgresql/*/bin"):
        m = re.match(r"(\d+)(?:\.(\d+))?$", os.path.basename(os.path.dirname(d)))
        if m and os.path.exists(os.path.join(d, "initdb")) and \
                os.path.exists(os.path.join(d, "pg_ctl")):
            found.append(((int(m.group(1)), int(m.group(2) or 0)), d))
    if not found:
        raise PostgresError("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): "
                            "apt-get install postgresql")
    return max(found)[1]


def _conf_quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class Server:
    """One private PostgreSQL in ``datadir`` on ``port``, listening on ``host``."""

    def __init__(self, datadir, port=5432, host="127.0.0.1", max_connections=None):
        self.datadir = os.path.abspath(str(datadir))
        self.port = int(port)
        self.host = host
        # every box's shipper holds one connection while it runs: PostgreSQL's default of 100
        # (3 kept for superusers) turns the 98th table away (benches/bench_club.py found it)
        self.max_connections = max_connections
        self._as_postgres = os.geteuid() == 0

    # -- running the tools ---------------------------------------------------------------------
    def _run(self, tool, *args, check=True, timeout=120):
        cmd = [os.path.join(bin_dir(), tool), *args]
        if self._as_postgres:
            cmd = ["runuser", "-u", SUPERUSER, "--", *cmd]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           cwd="/", stdin=subprocess.DEVNULL)
        if check and p.returncode != 0:
            raise PostgresError(f"{tool} failed for {self.datadir}: "
                                f"{self._last_words(p.stderr or p.stdout)}")
        return p

    def _last_words(self, text):
        lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
        log = os.path.join(self.datadir, "server.log")
        if os.path.exists(log):             # the server's own reason beats pg_ctl's summary
            with open(log, encoding="utf-8", errors="replace") as f:
                tail = [ln.strip() for ln in f.read().splitlines()[-20:] if ln.strip()]
            worst = [ln for ln in tail if "FATAL" in ln or "ERROR" in ln]
            lines += worst[-2:]
        return "; ".join(lines[-3:]) or "no reason given"

    def _give(self, path):
        """Hand a file or folder we made to the user the server runs as."""
        if self._as_postgres:
            pw = pwd.getpwnam(SUPERUSER)
            os.chown(path, pw.pw_uid, pw.pw_gid)

    def _check_reachable(self):
        """Under root, the postgres user must be able to reach the data folder."""
        if not self._as_postgres:
            return
        try:
            pwd.getpwnam(SUPERUSER)
        except KeyError:
            raise PostgresError("There is no postgres system user to run PostgreSQL as (root "
                                "may not): apt-get install postgresql") from None
        parent = os.path.dirname(self.datadir)
        p = subprocess.run(["runuser", "-u", SUPERUSER, "--", "test", "-x", parent],
                           capture_output=True)
        if p.returncode != 0:
            raise PostgresError(f"PostgreSQL runs as the postgres user, who cannot reach "
                                f"{parent}: make its folders traversable (chmod o+x) or choose "
                                f"a data folder elsewhere.")

    # -- the server ----------------------------------------------------------------------------
    def initialised(self) -> bool:
        return os.path.exists(os.path.join(self.datadir, "PG_VERSION"))

    def running(self) -> bool:
        if not self.initialised():
            return False
        return self._run("pg_ctl", "status", "-D", self.datadir, check=False).returncode == 0

    def _init(self):
        bin_dir()                               # not installed: say so before anything else
        os.makedirs(os.path.dirname(self.datadir), exist_ok=True)
        self._check_reachable()
        if os.path.isdir(self.datadir) and os.listdir(self.datadir):
            raise PostgresError(f"{self.datadir} is neither empty nor a PostgreSQL data folder; "
                                f"it was left untouched. Choose an empty or new folder.")
        os.makedirs(self.datadir, mode=0o700, exist_ok=True)
        os.chmod(self.datadir, 0o700)
        self._give(self.datadir)
        password = secrets.token_urlsafe(18)
        fd, pwfile = tempfile.mkstemp(prefix="club-pw-")
        try:
            with os.fdopen(fd, "w") as f:
                f.write(password + "\n")
            self._give(pwfile)
            self._run("initdb", "-D", self.datadir, "-U", SUPERUSER, "--pwfile", pwfile,
                      "-E", "UTF8", "--locale=C.UTF-8", "--auth-local=trust",
                      "--auth-host=scram-sha-256")
        finally:
            os.remove(pwfile)
        keep = os.path.join(self.datadir, PASSWORD_FILE)
        with open(os.open(keep, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
            f.write(password + "\n")
        self._give(keep)
        with open(os.path.join(self.datadir, "pg_hba.conf"), "a") as f:
            # boxes ship from other machines when the club listens beyond 127.0.0.1; every
            # TCP login needs the password
            f.write("host all all 0.0.0.0/0 scram-sha-256\nhost all all ::/0 scram-sha-256\n")
        with open(os.path.join(self.datadir, "postgresql.conf"), "a") as f:
            f.write(f"\ninclude_if_exists = {_conf_quote(CONF_FILE)}\n")

    def _conf_text(self) -> str:
        text = (f"port = {self.port}\nlisten_addresses = {_conf_quote(self.host)}\n"
                f"unix_socket_directories = {_conf_quote(self.datadir)}\n"
                # a box that lost its power leaves its connection open; each table's role
                # may hold only a few, so find such a connection dead within two minutes
                "tcp_keepalives_idle = 60\ntcp_keepalives_interval = 10\n"
                "tcp_keepalives_count = 6\n")
        if self.max_connections:
            text += f"max_connections = {int(self.max_connections)}\n"
        return text

    def _write_conf(self) -> bool:
        """Write the settings of this start; returns whether they changed."""
        path = os.path.join(self.datadir, CONF_FILE)
        try:
            with open(path) as f:
                same = f.read() == self._conf_text()
        except OSError:
            same = False
        with open(path, "w") as f:
            f.write(self._conf_text())
        self._give(path)
        return not same

    def _port_free(self) -> bool:
        host = "" if self.host in ("*", "0.0.0.0", "::") else self.host
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind((host, self.port))
            except OSError:
                return False
        return True

    def start(self, timeout=60) -> "Server":
        """Start the server (initialising the folder first if it is new; an existing data
        folder is reused, a running server is left running). Returns self."""
        if self.initialised():
            self._check_reachable()
            if self.running():
                port = self._running_port()
                if (port is None or port == self.port) and self._write_conf():
                    # left running by an older club with other addresses: they must hold
                    self._run("pg_ctl", "restart", "-D", self.datadir, "-m", "fast", "-w",
                              "-t", str(timeout), "-l", os.path.join(self.datadir,
                                                                     "server.log"),
                              timeout=timeout + 30)
                self.port = port or self.port
                return self
        if not self._port_free():
            raise PostgresError(f"Port {self.port} on {self.host} is taken (another server "
                                f"runs there); choose another port.")
        if not self.initialised():
            self._init()
        self._write_conf()
        self._run("pg_ctl", "start", "-D", self.datadir, "-w", "-t", str(timeout),
                  "-l", os.path.join(self.datadir, "server.log"), timeout=timeout + 30)
        return self

    def watch(self) -> "Server":
        """Stop this server when this process ends, however it ends (a SIGKILL included): a
        small watchdog process waits on a pipe only this process holds open and runs ``pg_ctl
        stop -m fast`` when it closes. (The kernel's parent-death signal, which the table's
        mosquitto uses, cannot reach the postmaster: ``pg_ctl`` starts it detached, and under
        root through ``runuser``, which changes user.)"""
        if getattr(self, "_watch_w", None) is not None:
            return self
        r, w = os.pipe()
        cmd = [os.path.join(bin_dir(), "pg_ctl"), "stop", "-D", self.datadir, "-m", "fast",
               "-w"]
        if self._as_postgres:
            cmd = ["runuser", "-u", SUPERUSER, "--", *cmd]
        code = ("import subprocess, sys\n"
                "try:\n    sys.stdin.buffer.read()\nexcept BaseException:\n    pass\n"
                f"subprocess.run({cmd!r}, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,"
                " stderr=subprocess.DEVNULL, cwd='/')\n")
        try:
            self._watchdog = subprocess.Popen(
                [sys.executable, "-c", code], stdin=r, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, cwd="/", start_new_session=True)
        finally:
            os.close(r)
        self._watch_w = w
        return self

    def _unwatch(self):
        w = getattr(self, "_watch_w", None)
        if w is not None:
            self._watch_w = None
            os.close(w)
            try:
                self._watchdog.wait(30)
            except subprocess.TimeoutExpired:
                pass

    def _running_port(self):
        try:
            with open(os.path.join(self.datadir, "postmaster.pid")) as f:
                return int(f.read().splitlines()[3])
        except (OSError, ValueError, IndexError):
            return None

    def stop(self):
        """``pg_ctl stop -m fast``: open sessions are ended, everything committed is kept."""
        try:
            if self.running():
                self._run("pg_ctl", "stop", "-D", self.datadir, "-m", "fast", "-w")
        finally:
            self._unwatch()

    # -- databases -----------------------------------------------------------------------------
    def password(self) -> str:
        with open(os.path.join(self.datadir, PASSWORD_FILE)) as f:
            return f.read().strip()

    def url(self, database="postgres") -> str:
        """The ``postgresql://`` address of ``database`` over TCP, with the password."""
        host = "127.0.0.1" if self.host in ("*", "0.0.0.0", "") else \
            "[::1]" if self.host == "::" else \
            (f"[{self.host}]" if ":" in self.host else self.host)
        return (f"postgresql://{SUPERUSER}:{urllib.parse.quote(self.password(), safe='')}@"
                f"{host}:{self.port}/{urllib.parse.quote(database, safe='')}")

    def _admin(self):
        import psycopg
        return psycopg.connect(self.url("postgres"), autocommit=True, connect_timeout=10)

    def create_database(self, name) -> str:
        """Create ``name`` unless it exists; returns its URL."""
        from psycopg import sql
        with self._admin() as db:
            if not db.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                              (name,)).fetchone():
                db.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.url(name)

    def create_owned_database(self, name, role, former=()) -> str:
        """Create ``role`` (a login that is not a superuser, with a password of its own kept
        in the data folder) and ``name`` owned by it, unless they exist; returns the URL with
        that role's login: the organiser's, the run of the club's database and nothing of the
        server's. A database owned by one of the ``former`` roles (schema 1 gave every box the
        owner's login ``tc_box``) is handed to ``role``, with everything in it, and the former
        role may no longer log in (its open connections are ended)."""
        from psycopg import sql
        keep = os.path.join(self.datadir, f"companion-club.{role}.password")
        if os.path.exists(keep):
            with open(keep) as f:
                password = f.read().strip()
        else:
            password = secrets.token_urlsafe(18)
        with self._admin() as db:
            if not db.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
                db.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
                    sql.Identifier(role), sql.Literal(password)))
            else:
                db.execute(sql.SQL("ALTER ROLE {} LOGIN PASSWORD {}").format(
                    sql.Identifier(role), sql.Literal(password)))
            owner = db.execute("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE "
                               "datname = %s", (name,)).fetchone()
            if owner is None:
                db.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(
                    sql.Identifier(name), sql.Identifier(role)))
            for old in former:
                if not db.execute("SELECT 1 FROM pg_roles WHERE rolname = %s",
                                  (old,)).fetchone():
                    continue
                if owner is not None and owner[0] == old:
                    db.execute(sql.SQL("ALTER DATABASE {} OWNER TO {}").format(
                        sql.Identifier(name), sql.Identifier(role)))
                db.execute(sql.SQL("ALTER ROLE {} NOLOGIN PASSWORD NULL").format(
                    sql.Identifier(old)))
                db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           "WHERE usename = %s", (old,))
                import psycopg
                with psycopg.connect(self.url(name), autocommit=True,
                                     connect_timeout=10) as inside:
                    inside.execute(sql.SQL("REASSIGN OWNED BY {} TO {}").format(
                        sql.Identifier(old), sql.Identifier(role)))
                try:
                    os.remove(os.path.join(self.datadir, f"companion-club.{old}.password"))
                except OSError:
                    pass
        if not os.path.exists(keep):
            with open(os.open(keep, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
                f.write(password + "\n")
        url = self.url(name)
        rest = url.split("@", 1)[1]
        return (f"postgresql://{urllib.parse.quote(role, safe='')}:"
                f"{urllib.parse.quote(password, safe='')}@{rest}")

    def drop_database(self, name):
        """Drop ``name`` if it exists (open connections to it are ended)."""
        from psycopg import sql
        with self._admin() as db:
            db.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                sql.Identifier(name)))


def start(datadir, port=5432, host="127.0.0.1", database="club") -> str:
    """Start (or reuse) the PostgreSQL in ``datadir`` and return ``database``'s URL."""
    return Server(datadir, port, host).start().create_database(database)


def stop(datadir):
    """Stop the PostgreSQL in ``datadir`` if it runs."""
    Server(datadir).stop()


def installed() -> bool:
    try:
        bin_dir()
    except PostgresError:
        return False
    return shutil.which("runuser") is not None or os.geteuid() != 0
