"""Record processor computing word-level metrics of each answer.

Metrics (per successful record, in base units):
  answer_word_count        words in the generated answer (reasoning excluded)
  answer_words_per_second  answer words / request latency in seconds
  output_tokens_per_word   output tokens / answer words (tokenizer efficiency);
                           only for endpoints that produce tokens

Failed requests produce no values: a word count of an error body says
nothing about the model.
"""

import grpc

from .errors import PluginError

ANSWER_WORD_COUNT = "answer_word_count"
ANSWER_WORDS_PER_SECOND = "answer_words_per_second"
OUTPUT_TOKENS_PER_WORD = "output_tokens_per_word"

_NS_PER_S = 1e9


class WordMetrics:
    """Safe for concurrent Process calls: Init replaces the run info in one
    (atomic) assignment and Process only reads it."""

    def __init__(self):
        self._run_info = None

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
        values = {ANSWER_WORD_COUNT: float(words)}
        latency_ns = record.end_perf_ns - record.start_perf_ns
        if words > 0 and latency_ns > 0:
            values[ANSWER_WORDS_PER_SECOND] = words / (latency_ns / _NS_PER_S)
        if words > 0 and run_info.endpoint.produces_tokens and rec.HasField("output_tokens"):
            values[OUTPUT_TOKENS_PER_WORD] = rec.output_tokens / words
        return values

