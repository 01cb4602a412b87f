"""Record processor computing word-level metrics of each answer.

Metrics (per successful record, in base units), declared to aiperf through
Describe (METRICS) so they get a header, a unit and flags like its own:
  answer_word_count        words in the generated answer (reasoning excluded
                           unless the count_reasoning setting is true)
  answer_words_per_second  answer words / request latency in seconds
  output_tokens_per_word   output tokens / answer words (tokenizer efficiency);
                           only for endpoints that produce tokens

Failed requests produce no values: a word count of an error body says
nothing about the model.

Settings (the manifest entry's config, or --plugin-config
record_processor.<name>.count_reasoning=true):
  count_reasoning  bool, default false: count the reasoning text's words too
"""

import grpc

from . import plugin_pb2 as pb
from . import settings
from .errors import PluginError

ANSWER_WORD_COUNT = "answer_word_count"
ANSWER_WORDS_PER_SECOND = "answer_words_per_second"
OUTPUT_TOKENS_PER_WORD = "output_tokens_per_word"

# AIPerf's metric flag bits (Go's sdk.MetricFlags).
FLAG_PRODUCES_TOKENS_ONLY = 1 << 2
FLAG_LARGER_IS_BETTER = 1 << 4

# The metrics this processor declares (DescribeResponse.metrics).
METRICS = (
    pb.MetricSpec(tag=ANSWER_WORD_COUNT, header="Answer Word Count", short_header="Words", unit="words", integer=True),
    pb.MetricSpec(
        tag=ANSWER_WORDS_PER_SECOND,
        header="Answer Words Per Second",
        short_header="Words/s",
        unit="words/sec",
        flags=FLAG_LARGER_IS_BETTER,
    ),
    pb.MetricSpec(
        tag=OUTPUT_TOKENS_PER_WORD,
        header="Output Tokens Per Word",
        unit="tokens/word",
        flags=FLAG_PRODUCES_TOKENS_ONLY,
    ),
)

DEFAULT_SETTINGS = {"count_reasoning": False}
SETTING_TYPES = {"count_reasoning": bool}

_NS_PER_S = 1e9


class WordMetrics:
    """Safe for concurrent Process calls: Configure and Init replace the
    settings and the run info in one (atomic) assignment each, and Process
    only reads them."""

    def __init__(self):
        self._run_info = None
        self._settings = dict(DEFAULT_SETTINGS)

    def configure(self, config_json):
        """Decodes the entry's settings strictly (unknown keys refused)."""
        self._settings = settings.decode(config_json, self._settings, SETTING_TYPES)

    def init(self, run_info):
        self._run_info = run_info

    def process(self, rec):
        """ParsedRecord -> {metric tag: float}."""
        run_info = self._run_info
        if run_info is None:
            raise PluginError("ProcessRecord called before InitRecordProcessor", code=grpc.StatusCode.FAILED_PRECONDITION)
        record = rec.record
        if record.HasField("error") or record.was_cancelled:
            return {}
        # Streamed deltas split words across events ("Hel" + "lo world"),
        # so the answer is joined before it is split.
        words = len("".join(r.text for r in rec.responses).split())
        if self._settings["count_reasoning"]:
            words += len("".join(r.reasoning for r in rec.responses).split())
        values = {ANSWER_WORD_COUNT: float(words)}
        latency_ns = record.end_perf_ns - record.start_perf_ns
        if words > 0 and latency_ns > 0:
            values[ANSWER_WORDS_PER_SECOND] = words / (latency_ns / _NS_PER_S)
        if words > 0 and run_info.endpoint.produces_tokens and rec.HasField("output_tokens"):
            values[OUTPUT_TOKENS_PER_WORD] = rec.output_tokens / words
        return values

