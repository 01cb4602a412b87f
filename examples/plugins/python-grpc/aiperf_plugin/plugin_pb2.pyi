from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Empty(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DescribeRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DescribeResponse(_message.Message):
    __slots__ = ("api_version", "name", "version", "description", "categories", "endpoint", "metrics")
    API_VERSION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CATEGORIES_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    METRICS_FIELD_NUMBER: _ClassVar[int]
    api_version: int
    name: str
    version: str
    description: str
    categories: _containers.RepeatedScalarFieldContainer[str]
    endpoint: EndpointMetadata
    metrics: _containers.RepeatedCompositeFieldContainer[MetricSpec]
    def __init__(self, api_version: _Optional[int] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., description: _Optional[str] = ..., categories: _Optional[_Iterable[str]] = ..., endpoint: _Optional[_Union[EndpointMetadata, _Mapping]] = ..., metrics: _Optional[_Iterable[_Union[MetricSpec, _Mapping]]] = ...) -> None: ...

class MetricSpec(_message.Message):
    __slots__ = ("tag", "header", "short_header", "unit", "display_unit", "flags", "display_order", "integer", "list", "requires")
    TAG_FIELD_NUMBER: _ClassVar[int]
    HEADER_FIELD_NUMBER: _ClassVar[int]
    SHORT_HEADER_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_UNIT_FIELD_NUMBER: _ClassVar[int]
    FLAGS_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_ORDER_FIELD_NUMBER: _ClassVar[int]
    INTEGER_FIELD_NUMBER: _ClassVar[int]
    LIST_FIELD_NUMBER: _ClassVar[int]
    REQUIRES_FIELD_NUMBER: _ClassVar[int]
    tag: str
    header: str
    short_header: str
    unit: str
    display_unit: str
    flags: int
    display_order: int
    integer: bool
    list: bool
    requires: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tag: _Optional[str] = ..., header: _Optional[str] = ..., short_header: _Optional[str] = ..., unit: _Optional[str] = ..., display_unit: _Optional[str] = ..., flags: _Optional[int] = ..., display_order: _Optional[int] = ..., integer: _Optional[bool] = ..., list: _Optional[bool] = ..., requires: _Optional[_Iterable[str]] = ...) -> None: ...

class ConfigureRequest(_message.Message):
    __slots__ = ("category", "name", "config_json")
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CONFIG_JSON_FIELD_NUMBER: _ClassVar[int]
    category: str
    name: str
    config_json: bytes
    def __init__(self, category: _Optional[str] = ..., name: _Optional[str] = ..., config_json: _Optional[bytes] = ...) -> None: ...

class EndpointMetadata(_message.Message):
    __slots__ = ("endpoint_path", "streaming_path", "service_kind", "supports_streaming", "produces_tokens", "tokenizes_input", "metrics_title")
    ENDPOINT_PATH_FIELD_NUMBER: _ClassVar[int]
    STREAMING_PATH_FIELD_NUMBER: _ClassVar[int]
    SERVICE_KIND_FIELD_NUMBER: _ClassVar[int]
    SUPPORTS_STREAMING_FIELD_NUMBER: _ClassVar[int]
    PRODUCES_TOKENS_FIELD_NUMBER: _ClassVar[int]
    TOKENIZES_INPUT_FIELD_NUMBER: _ClassVar[int]
    METRICS_TITLE_FIELD_NUMBER: _ClassVar[int]
    endpoint_path: str
    streaming_path: str
    service_kind: str
    supports_streaming: bool
    produces_tokens: bool
    tokenizes_input: bool
    metrics_title: str
    def __init__(self, endpoint_path: _Optional[str] = ..., streaming_path: _Optional[str] = ..., service_kind: _Optional[str] = ..., supports_streaming: _Optional[bool] = ..., produces_tokens: _Optional[bool] = ..., tokenizes_input: _Optional[bool] = ..., metrics_title: _Optional[str] = ...) -> None: ...

class Turn(_message.Message):
    __slots__ = ("texts", "role", "model", "max_tokens", "extra_json", "delay_ms", "timestamp_ms")
    TEXTS_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    EXTRA_JSON_FIELD_NUMBER: _ClassVar[int]
    DELAY_MS_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_MS_FIELD_NUMBER: _ClassVar[int]
    texts: _containers.RepeatedScalarFieldContainer[str]
    role: str
    model: str
    max_tokens: int
    extra_json: bytes
    delay_ms: float
    timestamp_ms: float
    def __init__(self, texts: _Optional[_Iterable[str]] = ..., role: _Optional[str] = ..., model: _Optional[str] = ..., max_tokens: _Optional[int] = ..., extra_json: _Optional[bytes] = ..., delay_ms: _Optional[float] = ..., timestamp_ms: _Optional[float] = ...) -> None: ...

