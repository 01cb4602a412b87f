package inputsexport

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestExportGolden(t *testing.T) {
	dir := t.TempDir()
	ec := &sdk.ExportContext{
		ArtifactDir: dir,
		Files:       sdk.ArtifactFiles{Inputs: "inputs.json"},
		Inputs: []sdk.InputEntry{
			{SessionID: "s-1", Payloads: [][]byte{
				[]byte(`{"model":"m","messages":[{"role":"user","content":"a < b & c"}],"temperature":0.70,"stream":true}`),
				[]byte(`{"model":"m","max_tokens":1e2}`),
			}},
			{SessionID: "s-2", Payloads: [][]byte{[]byte(`{"prompt":"hi"}`)}},
			{SessionID: "s-3"},
		},
	}
	files, err := New().Export(context.Background(), ec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "inputs.json")
	if len(files) != 1 || files[0].Path != path || files[0].Label != Label {
		t.Fatalf("files = %+v", files)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Payload key order and number literals (0.70, 1e2) are kept exactly.
	want := `{
  "data": [
    {
      "session_id": "s-1",
      "payloads": [
        {
          "model": "m",
          "messages": [
            {
              "role": "user",
              "content": "a < b & c"
            }
          ],
          "temperature": 0.70,
          "stream": true
        },
        {
          "model": "m",
          "max_tokens": 1e2
        }
      ]
    },
    {
      "session_id": "s-2",
      "payloads": [
        {
          "prompt": "hi"
        }
      ]
    },
    {
      "session_id": "s-3",
      "payloads": []
    }
  ]
}
`
	if string(got) != want {
		t.Fatalf("inputs.json\n got:\n%s\nwant:\n%s", got, want)
	}
	var doc struct {
		Data []struct {
			SessionID string           `json:"session_id"`
			Payloads  []map[string]any `json:"payloads"`
		} `json:"data"`
	}
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Data) != 3 || doc.Data[0].Payloads[1]["max_tokens"] != 100.0 {
		t.Fatalf("parsed back %+v", doc)
	}
}

func TestEmptyInputs(t *testing.T) {
	dir := t.TempDir()
	files, err := New().Export(context.Background(), &sdk.ExportContext{ArtifactDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(files[0].Path)
	if string(got) != "{\n  \"data\": []\n}\n" || filepath.Base(files[0].Path) != DefaultFileName {
		t.Fatalf("got %q at %s", got, files[0].Path)
	}
}

func TestInvalidPayloadLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	ec := &sdk.ExportContext{ArtifactDir: dir, Inputs: []sdk.InputEntry{
		{SessionID: "ok", Payloads: [][]byte{[]byte(`{}`)}},
		{SessionID: "broken", Payloads: [][]byte{[]byte(`{}`), []byte(`{"a":`)}},
	}}
	_, err := New().Export(context.Background(), ec)
	if err == nil || !strings.Contains(err.Error(), `session "broken" turn 1: payload is not valid JSON`) {
		t.Fatalf("err = %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("left files behind: %v", entries)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New().Export(ctx, &sdk.ExportContext{ArtifactDir: t.TempDir(),
		Inputs: []sdk.InputEntry{{SessionID: "s", Payloads: [][]byte{[]byte(`{}`)}}}})
	if err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("err = %v", err)
	}
	if _, err := New().Export(context.Background(), nil); err == nil {
		t.Fatal("nil context accepted")
	}
}

// A trace run writes no inputs.json (AIPerf 0.13 skips it for traces).
func TestSkipInputs(t *testing.T) {
	dir := t.TempDir()
	files, err := New().Export(context.Background(), &sdk.ExportContext{ArtifactDir: dir, SkipInputs: true})
	if err != nil || len(files) != 0 {
		t.Fatalf("files %v, err %v", files, err)
	}
	if _, err := os.Stat(filepath.Join(dir, DefaultFileName)); !os.IsNotExist(err) {
		t.Errorf("inputs.json written: %v", err)
	}
}
