package wasmguest

import "strconv"

// Method numbers the calls of the ABI (the first argument of aiperf_call).
// Each carries the same request and response messages as the gRPC service
// method of the same name in plugin.proto.
type Method uint32

const (
	MethodDescribe            Method = 1 // DescribeRequest -> DescribeResponse
	MethodFormatPayload       Method = 2 // RequestInfo -> FormatPayloadResponse
	MethodParseRecord         Method = 3 // ParseRecordRequest -> ParseRecordResponse
	MethodInitRecordProcessor Method = 4 // RunInfo -> Empty
	MethodProcessRecord       Method = 5 // ParsedRecord -> ProcessRecordResponse
	MethodCanLoad             Method = 6 // CanLoadRequest -> CanLoadResponse
	MethodLoadDataset         Method = 7 // LoadDatasetRequest -> LoadDatasetResponse
	MethodExport              Method = 8 // ExportRequest -> ExportResponse
	MethodConfigure           Method = 9 // ConfigureRequest -> Empty
)

var methodNames = [...]string{
	MethodDescribe:            "Describe",
	MethodFormatPayload:       "FormatPayload",
	MethodParseRecord:         "ParseRecord",
	MethodInitRecordProcessor: "InitRecordProcessor",
	MethodProcessRecord:       "ProcessRecord",
	MethodCanLoad:             "CanLoad",
	MethodLoadDataset:         "LoadDataset",
	MethodExport:              "Export",
	MethodConfigure:           "Configure",
}

// String returns the gRPC method name ("ProcessRecord"), or "method N".
func (m Method) String() string {
	if int(m) < len(methodNames) && methodNames[m] != "" {
		return methodNames[m]
	}
	return "method " + strconv.FormatUint(uint64(m), 10)
}

// Export names of the ABI.
const (
	ExportAlloc      = "aiperf_alloc"
	ExportFree       = "aiperf_free"
	ExportCall       = "aiperf_call"
	ExportInitialize = "_initialize"
)
