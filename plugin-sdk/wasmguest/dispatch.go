package wasmguest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func notImplemented(m Method) error { return fmt.Errorf("method %s not implemented by plugin", m) }

// dispatch appends method m's response message for req to buf.
func (s *server) dispatch(m Method, req, buf []byte) ([]byte, error) {
	switch m {
	case MethodDescribe:
		return appendDescribeResponse(buf, &s.info, s.categories(), s.ep, s.proc), nil
	case MethodConfigure:
		category, name, settings, err := decodeConfigureRequest(req)
		if err != nil {
			return nil, fmt.Errorf("decode ConfigureRequest: %w", err)
		}
		if cats := s.categories(); !slices.Contains(cats, category) {
			return nil, fmt.Errorf("this plugin does not implement category %q (it implements: %s)", category, strings.Join(cats, ", "))
		}
		if err := configure(s.impl, category+"."+name, settings); err != nil {
			return nil, err
		}
		// Without an Init call in the protocol, settings are validated here.
		if s.validator != nil && s.proc == nil {
			return buf, s.validator.Validate()
		}
		return buf, nil
	case MethodFormatPayload:
		if s.ep == nil {
			return nil, notImplemented(m)
		}
		info, err := decodeRequestInfo(req)
		if err != nil {
			return nil, fmt.Errorf("decode RequestInfo: %w", err)
		}
		body, err := s.ep.FormatPayload(info)
		if err != nil {
			return nil, err
		}
		return appendBytes(buf, 1, body), nil
	case MethodParseRecord:
		if s.ep == nil {
			return nil, notImplemented(m)
		}
		units, err := decodeParseRecordRequest(req)
		if err != nil {
			return nil, fmt.Errorf("decode ParseRecordRequest: %w", err)
		}
		return s.parseRecord(units, buf)
	case MethodInitRecordProcessor:
		if s.proc == nil {
			return nil, notImplemented(m)
		}
		info, err := decodeRunInfo(req)
		if err != nil {
			return nil, fmt.Errorf("decode RunInfo: %w", err)
		}
		if s.initializer != nil {
			if err := s.initializer.Init(context.Background(), info); err != nil {
				return nil, err
			}
		}
		if s.validator != nil {
			return buf, s.validator.Validate()
		}
		return buf, nil
	case MethodProcessRecord:
		if s.proc == nil {
			return nil, notImplemented(m)
		}
		rec, err := decodeParsedRecord(req)
		if err != nil {
			return nil, fmt.Errorf("decode ParsedRecord: %w", err)
		}
		rm, err := s.proc.Process(rec)
		if err != nil {
			return nil, err
		}
		if rm == nil {
			return buf, nil
		}
		return appendProcessRecordResponse(buf, rm.Values), nil
	case MethodCanLoad:
		if s.loader == nil {
			return nil, notImplemented(m)
		}
		path, err := decodeCanLoadRequest(req)
		if err != nil {
			return nil, fmt.Errorf("decode CanLoadRequest: %w", err)
		}
		return appendBool(buf, 1, s.loader.CanLoad(path)), nil
	case MethodLoadDataset:
		if s.loader == nil {
			return nil, notImplemented(m)
		}
		path, opts, err := decodeLoadDatasetRequest(req)
		if err != nil {
			return nil, fmt.Errorf("decode LoadDatasetRequest: %w", err)
		}
		convs, err := s.loader.Load(context.Background(), path, opts)
		if err != nil {
			return nil, err
		}
		return appendLoadDatasetResponse(buf, convs)
	case MethodExport:
		if s.exp == nil {
			return nil, notImplemented(m)
		}
		var ec sdk.ExportContext
		if err := json.Unmarshal(decodeExportRequest(req), &ec); err != nil {
			return nil, fmt.Errorf("decode ExportRequest: %w", err)
		}
		files, err := s.exp.Export(context.Background(), &ec)
		if err != nil {
			return nil, err
		}
		return appendExportResponse(buf, files), nil
	default:
		return nil, fmt.Errorf("unknown %s (this plugin speaks API version %d)", m, sdk.APIVersion)
	}
}

// parseRecord prefers the implementation's RecordParser; otherwise it parses
// unit by unit and reports a unit it cannot parse in unit_errors, so one bad
// event does not hide the others.
func (s *server) parseRecord(units []sdk.Response, buf []byte) ([]byte, error) {
	if s.parser != nil {
		parsed, err := s.parser.ParseRecord(units)
		if err != nil {
			return nil, err
		}
		if len(parsed) != len(units) {
			return nil, fmt.Errorf("ParseRecord returned %d parsed responses for %d units", len(parsed), len(units))
		}
		for i := range parsed {
			parsed[i].PerfNs = units[i].PerfNs
			buf = appendMessage(buf, 1, func(b []byte) []byte { return appendParsedResponse(b, &parsed[i]) })
		}
		return buf, nil
	}
	var unitErrs map[int]string
	for i, u := range units {
		p, err := s.ep.ParseResponse(u.Data)
		if err != nil {
			if unitErrs == nil {
				unitErrs = map[int]string{}
			}
			unitErrs[i] = err.Error()
			p = sdk.ParsedResponse{}
		}
		p.PerfNs = u.PerfNs
		buf = appendMessage(buf, 1, func(b []byte) []byte { return appendParsedResponse(b, &p) })
	}
	for i, msg := range unitErrs {
		buf = appendMessage(buf, 2, func(b []byte) []byte {
			return appendString(appendInt(b, 1, int64(i)), 2, msg)
		})
	}
	return buf, nil
}
