"""Satchel's S3 test peer: OpenStack Swift (Debian's python3-swift, 2.30) as a throwaway single-node object store
with the S3 API (s3api + tempauth) on 127.0.0.1.

    /usr/bin/python3 swift_s3_server.py --dir DIR --port PORT

Run it with the system Python (python3-swift is a Debian package, not in any venv). DIR is a folder that the
script owns (an empty one for a new store; one it ran in before to serve the same objects again): swift.conf, the rings, the server configs, the storage device (DIR/devices/d1) and the logs
(DIR/logs/*.log) all go there, and nothing is written anywhere else. PORT is the S3 endpoint (Swift's proxy); the
account, container and object servers listen on free ports that the launcher binds itself and hands over. The
launcher never deletes DIR (its logs help a post-mortem): the caller removes it.

When every server answers, and an S3 ListBuckets signed with SigV4 succeeds, the launcher prints one line to stdout:

    swift_s3_server: ready http://127.0.0.1:PORT

Credentials: access key "test:tester", secret "testing", region us-east-1, path-style addressing.

Lifetime: the launcher exits, and stops its four children, when its standard input reaches EOF (keep a pipe open
as a lifeline), on SIGTERM/SIGINT/SIGHUP, or when any child dies. Each child also dies with the launcher: it gets
PR_SET_PDEATHSIG(SIGKILL), and it exits when its own stdin, a pipe whose write end only the launcher holds, closes.
Exit status: 0 after a requested stop, 1 if a server died or startup failed (the logs' tails go to stderr), 2 if PORT
is taken or swift cannot be imported.

Internals: the launcher re-invokes this file with --role account|container|object|proxy; each child points Swift at
DIR/swift.conf (swift.common.utils.set_swift_dir, then reloads storage policies and constraints), sends Swift's
logging to its stderr (= DIR/logs/ROLE.log) instead of syslog, and serves its inherited listen socket with
swift.common.wsgi.run_server, the core of run_wsgi without its daemon hygiene (setsid, chdir /, closing stdio).
"""

import argparse
import ctypes
import datetime
import hashlib
import hmac
import http.client
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time

HOST = "127.0.0.1"
ROLES = ("account", "container", "object", "proxy")
BACKENDS = ("account", "container", "object")
ACCESS_KEY, SECRET_KEY, REGION = "test:tester", "testing", "us-east-1"
STARTUP_TIMEOUT = 60.0

# ---------------------------------------------------------------------------------------------------------------
# Configuration files
# ---------------------------------------------------------------------------------------------------------------

SWIFT_CONF = """\
[swift-hash]
swift_hash_path_prefix = {prefix}
swift_hash_path_suffix = {suffix}

[storage-policy:0]
name = Policy-0
default = yes

[swift-constraints]
# Swift's defaults, spelled out: a plain PUT may be up to 5 GiB + 2 bytes.
max_file_size = 5368709122
"""

# Settings every server shares. Logging goes to the process's stderr, i.e. DIR/logs/ROLE.log (see log_to_stderr).
COMMON_DEFAULT = """\
[DEFAULT]
swift_dir = {dir}
devices = {dir}/devices
mount_check = false
bind_ip = {host}
bind_port = {port}
workers = 0
log_name = {role}-server
log_level = INFO
recon_cache_path = {dir}/recon
fallocate_reserve = 0
# 1 MiB instead of 64 KiB reads and writes: fewer eventlet round trips for large objects (object server).
network_chunk_size = 1048576
disk_chunk_size = 1048576
"""

BACKEND_CONF = COMMON_DEFAULT + """
[pipeline:main]
pipeline = {role}-server

[app:{role}-server]
use = egg:swift#{role}
"""

