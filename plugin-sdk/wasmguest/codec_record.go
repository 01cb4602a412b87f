package wasmguest

import (
	"fmt"
	"math"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"google.golang.org/protobuf/encoding/protowire"
)

// RunInfo
func decodeRunInfo(b []byte) (sdk.RunInfo, error) {
	var r sdk.RunInfo
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			md, err := decodeEndpointMetadata(f.bytes())
			if err != nil {
				return r, fmt.Errorf("endpoint: %w", err)
			}
			r.Endpoint = md
		case 2:
			r.Streaming = f.bool()
		case 3:
			k, v, err := decodeStringDouble(f.bytes())
			if err != nil {
				return r, fmt.Errorf("goodput: %w", err)
			}
			if r.Goodput == nil {
				r.Goodput = map[string]float64{}
			}
			r.Goodput[k] = v
		case 4:
			r.Models = append(r.Models, f.str())
		case 5:
			r.Seed = f.int64()
		case 6:
			r.ArtifactDir = f.str()
		}
	}
	return r, f.err
}

func decodeStringDouble(b []byte) (string, float64, error) {
	var k string
	var v float64
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			k = f.str()
		case 2:
			v = f.double()
		}
	}
	return k, v, f.err
}

// ParsedRecord
func decodeParsedRecord(b []byte) (*sdk.ParsedRecord, error) {
	p := &sdk.ParsedRecord{}
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			r, err := decodeRequestRecord(f.bytes())
			if err != nil {
				return nil, fmt.Errorf("record: %w", err)
			}
			p.Record = r
		case 2:
			r, err := decodeParsedResponse(f.bytes())
			if err != nil {
				return nil, fmt.Errorf("response %d: %w", len(p.Responses), err)
			}
			p.Responses = append(p.Responses, r)
		case 3:
			p.InputText = f.str()
		case 4:
			p.InputTokens = f.intp()
		case 5:
			p.OutputTokens = f.intp()
		case 6:
			p.ReasoningTokens = f.intp()
		case 7:
			u, err := decodeUsage(f.bytes())
			if err != nil {
				return nil, fmt.Errorf("usage: %w", err)
			}
			p.Usage = u
		}
	}
	if p.Record == nil {
		p.Record = &sdk.RequestRecord{}
	}
	return p, f.err
}

func decodeRequestRecord(b []byte) (*sdk.RequestRecord, error) {
	r := &sdk.RequestRecord{}
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			r.ConversationID = f.str()
		case 2:
			r.TurnIndex = f.int()
		case 3:
			r.SessionNum = f.int()
		case 4:
			r.XRequestID = f.str()
		case 5:
			r.XCorrelationID = f.str()
		case 6:
			r.Model = f.str()
		case 7:
			r.Phase = f.str()
		case 8:
			r.CreditIssuedNs = f.int64()
		case 9:
			r.ScheduledNs = f.int64()
		case 10:
			r.TimestampNs = f.int64()
		case 11:
			r.StartPerfNs = f.int64()
		case 12:
			r.AckPerfNs = f.int64()
		case 13:
			r.EndPerfNs = f.int64()
		case 14:
			r.Streaming = f.bool()
		case 15:
			r.Status = f.int()
		case 16:
			r.RequestedOutputTokens = f.intp()
		case 17:
			e, err := decodeErrorDetails(f.bytes())
			if err != nil {
				return nil, fmt.Errorf("error: %w", err)
			}
			r.Error = e
		case 18:
			r.WasCancelled = f.bool()
		}
	}
	return r, f.err
}

func decodeErrorDetails(b []byte) (*sdk.ErrorDetails, error) {
	e := &sdk.ErrorDetails{}
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			e.Code = f.int()
		case 2:
			e.Type = f.str()
		case 3:
			e.Message = f.str()
		}
	}
	return e, f.err
}

// ProcessRecordResponse: map<string, MetricValue> values = 1.
func appendProcessRecordResponse(b []byte, values map[string]sdk.MetricValue) []byte {
	for k, v := range values {
		b = appendMessage(b, 1, func(b []byte) []byte {
			b = appendRepeatedString(b, 1, k)
			return appendMessage(b, 2, func(b []byte) []byte { return appendMetricValue(b, &v) })
		})
	}
	return b
}

func appendMetricValue(b []byte, v *sdk.MetricValue) []byte {
	b = appendDouble(b, 1, v.Scalar)
	if len(v.List) > 0 { // packed, as proto3 encodes repeated scalars
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(8*len(v.List)))
		for _, x := range v.List {
			b = protowire.AppendFixed64(b, math.Float64bits(x))
		}
	}
	return appendBool(b, 3, v.IsList)
}
