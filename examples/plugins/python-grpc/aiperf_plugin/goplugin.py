"""hashicorp/go-plugin's host protocol, spoken from Python.

aiperf starts external plugins with go-plugin. A plugin in any language must:

1. refuse to run unless the magic cookie env var carries the host's value
   (it is a plugin, not a program to run by hand);
2. serve gRPC on a local address, with grpc.health.v1.Health reporting the
   service "plugin" as SERVING (go-plugin pings it);
3. print one handshake line to stdout and flush it:
   CORE-PROTOCOL-VERSION|APP-PROTOCOL-VERSION|NETWORK|ADDRESS|PROTOCOL
   e.g. "1|1|tcp|127.0.0.1:41234|grpc".

On top of that we serve go-plugin's plugin.GRPCController/Shutdown so the
host's Kill() ends this process at once instead of waiting two seconds and
then killing it, and log to stderr as hclog JSON lines so the host shows our
messages with their level under the plugin's name.
"""

import datetime
import json
import logging
import os
import signal
import sys
import threading
import time
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

# Must equal plugin-sdk/grpcplugin's Handshake (MagicCookieKey/Value).
MAGIC_COOKIE_KEY = "AIPERF_PLUGIN"
MAGIC_COOKIE_VALUE = "7c3e9a1f5b2d48e6a0c4f19d2b7e6a35c8d1f04e9b2a7c6d"

# go-plugin's own protocol version: 1 is the only one it accepts.
CORE_PROTOCOL_VERSION = 1
# The application protocol is aiperf's plugin API major version (sdk.APIVersion).
APP_PROTOCOL_VERSION = 1

# go-plugin pings the health service under this name.
HEALTH_SERVICE_NAME = "plugin"

# go-plugin caps nothing on its side (math.MaxInt32); a long streaming record
# can exceed grpc's 4 MiB default, so lift it here as well (-1 = unlimited).
# The host waits on every call (one per record), so favour latency: it cut
# a round trip by 10-20% in BenchmarkPythonParseRecord.
_SERVER_OPTIONS = [
    ("grpc.max_receive_message_length", -1),
    ("grpc.max_send_message_length", -1),
    ("grpc.optimization_target", "latency"),
]

log = logging.getLogger("aiperf_plugin")


class HclogJSONFormatter(logging.Formatter):
    """Formats records as the JSON lines go-plugin's host parses: @level,
    @message, @timestamp (with exactly six fractional digits, the layout the
    host expects) and any `extra` fields as key/value pairs."""

    _LEVELS = {
        logging.DEBUG: "debug",
        logging.INFO: "info",
        logging.WARNING: "warn",
        logging.ERROR: "error",
        logging.CRITICAL: "error",
    }
    _STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}

    def format(self, record):
        entry = {
            "@level": self._LEVELS.get(record.levelno, "info"),
            "@message": record.getMessage(),
            "@timestamp": datetime.datetime.fromtimestamp(record.created, datetime.timezone.utc).isoformat(
                timespec="microseconds"
            ),
        }
        for key, value in vars(record).items():
            if key not in self._STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def setup_logging(level=logging.INFO):
    """Sends this process's log records to stderr in hclog JSON."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(HclogJSONFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def check_cookie(environ=None):
    """Returns None when started by the host, else the message to print."""
    environ = os.environ if environ is None else environ
    if environ.get(MAGIC_COOKIE_KEY) == MAGIC_COOKIE_VALUE:
        return None
    return (
        "This program is an aiperf plugin. It is not meant to be executed directly:\n"
        "declare it in a plugin manifest (kind: grpc) and aiperf starts it.\n"
    )


def check_app_version(environ=None):
    """go-plugin tells the plugin which application versions the host speaks
    (PLUGIN_PROTOCOL_VERSIONS). Like go-plugin's Go server we still announce
    our own version when it is not listed: the host then refuses us with a
    message naming both versions, which is clearer than a silent exit."""
    environ = os.environ if environ is None else environ
    listed = [v.strip() for v in environ.get("PLUGIN_PROTOCOL_VERSIONS", "").split(",") if v.strip()]
    if listed and str(APP_PROTOCOL_VERSION) not in listed:
        log.warning(
            "host speaks plugin API %s, this plugin speaks v%d",
            ",".join("v" + v for v in listed),
            APP_PROTOCOL_VERSION,
        )


def handshake_line(port):
    return f"{CORE_PROTOCOL_VERSION}|{APP_PROTOCOL_VERSION}|tcp|127.0.0.1:{port}|grpc"


def _shutdown_handler(stop):
    """plugin.GRPCController/Shutdown(google.protobuf.Empty) -> Empty. Empty
    encodes to zero bytes, so no generated code is needed for it."""

    def shutdown(_request, _context):
        log.debug("shutdown requested by the host")
        stop()
        return b""

    return grpc.method_handlers_generic_handler(
        "plugin.GRPCController",
        {
            # No (de)serializers: the handler sees and returns raw bytes.
            "Shutdown": grpc.unary_unary_rpc_method_handler(shutdown)
        },
    )


def _exit_when_orphaned(stop, interval_s=1.0):
    """A host that dies without killing us leaves us reparented; go away then
    instead of lingering forever."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(interval_s)
        log.warning("host process %d is gone; exiting", parent)
        stop()

    threading.Thread(target=watch, name="orphan-watch", daemon=True).start()


def serve(register, max_workers=None):
    """Serves the plugin until the host shuts it down.

    register(server) adds the application's services to the grpc server.
    Returns the process exit code.
    """
    message = check_cookie()
    if message is not None:
        sys.stderr.write(message)
        return 1
    check_app_version()

    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=max_workers or min(32, (os.cpu_count() or 1) * 4)),
        options=_SERVER_OPTIONS,
    )
    def stop():
        # From another thread, so a Shutdown call's reply leaves before the
        # server goes away; stopping twice is harmless.
        threading.Thread(target=lambda: server.stop(grace=1.0), daemon=True).start()

    health_servicer = health.HealthServicer()
    health_servicer.set(HEALTH_SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    server.add_generic_rpc_handlers((_shutdown_handler(stop),))
    register(server)

    try:
        port = server.add_insecure_port("127.0.0.1:0")
    except RuntimeError as e:  # grpcio raises where older versions returned 0
        port, reason = 0, e
    else:
        reason = "no port"
    if port == 0:
        log.error("cannot listen on 127.0.0.1: %s", reason)
        return 1
    server.start()

    # Ctrl-C in a terminal reaches the whole process group; the host decides
    # when its plugins stop (after exporting what it measured), as go-plugin's
    # Go servers do.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda _sig, _frame: stop())
    _exit_when_orphaned(stop)

    sys.stdout.write(handshake_line(port) + "\n")
    sys.stdout.flush()
    log.info("serving", extra={"address": f"127.0.0.1:{port}"})

    server.wait_for_termination()
    log.debug("stopped")
    return 0