PROXY_CONF = COMMON_DEFAULT + """
[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo \
proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
allow_account_management = true
account_autocreate = true
# Without this, one refused or timed-out back-end connection shuts the only node out for 60 s.
error_suppression_interval = 0
conn_timeout = 5
node_timeout = 60
client_timeout = 120
object_chunk_size = 1048576
client_chunk_size = 1048576

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:gatekeeper]
use = egg:swift#gatekeeper

[filter:healthcheck]
use = egg:swift#healthcheck

[filter:proxy-logging]
use = egg:swift#proxy_logging

# tempauth keeps its tokens in memcache. No memcached runs: this port is bound (not listening) by the launcher for
# its lifetime, so a connection is refused at once and nothing else can take the port. S3 requests are checked by
# signature and need no token.
[filter:cache]
use = egg:swift#memcache
memcache_servers = {host}:{memcache_port}

[filter:listing_formats]
use = egg:swift#listing_formats

[filter:s3api]
use = egg:swift#s3api
location = {region}

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin

[filter:copy]
use = egg:swift#copy

[filter:slo]
use = egg:swift#slo

[filter:dlo]
use = egg:swift#dlo
"""


def write_configuration(root, ports, memcache_port):
    """Write swift.conf, the three rings, the four server configs and the device folder under root."""
    from swift.common.ring import RingBuilder  # imported here: only the launcher builds rings

    for sub in ("devices/d1", "logs", "recon"):
        os.makedirs(os.path.join(root, sub), exist_ok=True)
    # Kept when DIR already holds a store (a restart): the hash path prefix and suffix decide where every object
    # lives. Rings and configs are written afresh, for this run's ports; the one device holds every partition.
    conf = os.path.join(root, "swift.conf")
    if not os.path.exists(conf):
        with open(conf, "w") as f:
            f.write(SWIFT_CONF.format(prefix=secrets.token_hex(8), suffix=secrets.token_hex(8)))
    for role in BACKENDS:
        builder = RingBuilder(8, 1, 1)  # part power 8, 1 replica, min_part_hours 1
        builder.add_dev({"region": 1, "zone": 1, "ip": HOST, "port": ports[role], "device": "d1", "weight": 1})
        builder.rebalance()
        builder.get_ring().save(os.path.join(root, f"{role}.ring.gz"))
    for role in ROLES:
        template = PROXY_CONF if role == "proxy" else BACKEND_CONF
        text = template.format(dir=root, host=HOST, port=ports[role], role=role, region=REGION,
                               memcache_port=memcache_port)
        with open(conf_path(root, role), "w") as f:
            f.write(text)


def conf_path(root, role):
    return os.path.join(root, f"{role}-server.conf")


# ---------------------------------------------------------------------------------------------------------------
# Child: one Swift server
# ---------------------------------------------------------------------------------------------------------------

def die_with_parent(parent_pid):
    """SIGKILL this process when the launcher dies; if it is already gone, exit now."""
    PR_SET_PDEATHSIG = 1
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:
        os._exit(1)


def exit_on_stdin_eof():
    """Exit at once when stdin (the launcher's pipe) reaches EOF. A raw OS thread, started before eventlet
    monkey-patches threading, so a blocking read does not stall the eventlet hub."""
    import _thread

    def watch():
        try:
            while os.read(0, 4096):
                pass
        except OSError:
            pass
        os._exit(0)

    _thread.start_new_thread(watch, ())


def use_swift_dir(root):
    """Make this process read DIR/swift.conf instead of /etc/swift/swift.conf: hash path prefix/suffix, storage
    policies and constraints. Must run before the server modules are imported (some copy constraints at import)."""
    from swift.common import utils

    utils.set_swift_dir(root)  # sets utils.SWIFT_CONF_FILE, re-reads the hash path prefix/suffix
    from swift.common import constraints, storage_policy

    storage_policy.reload_storage_policies()
    constraints.reload_constraints()
    assert utils.SWIFT_CONF_FILE == os.path.join(root, "swift.conf"), utils.SWIFT_CONF_FILE


def log_to_stderr():
    """Swift's get_logger always adds a syslog handler (/dev/log, or UDP localhost:514 when that is missing);
    make it a stderr handler instead. stderr is the child's log file."""
    import logging
    from swift.common import utils

    utils.ThreadSafeSysLogHandler = lambda *args, **kwargs: logging.StreamHandler(sys.stderr)


