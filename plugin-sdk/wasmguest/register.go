package wasmguest

import (
	"fmt"
	"os"
	"runtime/debug"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// server dispatches ABI calls to the registered implementation. A WASM
// instance is single-threaded, so it needs no locking.
type server struct {
	info   describeInfo
	impl   any
	ep     sdk.Endpoint
	parser sdk.RecordParser
	proc   sdk.RecordProcessor
	loader sdk.CustomDatasetLoader
	exp    sdk.DataExporter

	initializer sdk.Initializer
	validator   sdk.Validator

	payload []byte // response message of the current call, reused
	out     []byte // encoded WasmResult of the current call, reused
}

// current is the plugin Register installed; aiperf_call serves it.
//
//lint:ignore U1000 read by the wasip1 exports only
var current *server

// Register installs impl as this module's plugin. Call it from init(): a
// reactor module's main is never run. impl implements one or more category
// interfaces (sdk.Endpoint, optionally sdk.RecordParser; sdk.RecordProcessor;
// sdk.CustomDatasetLoader; sdk.DataExporter); Describe reports each of them.
// impl may also implement the optional lifecycle (sdk.Configurable,
// sdk.Initializer, sdk.Validator); the package documentation says when
// each is called.
func Register(impl any, opts ...Option) {
	current = newServer(impl, opts...)
}

func newServer(impl any, opts ...Option) *server {
	s := &server{impl: impl}
	for _, o := range opts {
		o(&s.info)
	}
	s.ep, _ = impl.(sdk.Endpoint)
	s.parser, _ = impl.(sdk.RecordParser)
	s.proc, _ = impl.(sdk.RecordProcessor)
	s.loader, _ = impl.(sdk.CustomDatasetLoader)
	s.exp, _ = impl.(sdk.DataExporter)
	s.initializer, _ = impl.(sdk.Initializer)
	s.validator, _ = impl.(sdk.Validator)
	return s
}

// categories lists the category names impl implements, in contract order.
func (s *server) categories() []string {
	var out []string
	if s.ep != nil {
		out = append(out, sdk.CategoryEndpoint)
	}
	if s.proc != nil {
		out = append(out, sdk.CategoryRecordProcessor)
	}
	if s.loader != nil {
		out = append(out, sdk.CategoryCustomDataset)
	}
	if s.exp != nil {
		out = append(out, sdk.CategoryDataExporter)
	}
	return out
}

// serve runs one call and returns the encoded WasmResult; the slice stays
// valid until the next call.
func serve(s *server, m Method, req []byte) []byte {
	if s == nil {
		return encodeResult(nil, nil, fmt.Errorf("%s: no plugin registered: call wasmguest.Register from the module's init()", m))
	}
	payload, err := s.call(m, req)
	s.out = encodeResult(s.out[:0], payload, err)
	return s.out
}

func encodeResult(b, payload []byte, err error) []byte {
	b = appendBytes(b, 1, payload)
	if err != nil {
		msg := err.Error()
		if msg == "" {
			msg = "plugin returned an empty error"
		}
		b = appendString(b, 2, msg)
	}
	return b
}

// call decodes the request, runs the implementation and encodes its
// response. A panic in the implementation becomes the call's error (its
// stack goes to stderr, which the host forwards to its log).
func (s *server) call(m Method, req []byte) (payload []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "panic in %s: %v\n%s", m, r, debug.Stack())
			payload, err = nil, fmt.Errorf("plugin panicked in %s: %v", m, r)
		}
	}()
	payload, err = s.dispatch(m, req, s.payload[:0])
	if err == nil {
		s.payload = payload
	}
	return payload, err
}
