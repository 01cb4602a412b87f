"""The aiperf Plugin gRPC service: Describe plus the endpoint and
record_processor methods. Methods of other categories (CanLoad, LoadDataset,
Export) are inherited from the generated base class, which answers
UNIMPLEMENTED, as the Go helper does."""

import functools
import logging

import grpc

from . import __version__, goplugin, textgen
from . import plugin_pb2 as pb
from . import plugin_pb2_grpc as pb_grpc
from .errors import PluginError
from .words import WordMetrics

NAME = "textgen_py"
DESCRIPTION = "Python example: textgen endpoint and word metrics"
CATEGORIES = ("endpoint", "record_processor")

log = logging.getLogger("aiperf_plugin.service")


def rpc(method):
    """Turns failures into gRPC status errors naming the method: PluginError
    keeps its code, anything unexpected (a bug) becomes INTERNAL, and the
    process keeps serving either way."""
    name = method.__name__

    @functools.wraps(method)
    def wrapper(self, request, context):
        try:
            return method(self, request, context)
        except PluginError as e:
            code, message = e.code, f"{name}: {e}"
        except Exception as e:  # noqa: BLE001 - a plugin bug must not kill the process
            log.exception("%s failed", name)
            code, message = grpc.StatusCode.INTERNAL, f"{name}: unexpected {type(e).__name__}: {e}"
        context.abort(code, message)

    return wrapper


class PluginServicer(pb_grpc.PluginServicer):
    def __init__(self):
        self._words = WordMetrics()

    @rpc
    def Describe(self, request, context):
        return pb.DescribeResponse(
            api_version=goplugin.APP_PROTOCOL_VERSION,
            name=NAME,
            version=__version__,
            description=DESCRIPTION,
            categories=CATEGORIES,
            endpoint=textgen.METADATA,
        )

    @rpc
    def FormatPayload(self, request, context):
        return pb.FormatPayloadResponse(payload=textgen.format_payload(request))

    @rpc
    def ParseRecord(self, request, context):
        return textgen.parse_record(request.units)

    @rpc
    def InitRecordProcessor(self, request, context):
        self._words.init(request)
        return pb.Empty()

    @rpc
    def ProcessRecord(self, request, context):
        resp = pb.ProcessRecordResponse()
        for tag, value in self._words.process(request).items():
            resp.values[tag].scalar = value
        return resp


def register(server):
    pb_grpc.add_PluginServicer_to_server(PluginServicer(), server)