def run_role(args):
    die_with_parent(args.parent_pid)
    exit_on_stdin_eof()
    # The listen socket the launcher bound and passed down (a plain socket until eventlet wraps it below).
    listen_sock = socket.socket(fileno=args.fd)

    use_swift_dir(args.dir)
    log_to_stderr()

    from swift.common import utils

    utils.eventlet_monkey_patch()  # as run_wsgi does, before loading the app
    from eventlet.greenio import GreenSocket
    from swift.common.wsgi import appconfig, run_server

    path = conf_path(args.dir, args.role)
    section = f"{args.role}-server"
    conf = appconfig(path, name=section)
    log_name = conf.get("log_name", section)
    logger = utils.get_logger(conf, log_name, log_route="wsgi")
    logger.info("serving %s on %s:%s", section, *listen_sock.getsockname())
    # run_server: loads the paste pipeline and serves it with Swift's HTTP protocol on this socket, until killed.
    run_server(conf, logger, GreenSocket(listen_sock), global_conf={"log_name": log_name})
    return 0


# ---------------------------------------------------------------------------------------------------------------
# Launcher
# ---------------------------------------------------------------------------------------------------------------

def listen_socket(port):
    """A listen socket on 127.0.0.1:port, with the options swift.common.wsgi.get_socket would set."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    sock.listen(1024)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # inherited by the accepted connections
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 600)
    return sock


def http_status(port, method, path, headers=None, timeout=STARTUP_TIMEOUT / 2):
    """Status of one request to 127.0.0.1:port, or None if it could not be made."""
    try:
        conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
        try:
            conn.request(method, path, headers=headers or {})
            response = conn.getresponse()
            response.read()
            return response.status
        finally:
            conn.close()
    except (OSError, http.client.HTTPException):
        return None


def sigv4_headers(port, method="GET", path="/", query=""):
    """Headers of an AWS Signature V4 request with an empty body (enough for ListBuckets)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    payload_hash = hashlib.sha256(b"").hexdigest()
    headers = {"host": f"{HOST}:{port}", "x-amz-content-sha256": payload_hash, "x-amz-date": amz_date}
    signed = ";".join(sorted(headers))
    canonical = "\n".join([method, path, query, *(f"{k}:{headers[k]}" for k in sorted(headers)), "", signed,
                           payload_hash])
    scope = f"{day}/{REGION}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + SECRET_KEY).encode()
    for part in (day, REGION, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    headers["Authorization"] = (f"AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/{scope}, SignedHeaders={signed}, "
                                f"Signature={signature}")
    return headers


class Launcher:
    def __init__(self, root, port):
        self.root = root
        self.port = port
        self.children = {}
        self.stop = threading.Event()
        self.stop_reason = None

    def request_stop(self, reason):
        if not self.stop.is_set():
            self.stop_reason = reason
            self.stop.set()

    def watch_stdin(self):
        try:
            while os.read(0, 4096):
                pass
        except OSError:
            pass
        self.request_stop("stdin closed")

    def run(self):
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, lambda signum, _frame: self.request_stop(signal.Signals(signum).name))
        threading.Thread(target=self.watch_stdin, daemon=True).start()
        started = time.monotonic()
        try:
            self.start_children()
            if not self.wait_ready():
                return 1
            log(f"ready in {time.monotonic() - started:.1f} s, logs in {self.root}/logs")
            print(f"swift_s3_server: ready http://{HOST}:{self.port}", flush=True)
            while not self.stop.wait(0.5):
                if self.dead_child():
                    return 1
            log(f"stopping ({self.stop_reason})")
            return 0
        finally:
            self.stop_children()

    def start_children(self):
        os.makedirs(self.root, exist_ok=True)
        self.root = os.path.realpath(self.root)
        # Bind every listen socket here and hand it down: no race for the ports, and a busy PORT fails at once.
        try:
            socks = {"proxy": listen_socket(self.port)}
        except OSError as error:
            log(f"cannot listen on {HOST}:{self.port}: {error.strerror}")
            raise SystemExit(2)
        for role in BACKENDS:
            socks[role] = listen_socket(0)
        ports = {role: sock.getsockname()[1] for role, sock in socks.items()}
        # Bound, never listening: connections to it are refused (the memcache servers setting, see PROXY_CONF).
        self.memcache_guard = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.memcache_guard.bind((HOST, 0))
        self.backend_ports = {role: ports[role] for role in BACKENDS}
        write_configuration(self.root, ports, self.memcache_guard.getsockname()[1])

        # The children's stdin: a pipe whose write end only the launcher holds, so it closes when the launcher dies.
        lifeline_read, self.lifeline_write = os.pipe()
        os.set_inheritable(self.lifeline_write, False)
        try:
            for role in ROLES:
                fd = socks[role].fileno()
                log_file = open(os.path.join(self.root, "logs", f"{role}.log"), "ab")
                self.children[role] = subprocess.Popen(
                    [sys.executable, os.path.abspath(__file__), "--role", role, "--dir", self.root,
                     "--fd", str(fd), "--parent-pid", str(os.getpid())],
                    stdin=lifeline_read, stdout=log_file, stderr=subprocess.STDOUT, pass_fds=(fd,), cwd=self.root)
                log_file.close()
        finally:
            os.close(lifeline_read)
            for sock in socks.values():
                sock.close()  # the children hold them now

    def dead_child(self):
        for role, child in self.children.items():
            if child.poll() is not None:
                log(f"{role} server exited with status {child.returncode}; see {self.root}/logs/{role}.log")
                self.show_log(role)
                return True
        return False

    def show_log(self, role, lines=30):
        try:
            with open(os.path.join(self.root, "logs", f"{role}.log"), errors="replace") as f:
                for line in f.readlines()[-lines:]:
                    sys.stderr.write(f"  {role}: {line}")
        except OSError:
            pass

    def wait_until(self, what, check):
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if self.stop.is_set() or self.dead_child():
                return False
            if check():
                return True
            time.sleep(0.05)
        log(f"timed out waiting for {what}")
        for role in ROLES:
            self.show_log(role, 10)
        return False

    def wait_ready(self):
        # The listen sockets exist before the servers do, so a probe connects at once and its request waits in the
        # backlog until the server starts: probes get a long timeout rather than being retried. (If a server dies,
        # its socket closes and the probe fails at once.)
        # 1. Each back end answers HTTP (any status: a HEAD on a missing account/container/object is a 404).
        probes = {"account": "/d1/0/probe", "container": "/d1/0/probe/probe", "object": "/d1/0/probe/probe/probe"}
        for role, path in probes.items():
            port = self.backend_ports[role]
            if not self.wait_until(f"{role} server", lambda: http_status(port, "HEAD", path) is not None):
                return False
        # 2. The proxy's healthcheck, then 3. an S3 ListBuckets through s3api, tempauth and the account server.
        if not self.wait_until("proxy healthcheck", lambda: http_status(self.port, "GET", "/healthcheck") == 200):
            return False
        return self.wait_until("S3 ListBuckets",
                               lambda: http_status(self.port, "GET", "/", sigv4_headers(self.port)) == 200)

    def stop_children(self):
        for child in self.children.values():
            if child.poll() is None:
                child.terminate()
        deadline = time.monotonic() + 3
        for child in self.children.values():
            try:
                child.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


def log(message):
    sys.stderr.write(f"swift_s3_server: {message}\n")
    sys.stderr.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True,
                        help="folder the server owns (configs, rings, data, logs); a store left there is served again")
    parser.add_argument("--port", type=int, help="the S3 endpoint's port on 127.0.0.1")
    parser.add_argument("--remove-unless-kept", metavar="FOLDER",
                        help="on exit, remove FOLDER (which holds DIR) unless FOLDER/keep exists")
    parser.add_argument("--role", choices=ROLES, help=argparse.SUPPRESS)  # internal: run one server
    parser.add_argument("--fd", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--parent-pid", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    try:
        import swift  # noqa: F401 (Debian's python3-swift lives in the system Python only)
    except ImportError:
        parser.exit(2, "swift_s3_server: cannot import swift (python3-swift); run this with /usr/bin/python3\n")
    if args.role:
        return run_role(args)
    if args.port is None:
        parser.error("--port is required")
    status = Launcher(args.dir, args.port).run()
    # The test process that started this one is gone, or done with the store: nothing of it stays on disk.
    folder = args.remove_unless_kept
    if folder and not os.path.exists(os.path.join(folder, "keep")):
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