class HistoryEntry(_message.Message):
    __slots__ = ("role", "text")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    role: str
    text: str
    def __init__(self, role: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class RequestInfo(_message.Message):
    __slots__ = ("model", "streaming", "turn", "history", "use_legacy_max_tokens", "include_usage", "extra_inputs_json")
    MODEL_FIELD_NUMBER: _ClassVar[int]
    STREAMING_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    USE_LEGACY_MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_USAGE_FIELD_NUMBER: _ClassVar[int]
    EXTRA_INPUTS_JSON_FIELD_NUMBER: _ClassVar[int]
    model: str
    streaming: bool
    turn: Turn
    history: _containers.RepeatedCompositeFieldContainer[HistoryEntry]
    use_legacy_max_tokens: bool
    include_usage: bool
    extra_inputs_json: bytes
    def __init__(self, model: _Optional[str] = ..., streaming: _Optional[bool] = ..., turn: _Optional[_Union[Turn, _Mapping]] = ..., history: _Optional[_Iterable[_Union[HistoryEntry, _Mapping]]] = ..., use_legacy_max_tokens: _Optional[bool] = ..., include_usage: _Optional[bool] = ..., extra_inputs_json: _Optional[bytes] = ...) -> None: ...

class FormatPayloadResponse(_message.Message):
    __slots__ = ("payload",)
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    payload: bytes
    def __init__(self, payload: _Optional[bytes] = ...) -> None: ...

class Usage(_message.Message):
    __slots__ = ("prompt_tokens", "completion_tokens", "total_tokens", "reasoning_tokens")
    PROMPT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TOKENS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_TOKENS_FIELD_NUMBER: _ClassVar[int]
    REASONING_TOKENS_FIELD_NUMBER: _ClassVar[int]
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    reasoning_tokens: int
    def __init__(self, prompt_tokens: _Optional[int] = ..., completion_tokens: _Optional[int] = ..., total_tokens: _Optional[int] = ..., reasoning_tokens: _Optional[int] = ...) -> None: ...

class ResponseUnit(_message.Message):
    __slots__ = ("perf_ns", "event", "data")
    PERF_NS_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    perf_ns: int
    event: str
    data: bytes
    def __init__(self, perf_ns: _Optional[int] = ..., event: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class ParsedResponse(_message.Message):
    __slots__ = ("perf_ns", "text", "reasoning", "usage")
    PERF_NS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    perf_ns: int
    text: str
    reasoning: str
    usage: Usage
    def __init__(self, perf_ns: _Optional[int] = ..., text: _Optional[str] = ..., reasoning: _Optional[str] = ..., usage: _Optional[_Union[Usage, _Mapping]] = ...) -> None: ...

class ParseRecordRequest(_message.Message):
    __slots__ = ("units",)
    UNITS_FIELD_NUMBER: _ClassVar[int]
    units: _containers.RepeatedCompositeFieldContainer[ResponseUnit]
    def __init__(self, units: _Optional[_Iterable[_Union[ResponseUnit, _Mapping]]] = ...) -> None: ...

class ParseRecordResponse(_message.Message):
    __slots__ = ("responses", "unit_errors")
    class UnitErrorsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: str
        def __init__(self, key: _Optional[int] = ..., value: _Optional[str] = ...) -> None: ...
    RESPONSES_FIELD_NUMBER: _ClassVar[int]
    UNIT_ERRORS_FIELD_NUMBER: _ClassVar[int]
    responses: _containers.RepeatedCompositeFieldContainer[ParsedResponse]
    unit_errors: _containers.ScalarMap[int, str]
    def __init__(self, responses: _Optional[_Iterable[_Union[ParsedResponse, _Mapping]]] = ..., unit_errors: _Optional[_Mapping[int, str]] = ...) -> None: ...

class ErrorDetails(_message.Message):
    __slots__ = ("code", "type", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: int
    type: str
    message: str
    def __init__(self, code: _Optional[int] = ..., type: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class RequestRecord(_message.Message):
    __slots__ = ("conversation_id", "turn_index", "session_num", "x_request_id", "x_correlation_id", "model", "phase", "credit_issued_ns", "scheduled_ns", "timestamp_ns", "start_perf_ns", "ack_perf_ns", "end_perf_ns", "streaming", "status", "requested_output_tokens", "error", "was_cancelled")
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_INDEX_FIELD_NUMBER: _ClassVar[int]
    SESSION_NUM_FIELD_NUMBER: _ClassVar[int]
    X_REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    X_CORRELATION_ID_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    CREDIT_ISSUED_NS_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_NS_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_NS_FIELD_NUMBER: _ClassVar[int]
    START_PERF_NS_FIELD_NUMBER: _ClassVar[int]
    ACK_PERF_NS_FIELD_NUMBER: _ClassVar[int]
    END_PERF_NS_FIELD_NUMBER: _ClassVar[int]
    STREAMING_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    WAS_CANCELLED_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    turn_index: int
    session_num: int
    x_request_id: str
    x_correlation_id: str
    model: str
    phase: str
    credit_issued_ns: int
    scheduled_ns: int
    timestamp_ns: int
    start_perf_ns: int
    ack_perf_ns: int
    end_perf_ns: int
    streaming: bool
    status: int
    requested_output_tokens: int
    error: ErrorDetails
    was_cancelled: bool
    def __init__(self, conversation_id: _Optional[str] = ..., turn_index: _Optional[int] = ..., session_num: _Optional[int] = ..., x_request_id: _Optional[str] = ..., x_correlation_id: _Optional[str] = ..., model: _Optional[str] = ..., phase: _Optional[str] = ..., credit_issued_ns: _Optional[int] = ..., scheduled_ns: _Optional[int] = ..., timestamp_ns: _Optional[int] = ..., start_perf_ns: _Optional[int] = ..., ack_perf_ns: _Optional[int] = ..., end_perf_ns: _Optional[int] = ..., streaming: _Optional[bool] = ..., status: _Optional[int] = ..., requested_output_tokens: _Optional[int] = ..., error: _Optional[_Union[ErrorDetails, _Mapping]] = ..., was_cancelled: _Optional[bool] = ...) -> None: ...

class ParsedRecord(_message.Message):
    __slots__ = ("record", "responses", "input_text", "input_tokens", "output_tokens", "reasoning_tokens", "usage")
    RECORD_FIELD_NUMBER: _ClassVar[int]
    RESPONSES_FIELD_NUMBER: _ClassVar[int]
    INPUT_TEXT_FIELD_NUMBER: _ClassVar[int]
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    REASONING_TOKENS_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    record: RequestRecord
    responses: _containers.RepeatedCompositeFieldContainer[ParsedResponse]
    input_text: str
    input_tokens: int
    output_tokens: int
    reasoning_tokens: int
    usage: Usage
    def __init__(self, record: _Optional[_Union[RequestRecord, _Mapping]] = ..., responses: _Optional[_Iterable[_Union[ParsedResponse, _Mapping]]] = ..., input_text: _Optional[str] = ..., input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., reasoning_tokens: _Optional[int] = ..., usage: _Optional[_Union[Usage, _Mapping]] = ...) -> None: ...

class MetricValue(_message.Message):
    __slots__ = ("scalar", "list", "is_list")
    SCALAR_FIELD_NUMBER: _ClassVar[int]
    LIST_FIELD_NUMBER: _ClassVar[int]
    IS_LIST_FIELD_NUMBER: _ClassVar[int]
    scalar: float
    list: _containers.RepeatedScalarFieldContainer[float]
    is_list: bool
    def __init__(self, scalar: _Optional[float] = ..., list: _Optional[_Iterable[float]] = ..., is_list: _Optional[bool] = ...) -> None: ...

class RunInfo(_message.Message):
    __slots__ = ("endpoint", "streaming", "goodput", "models", "seed", "artifact_dir")
    class GoodputEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    STREAMING_FIELD_NUMBER: _ClassVar[int]
    GOODPUT_FIELD_NUMBER: _ClassVar[int]
    MODELS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_DIR_FIELD_NUMBER: _ClassVar[int]
    endpoint: EndpointMetadata
    streaming: bool
    goodput: _containers.ScalarMap[str, float]
    models: _containers.RepeatedScalarFieldContainer[str]
    seed: int
    artifact_dir: str
    def __init__(self, endpoint: _Optional[_Union[EndpointMetadata, _Mapping]] = ..., streaming: _Optional[bool] = ..., goodput: _Optional[_Mapping[str, float]] = ..., models: _Optional[_Iterable[str]] = ..., seed: _Optional[int] = ..., artifact_dir: _Optional[str] = ...) -> None: ...

class ProcessRecordResponse(_message.Message):
    __slots__ = ("values",)
    class ValuesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: MetricValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[MetricValue, _Mapping]] = ...) -> None: ...
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.MessageMap[str, MetricValue]
    def __init__(self, values: _Optional[_Mapping[str, MetricValue]] = ...) -> None: ...

class DatasetOptions(_message.Message):
    __slots__ = ("models", "num_entries", "input_tokens_mean", "input_tokens_stddev", "output_tokens_mean", "output_tokens_stddev", "random_seed", "input_file", "custom_dataset_type", "block_size")
    MODELS_FIELD_NUMBER: _ClassVar[int]
    NUM_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    INPUT_TOKENS_MEAN_FIELD_NUMBER: _ClassVar[int]
    INPUT_TOKENS_STDDEV_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_MEAN_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_STDDEV_FIELD_NUMBER: _ClassVar[int]
    RANDOM_SEED_FIELD_NUMBER: _ClassVar[int]
    INPUT_FILE_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_DATASET_TYPE_FIELD_NUMBER: _ClassVar[int]
    BLOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    models: _containers.RepeatedScalarFieldContainer[str]
    num_entries: int
    input_tokens_mean: int
    input_tokens_stddev: float
    output_tokens_mean: int
    output_tokens_stddev: float
    random_seed: int
    input_file: str
    custom_dataset_type: str
    block_size: int
    def __init__(self, models: _Optional[_Iterable[str]] = ..., num_entries: _Optional[int] = ..., input_tokens_mean: _Optional[int] = ..., input_tokens_stddev: _Optional[float] = ..., output_tokens_mean: _Optional[int] = ..., output_tokens_stddev: _Optional[float] = ..., random_seed: _Optional[int] = ..., input_file: _Optional[str] = ..., custom_dataset_type: _Optional[str] = ..., block_size: _Optional[int] = ...) -> None: ...

class Conversation(_message.Message):
    __slots__ = ("session_id", "turns")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    turns: _containers.RepeatedCompositeFieldContainer[Turn]
    def __init__(self, session_id: _Optional[str] = ..., turns: _Optional[_Iterable[_Union[Turn, _Mapping]]] = ...) -> None: ...

class CanLoadRequest(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class CanLoadResponse(_message.Message):
    __slots__ = ("ok",)
    OK_FIELD_NUMBER: _ClassVar[int]
    ok: bool
    def __init__(self, ok: _Optional[bool] = ...) -> None: ...

class LoadDatasetRequest(_message.Message):
    __slots__ = ("path", "options")
    PATH_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    path: str
    options: DatasetOptions
    def __init__(self, path: _Optional[str] = ..., options: _Optional[_Union[DatasetOptions, _Mapping]] = ...) -> None: ...

class LoadDatasetResponse(_message.Message):
    __slots__ = ("conversations",)
    CONVERSATIONS_FIELD_NUMBER: _ClassVar[int]
    conversations: _containers.RepeatedCompositeFieldContainer[Conversation]
    def __init__(self, conversations: _Optional[_Iterable[_Union[Conversation, _Mapping]]] = ...) -> None: ...

class ExportRequest(_message.Message):
    __slots__ = ("export_context_json",)
    EXPORT_CONTEXT_JSON_FIELD_NUMBER: _ClassVar[int]
    export_context_json: bytes
    def __init__(self, export_context_json: _Optional[bytes] = ...) -> None: ...

class ExportedFile(_message.Message):
    __slots__ = ("label", "path")
    LABEL_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    label: str
    path: str
    def __init__(self, label: _Optional[str] = ..., path: _Optional[str] = ...) -> None: ...

class ExportResponse(_message.Message):
    __slots__ = ("files",)
    FILES_FIELD_NUMBER: _ClassVar[int]
    files: _containers.RepeatedCompositeFieldContainer[ExportedFile]
    def __init__(self, files: _Optional[_Iterable[_Union[ExportedFile, _Mapping]]] = ...) -> None: ...

class WasmResult(_message.Message):
    __slots__ = ("payload", "error")
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    payload: bytes
    error: str
    def __init__(self, payload: _Optional[bytes] = ..., error: _Optional[str] = ...) -> None: ...
