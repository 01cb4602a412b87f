package consoletext

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestExportWritesTheConsoleText(t *testing.T) {
	dir := t.TempDir()
	text := "\n                NVIDIA AIPerf | LLM Metrics\n┏━━━┓\n"
	files, err := New().Export(context.Background(), &sdk.ExportContext{ArtifactDir: dir, ConsoleText: []byte(text)})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 0 {
		t.Errorf("reported %v; AIPerf's footer does not list the console copy", files)
	}
	got, err := os.ReadFile(filepath.Join(dir, DefaultFileName))
	if err != nil || string(got) != text {
		t.Fatalf("file = %q, %v; want %q", got, err, text)
	}
}

func TestExportHonoursTheFileNameAndWritesEmptyText(t *testing.T) {
	dir := t.TempDir()
	ec := &sdk.ExportContext{ArtifactDir: dir, Files: sdk.ArtifactFiles{SummaryJSON: "run1.json"}}
	if _, err := New().Export(context.Background(), ec); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, "run1_console.txt"))
	if err != nil || info.Size() != 0 {
		t.Fatalf("stat = %v, %v; want an empty file", info, err)
	}
}

func TestBadInput(t *testing.T) {
	if _, err := New().Export(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "nil export context") {
		t.Fatalf("err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New().Export(ctx, &sdk.ExportContext{ArtifactDir: t.TempDir()}); err == nil {
		t.Fatal("a cancelled context was accepted")
	}
}

func TestFileName(t *testing.T) {
	for in, want := range map[string]string{"": DefaultFileName, "profile_export_aiperf.json": DefaultFileName,
		"run1.json": "run1_console.txt"} {
		if got := FileName(in); got != want {
			t.Errorf("FileName(%q) = %q, want %q", in, got, want)
		}
	}
}
