package wasmguest

import (
	"encoding/json"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// DescribeResponse. The endpoint metadata and the metrics are asked of the
// implementation on every call: the host describes the plugin again after
// Configure and Init, so both may depend on the settings.
func appendDescribeResponse(b []byte, info *describeInfo, categories []string, ep sdk.Endpoint, proc sdk.RecordProcessor) []byte {
	b = appendUint(b, 1, sdk.APIVersion)
	b = appendString(b, 2, info.name)
	b = appendString(b, 3, info.version)
	b = appendString(b, 4, info.description)
	for _, c := range categories {
		b = appendRepeatedString(b, 5, c)
	}
	if ep != nil {
		md := ep.Metadata()
		b = appendMessage(b, 6, func(b []byte) []byte { return appendEndpointMetadata(b, &md) })
	}
	if proc != nil {
		for _, m := range proc.Metrics() {
			b = appendMessage(b, 7, func(b []byte) []byte { return appendMetricSpec(b, &m) })
		}
	}
	return b
}

// MetricSpec
func appendMetricSpec(b []byte, m *sdk.MetricSpec) []byte {
	b = appendString(b, 1, m.Tag)
	b = appendString(b, 2, m.Header)
	b = appendString(b, 3, m.ShortHeader)
	b = appendString(b, 4, m.Unit)
	b = appendString(b, 5, m.DisplayUnit)
	b = appendUint(b, 6, uint64(uint32(m.Flags)))
	b = appendInt(b, 7, int64(int32(m.DisplayOrder))) // int32: negative values sign-extend, as proto3 does
	b = appendBool(b, 8, m.Integer)
	b = appendBool(b, 9, m.List)
	for _, r := range m.Requires {
		b = appendRepeatedString(b, 10, r)
	}
	b = appendString(b, 11, m.ConsoleGroup)
	return b
}

// ConfigureRequest
func decodeConfigureRequest(b []byte) (category, name string, settings []byte, err error) {
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			category = f.str()
		case 2:
			name = f.str()
		case 3:
			settings = f.bytes()
		}
	}
	return category, name, settings, f.err
}

func appendEndpointMetadata(b []byte, m *sdk.EndpointMetadata) []byte {
	b = appendString(b, 1, m.EndpointPath)
	b = appendString(b, 2, m.StreamingPath)
	b = appendString(b, 3, m.ServiceKind)
	b = appendBool(b, 4, m.SupportsStreaming)
	b = appendBool(b, 5, m.ProducesTokens)
	b = appendBool(b, 6, m.TokenizesInput)
	b = appendString(b, 7, m.MetricsTitle)
	b = appendBool(b, 8, m.SupportsImages)
	b = appendBool(b, 9, m.SupportsAudio)
	b = appendBool(b, 10, m.SupportsVideos)
	b = appendBool(b, 11, m.ProducesImages)
	b = appendBool(b, 12, m.ProducesVideos)
	b = appendBool(b, 13, m.RequiresPolling)
	b = appendBool(b, 14, m.RequiresFormData)
	b = appendBool(b, 15, m.ConsumesSystemMessage)
	return appendBool(b, 16, m.SendsRawMessages)
}

func decodeEndpointMetadata(b []byte) (sdk.EndpointMetadata, error) {
	var m sdk.EndpointMetadata
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			m.EndpointPath = f.str()
		case 2:
			m.StreamingPath = f.str()
		case 3:
			m.ServiceKind = f.str()
		case 4:
			m.SupportsStreaming = f.bool()
		case 5:
			m.ProducesTokens = f.bool()
		case 6:
			m.TokenizesInput = f.bool()
		case 7:
			m.MetricsTitle = f.str()
		case 8:
			m.SupportsImages = f.bool()
		case 9:
			m.SupportsAudio = f.bool()
		case 10:
			m.SupportsVideos = f.bool()
		case 11:
			m.ProducesImages = f.bool()
		case 12:
			m.ProducesVideos = f.bool()
		case 13:
			m.RequiresPolling = f.bool()
		case 14:
			m.RequiresFormData = f.bool()
		case 15:
			m.ConsumesSystemMessage = f.bool()
		case 16:
			m.SendsRawMessages = f.bool()
		}
	}
	return m, f.err
}

