"""Content through `satchel serve` with blobs in S3-compatible object storage, beside boto3 against the same store.

One OpenStack Swift (S3 API) on loopback, two buckets: boto3 uploads and downloads straight into one; satchel serve
(SQLite metadata, --blobs s3://…) stores what clients send it into the other. Both sides move the same files with
the same number of client threads, in the same run, alternating, several runs; medians at the end, with satchel's
share of boto3's throughput and satchel's peak RSS (VmHWM).

    bench_blobs.py --satchel .build/release/satchel --swift-launcher Tests/Peers/swift_s3_server.py

Run by scripts/bench-blobs, which builds the release binary and installs boto3.
"""

import argparse
import base64
import concurrent.futures
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config

KEY, SECRET, REGION = "test:tester", "testing", "us-east-1"
FOLDER = "/cmis/browser/shared/root"


def free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_line(process, marker, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        if marker in line:
            return
    raise SystemExit(f"bench: '{marker}' never came (exit {process.poll()})")


def wait_for_http(port, path, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", path)
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"bench: nothing answers on port {port}")


def write_random(path, size):
    with open(path, "wb") as f:
        left = size
        while left:
            chunk = os.urandom(min(left, 1 << 20))
            f.write(chunk)
            left -= len(chunk)


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class Satchel:
    """Browser binding calls on one keep-alive connection per thread."""

    def __init__(self, port, user, password):
        self.port = port
        self.auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        self.local = threading.local()

    def connection(self):
        """This thread's connection: a new one when the server closed the last (its idle timeout passes while the
        other side of the benchmark runs)."""
        connection = getattr(self.local, "connection", None)
        if connection is not None and connection.sock is not None:
            import select

            readable, _, _ = select.select([connection.sock], [], [], 0)
            if readable:  # closed by the server (or unexpected bytes): start afresh
                connection.close()
                connection = None
        if connection is None:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
            self.local.connection = connection
        return connection

    def create(self, name, path=None, data=None):
        """createDocument with content streamed from `path` (or `data`); returns the object id."""
        boundary = uuid.uuid4().hex
        head = (
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"cmisaction\"\r\n\r\ncreateDocument\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"propertyId[0]\"\r\n\r\ncmis:name\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"propertyValue[0]\"\r\n\r\n{name}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"propertyId[1]\"\r\n\r\ncmis:objectTypeId\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"propertyValue[1]\"\r\n\r\ncmis:document\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"succinct\"\r\n\r\ntrue\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"content\"; filename=\"{name}\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        tail = f"\r\n--{boundary}--\r\n".encode()
        size = os.path.getsize(path) if path else len(data)
        connection = self.connection()
        connection.putrequest("POST", FOLDER)
        connection.putheader("Authorization", self.auth)
        connection.putheader("Content-Type", f"multipart/form-data; boundary={boundary}")
        connection.putheader("Content-Length", str(len(head) + size + len(tail)))
        connection.endheaders()
        connection.send(head)
        if path:
            with open(path, "rb") as f:
                while True:
                    chunk = f.read(1 << 20)
                    if not chunk:
                        break
                    connection.send(chunk)
        else:
            connection.send(data)
        connection.send(tail)
        response = connection.getresponse()
        body = response.read()
        if response.status != 201:
            raise SystemExit(f"bench: createDocument answered {response.status}: {body[:300]!r}")
        return json.loads(body)["succinctProperties"]["cmis:objectId"]

    def read(self, object_id):
        """The content, read in 1 MiB pieces and dropped; returns its length."""
        connection = self.connection()
        connection.request(
            "GET", f"{FOLDER}?objectId={object_id}&cmisselector=content", headers={"Authorization": self.auth})
        response = connection.getresponse()
        if response.status != 200:
            raise SystemExit(f"bench: content answered {response.status}: {response.read()[:300]!r}")
        total = 0
        while True:
            chunk = response.read(1 << 20)
            if not chunk:
                return total
            total += len(chunk)


def timed(work):
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--satchel", required=True)
    parser.add_argument("--swift-launcher", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--big-mib", type=int, default=1024)
    parser.add_argument("--small-count", type=int, default=1000)
    parser.add_argument("--small-kib", type=int, default=100)
    parser.add_argument("--threads", type=int, default=8, help="client threads for the small files, both sides")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="satchel-bench-blobs.")
    processes = []
    try:
        swift_port = free_port()
        os.makedirs(f"{work}/swift")
        swift = subprocess.Popen(
            ["/usr/bin/python3", args.swift_launcher, "--dir", f"{work}/swift", "--port", str(swift_port)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(f"{work}/swift.log", "w"), text=True)
        processes.append(swift)
        wait_for_line(swift, "swift_s3_server: ready", 120)
        endpoint = f"http://127.0.0.1:{swift_port}"
        s3 = boto3.client(
            "s3", endpoint_url=endpoint, aws_access_key_id=KEY, aws_secret_access_key=SECRET, region_name=REGION,
            config=Config(s3={"addressing_style": "path"}, signature_version="s3v4",
                          max_pool_connections=max(10, args.threads)))
        for bucket in ("boto-bench", "satchel-bench"):
            s3.create_bucket(Bucket=bucket)

        password = uuid.uuid4().hex
        entry = subprocess.run(
            [args.satchel, "serve", "hash-password", "bench"], input=password, capture_output=True, text=True,
            check=True).stdout.strip()
        with open(f"{work}/users.json", "w") as f:
            f.write('{"users":[%s]}\n' % entry)
        satchel_port = free_port()
        environment = dict(os.environ, AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET)
        server = subprocess.Popen(
            [args.satchel, "serve", "--host", "127.0.0.1", "--port", str(satchel_port), "--data", f"{work}/data",
             "--users", f"{work}/users.json", "--blobs", f"s3://satchel-bench?endpoint={endpoint}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(f"{work}/satchel.log", "w"),
            env=environment)
        processes.append(server)
        wait_for_http(satchel_port, "/health")
        client = Satchel(satchel_port, "bench", password)

        big = f"{work}/big.bin"
        write_random(big, args.big_mib << 20)
        small = [os.urandom(args.small_kib << 10) for _ in range(args.small_count)]
        print(f"== {args.big_mib} MiB once, and {args.small_count} x {args.small_kib} KiB with {args.threads} client "
              f"threads; {args.runs} runs; Swift S3 at {endpoint}, satchel serve (release) at :{satchel_port}")

        results = {name: [] for name in (
            "boto3 put big", "satchel put big", "boto3 get big", "satchel get big",
            "boto3 put small", "satchel put small", "boto3 get small", "satchel get small")}
        transfer = TransferConfig()  # boto3's defaults: 8 MiB parts, 10 threads
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.threads)
        for run in range(1, args.runs + 1):
            tag = f"r{run}-{uuid.uuid4().hex[:6]}"
            results["boto3 put big"].append(timed(lambda: s3.upload_file(big, "boto-bench", f"{tag}/big", Config=transfer)))
            big_id = {}
            results["satchel put big"].append(timed(lambda: big_id.setdefault("id", client.create(f"{tag}-big.bin", path=big))))
            results["boto3 get big"].append(
                timed(lambda: s3.download_file("boto-bench", f"{tag}/big", f"{work}/down.bin", Config=transfer)))
            os.remove(f"{work}/down.bin")
            sizes = []
            results["satchel get big"].append(timed(lambda: sizes.append(client.read(big_id["id"]))))
            assert sizes[0] == args.big_mib << 20, sizes

            def boto_put(index):
                s3.put_object(Bucket="boto-bench", Key=f"{tag}/small-{index}", Body=small[index])

            def boto_get(index):
                s3.get_object(Bucket="boto-bench", Key=f"{tag}/small-{index}")["Body"].read()

            ids = [None] * args.small_count

            def satchel_put(index):
                ids[index] = client.create(f"{tag}-small-{index}.bin", data=small[index])

            def satchel_get(index):
                assert client.read(ids[index]) == len(small[index])

            for name, function in (("boto3 put small", boto_put), ("satchel put small", satchel_put),
                                   ("boto3 get small", boto_get), ("satchel get small", satchel_get)):
                results[name].append(timed(lambda: list(pool.map(function, range(args.small_count)))))
            print(f"run {run}: " + ", ".join(f"{name} {values[-1]:.2f} s" for name, values in results.items()))

        rss = peak_rss_mib(server.pid)
        big_mb = (args.big_mib << 20) / 1e6
        small_mb = args.small_count * (args.small_kib << 10) / 1e6
        print("\n== medians")
        print(f"{'case':<22}{'boto3 MB/s':>12}{'satchel MB/s':>14}{'satchel/boto3':>15}")
        for case, megabytes in (("put big", big_mb), ("get big", big_mb), ("put small", small_mb),
                                ("get small", small_mb)):
            boto = megabytes / statistics.median(results[f"boto3 {case}"])
            ours = megabytes / statistics.median(results[f"satchel {case}"])
            print(f"{case:<22}{boto:>12.1f}{ours:>14.1f}{ours / boto:>14.0%}")
        print(f"\nsatchel serve peak RSS (VmHWM): {rss:.1f} MiB")
    finally:
        for process in reversed(processes):
            try:
                if process.stdin:
                    process.stdin.close()
                process.terminate()
                process.wait(timeout=20)
            except Exception:
                process.kill()
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    sys.exit(main())
