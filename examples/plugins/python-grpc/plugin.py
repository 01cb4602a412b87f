#!/usr/bin/env python3
"""Entry point of the Python aiperf plugin. aiperf starts it through
hashicorp/go-plugin (kind: grpc); run by hand it explains that and exits 1."""

import sys

# Python puts this file's directory first on sys.path, so the package next
# to it imports without installation.
from aiperf_plugin import goplugin, service


def main():
    goplugin.setup_logging()
    return goplugin.serve(service.register)


if __name__ == "__main__":
    sys.exit(main())
