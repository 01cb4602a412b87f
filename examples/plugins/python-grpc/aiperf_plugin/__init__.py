"""An aiperf plugin written in Python: a gRPC server speaking
hashicorp/go-plugin's protocol (goplugin.py) that implements the aiperf
Plugin service (service.py) for a textgen endpoint (textgen.py) and a word
metrics record processor (words.py). plugin_pb2*.py are generated from
plugin-sdk/proto by regenerate.sh."""

__version__ = "0.1.0"