// RequestInfo
func decodeRequestInfo(b []byte) (sdk.RequestInfo, error) {
	var r sdk.RequestInfo
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			r.Model = f.str()
		case 2:
			r.Streaming = f.bool()
		case 3:
			t, err := decodeTurn(f.bytes())
			if err != nil {
				return r, fmt.Errorf("turn: %w", err)
			}
			r.Turn = t
		case 4:
			h, err := decodeHistoryEntry(f.bytes())
			if err != nil {
				return r, fmt.Errorf("history: %w", err)
			}
			r.History = append(r.History, h)
		case 5:
			r.UseLegacyMaxTokens = f.bool()
		case 6:
			r.IncludeUsage = f.bool()
		case 7:
			m, err := jsonObject(f.bytes())
			if err != nil {
				return r, fmt.Errorf("extra_inputs_json: %w", err)
			}
			r.ExtraInputs = m
		case 8:
			r.SystemMessage = f.str()
		case 9:
			r.UserContextMessage = f.str()
		}
	}
	return r, f.err
}

func decodeHistoryEntry(b []byte) (sdk.HistoryEntry, error) {
	var h sdk.HistoryEntry
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			h.Role = f.str()
		case 2:
			h.Text = f.str()
		}
	}
	return h, f.err
}

func decodeTurn(b []byte) (sdk.Turn, error) {
	var t sdk.Turn
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			t.Texts = append(t.Texts, f.str())
		case 2:
			t.Role = f.str()
		case 3:
			t.Model = f.str()
		case 4:
			t.MaxTokens = f.intp()
		case 5:
			m, err := jsonObject(f.bytes())
			if err != nil {
				return t, fmt.Errorf("extra_json: %w", err)
			}
			t.Extra = m
		case 6:
			t.DelayMs = f.doublep()
		case 7:
			t.TimestampMs = f.doublep()
		case 8:
			g, err := decodeTextGroup(f.bytes())
			if err != nil {
				return t, fmt.Errorf("text group %d: %w", len(t.TextGroups), err)
			}
			t.TextGroups = append(t.TextGroups, g)
		case 9:
			t.Images = append(t.Images, f.str())
		case 10:
			t.Audios = append(t.Audios, f.str())
		case 11:
			t.Videos = append(t.Videos, f.str())
		case 12:
			t.AudioDurationS = f.doublep()
		case 13:
			t.RawMessages = rawJSON(f.bytes())
		case 14:
			t.RawTools = rawJSON(f.bytes())
		case 15:
			t.RawPayload = rawJSON(f.bytes())
		}
	}
	return t, f.err
}

func decodeTextGroup(b []byte) (sdk.TextGroup, error) {
	var g sdk.TextGroup
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			g.Name = f.str()
		case 2:
			g.Contents = append(g.Contents, f.str())
		}
	}
	return g, f.err
}

func appendTurn(b []byte, t *sdk.Turn) ([]byte, error) {
	var extra []byte
	if len(t.Extra) > 0 {
		var err error
		if extra, err = json.Marshal(t.Extra); err != nil {
			return nil, fmt.Errorf("turn extra: %w", err)
		}
	}
	for _, s := range t.Texts {
		b = appendRepeatedString(b, 1, s)
	}
	b = appendString(b, 2, t.Role)
	b = appendString(b, 3, t.Model)
	b = appendOptInt(b, 4, t.MaxTokens)
	b = appendBytes(b, 5, extra)
	b = appendOptDouble(b, 6, t.DelayMs)
	b = appendOptDouble(b, 7, t.TimestampMs)
	for i := range t.TextGroups {
		g := &t.TextGroups[i]
		b = appendMessage(b, 8, func(b []byte) []byte {
			b = appendString(b, 1, g.Name)
			for _, s := range g.Contents {
				b = appendRepeatedString(b, 2, s)
			}
			return b
		})
	}
	for _, s := range t.Images {
		b = appendRepeatedString(b, 9, s)
	}
	for _, s := range t.Audios {
		b = appendRepeatedString(b, 10, s)
	}
	for _, s := range t.Videos {
		b = appendRepeatedString(b, 11, s)
	}
	b = appendOptDouble(b, 12, t.AudioDurationS)
	b = appendBytes(b, 13, t.RawMessages)
	b = appendBytes(b, 14, t.RawTools)
	return appendBytes(b, 15, t.RawPayload), nil
}

