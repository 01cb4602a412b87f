"""Errors a plugin method returns to aiperf as gRPC status codes."""

import grpc


class PluginError(Exception):
    """A clear, expected failure (bad input, wrong call order). The host
    receives `code` and the message; anything else that escapes a method is
    reported as INTERNAL naming the method."""

    def __init__(self, message, code=grpc.StatusCode.INVALID_ARGUMENT):
        super().__init__(message)
        self.code = code
