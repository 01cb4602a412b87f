package wasmguest

import (
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// CanLoadRequest
func decodeCanLoadRequest(b []byte) (string, error) {
	var path string
	f := newFields(b)
	for f.next() {
		if f.num == 1 {
			path = f.str()
		}
	}
	return path, f.err
}

// LoadDatasetRequest
func decodeLoadDatasetRequest(b []byte) (string, sdk.DatasetOptions, error) {
	var path string
	var opts sdk.DatasetOptions
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			path = f.str()
		case 2:
			o, err := decodeDatasetOptions(f.bytes())
			if err != nil {
				return "", opts, fmt.Errorf("options: %w", err)
			}
			opts = o
		}
	}
	return path, opts, f.err
}

func decodeDatasetOptions(b []byte) (sdk.DatasetOptions, error) {
	var o sdk.DatasetOptions
	f := newFields(b)
	for f.next() {
		switch f.num {
		case 1:
			o.Models = append(o.Models, f.str())
		case 2:
			o.NumEntries = f.int()
		case 3:
			o.InputTokensMean = f.int()
		case 4:
			o.InputTokensStddev = f.double()
		case 5:
			o.OutputTokensMean = f.int()
		case 6:
			o.OutputTokensStddev = f.double()
		case 7:
			o.RandomSeed = f.int64()
		case 8:
			o.InputFile = f.str()
		case 9:
			o.CustomDatasetType = f.str()
			// 10 (block_size) is skipped: it is the mooncake_trace
			// loader's own setting now, not a dataset option.
		}
	}
	return o, f.err
}

// LoadDatasetResponse: repeated Conversation conversations = 1.
func appendLoadDatasetResponse(b []byte, convs []sdk.Conversation) ([]byte, error) {
	var err error
	for ci := range convs {
		c := &convs[ci]
		b = appendMessage(b, 1, func(b []byte) []byte {
			b = appendString(b, 1, c.SessionID)
			for ti := range c.Turns {
				b = appendMessage(b, 2, func(b []byte) []byte {
					out, terr := appendTurn(b, &c.Turns[ti])
					if terr != nil {
						err = fmt.Errorf("conversation %s turn %d: %w", c.SessionID, ti, terr)
						return b
					}
					return out
				})
			}
			b = appendString(b, 3, c.SystemMessage)
			return appendString(b, 4, c.UserContextMessage)
		})
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

// ExportRequest / ExportResponse
func decodeExportRequest(b []byte) []byte {
	var ctx []byte
	f := newFields(b)
	for f.next() {
		if f.num == 1 {
			ctx = f.bytes()
		}
	}
	return ctx
}

func appendExportResponse(b []byte, files []sdk.ExportedFile) []byte {
	for i := range files {
		b = appendMessage(b, 1, func(b []byte) []byte {
			return appendString(appendString(b, 1, files[i].Label), 2, files[i].Path)
		})
	}
	return b
}