// rawJSON copies a verbatim JSON field out of the (reused) request buffer;
// absent stays nil.
func rawJSON(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}

func jsonObject(b []byte) (map[string]any, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// ParseRecordRequest / ParseRecordResponse
func decodeParseRecordRequest(b []byte) ([]sdk.Response, error) {
	var units []sdk.Response
	f := newFields(b)
	for f.next() {
		if f.num != 1 {
			continue
		}
		u, err := decodeResponseUnit(f.bytes())
		if err != nil {
			return nil, fmt.Errorf("unit %d: %w", len(units), err)
		}
		units = append(units, u)
	}
	return units, f.err
}

func decodeResponseUnit(b []byte) (sdk.Response, error) {
	var u sdk.Response
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			u.PerfNs = f.int64()
		case 2:
			u.Event = f.str()
		case 3:
			// Copied: the request buffer is reused by the next call.
			u.Data = append([]byte(nil), f.bytes()...)
		}
	}
	return u, f.err
}

func appendParsedResponse(b []byte, p *sdk.ParsedResponse) []byte {
	b = appendInt(b, 1, p.PerfNs)
	b = appendString(b, 2, p.Text)
	b = appendString(b, 3, p.Reasoning)
	if p.Usage != nil {
		b = appendMessage(b, 4, func(b []byte) []byte { return appendUsage(b, p.Usage) })
	}
	if p.Result != nil {
		// Written even when every field is zero: a present result is content.
		b = appendMessage(b, 5, func(b []byte) []byte { return appendResult(b, p.Result) })
	}
	return b
}

func appendResult(b []byte, r *sdk.Result) []byte {
	b = appendString(b, 1, r.Kind)
	b = appendInt(b, 2, int64(r.Count))
	if v := r.Video; v != nil {
		b = appendString(b, 3, v.ID)
		b = appendString(b, 4, v.Status)
		b = appendOptDouble(b, 5, v.InferenceTimeS)
		b = appendOptDouble(b, 6, v.PeakMemoryMB)
	}
	return b
}

// decodeResultMsg mirrors pluginpb.ToResult: the video job is present for a
// video result or when the wire names a job id or status.
func decodeResultMsg(b []byte) (*sdk.Result, error) {
	r := &sdk.Result{}
	var job sdk.VideoJob
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			r.Kind = f.str()
		case 2:
			r.Count = int(f.int64())
		case 3:
			job.ID = f.str()
		case 4:
			job.Status = f.str()
		case 5:
			job.InferenceTimeS = f.doublep()
		case 6:
			job.PeakMemoryMB = f.doublep()
		}
	}
	if r.Kind == sdk.ResultVideo || job.ID != "" || job.Status != "" {
		r.Video = &job
	}
	return r, f.err
}

func decodeParsedResponse(b []byte) (sdk.ParsedResponse, error) {
	var p sdk.ParsedResponse
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			p.PerfNs = f.int64()
		case 2:
			p.Text = f.str()
		case 3:
			p.Reasoning = f.str()
		case 4:
			u, err := decodeUsage(f.bytes())
			if err != nil {
				return p, fmt.Errorf("usage: %w", err)
			}
			p.Usage = u
		case 5:
			r, err := decodeResultMsg(f.bytes())
			if err != nil {
				return p, fmt.Errorf("result: %w", err)
			}
			p.Result = r
		}
	}
	return p, f.err
}

func appendUsage(b []byte, u *sdk.Usage) []byte {
	b = appendOptInt(b, 1, u.PromptTokens)
	b = appendOptInt(b, 2, u.CompletionTokens)
	b = appendOptInt(b, 3, u.TotalTokens)
	return appendOptInt(b, 4, u.ReasoningTokens)
}

func decodeUsage(b []byte) (*sdk.Usage, error) {
	u := &sdk.Usage{}
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			u.PromptTokens = f.intp()
		case 2:
			u.CompletionTokens = f.intp()
		case 3:
			u.TotalTokens = f.intp()
		case 4:
			u.ReasoningTokens = f.intp()
		}
	}
	return u, f.err
}
