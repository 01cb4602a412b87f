"""The aiperf Plugin gRPC service: Describe, Configure, and the endpoint and
record_processor methods. Methods of other categories (CanLoad, LoadDataset,
Export) are inherited from the generated base class, which answers
UNIMPLEMENTED, as the Go helper does.

Configure arrives once per manifest entry that has settings, before Init,
naming the entry's category and name: the record processor has settings
(words.py), the endpoint has none and refuses any."""

import functools
import logging

import grpc

from . import __version__, goplugin, settings, textgen
from . import plugin_pb2 as pb
from . import plugin_pb2_grpc as pb_grpc
from .errors import PluginError
from .words import METRICS, WordMetrics

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
            metrics=METRICS,
        )

    @rpc
    def Configure(self, request, context):
        category = request.category
        if category not in CATEGORIES:
            raise PluginError(
                f'this plugin does not implement category "{category}" (it implements: {", ".join(CATEGORIES)})'
            )
        if category == "record_processor":
            self._words.configure(request.config_json)
        else:
            settings.refuse_any(request.config_json, f"{category}.{request.name}")
        return pb.Empty()

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
