package errorsummary

import (
	"bytes"
	"context"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func render(t *testing.T, ec *sdk.ExportContext, opts ...Option) string {
	t.Helper()
	var buf bytes.Buffer
	if err := New(opts...).Render(context.Background(), &buf, ec); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestRendersOnlyWithErrors(t *testing.T) {
	for name, ec := range map[string]*sdk.ExportContext{
		"nil results": {},
		"no errors":   {Results: &sdk.Results{}},
		"empty list":  {Results: &sdk.Results{ErrorSummary: []sdk.ErrorCount{}}},
	} {
		if out := render(t, ec); out != "" {
			t.Errorf("%s: printed %q", name, out)
		}
	}
	if err := New().Render(context.Background(), &bytes.Buffer{}, nil); err == nil {
		t.Error("nil context accepted")
	}
}

func TestGolden(t *testing.T) {
	ec := &sdk.ExportContext{Results: &sdk.Results{ErrorSummary: []sdk.ErrorCount{
		{ErrorDetails: sdk.ErrorDetails{Code: 499, Type: "RequestCancellationError", Message: "Request was cancelled after 0.000 seconds"}, Count: 1281},
		{ErrorDetails: sdk.ErrorDetails{Code: 500, Type: "InternalServerError", Message: "boom"}, Count: 3},
		{ErrorDetails: sdk.ErrorDetails{Message: "connection refused"}, Count: 1},
	}}}
	want := "\n" +
		"                             NVIDIA AIPerf | Error Summary\n" +
		"┏━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━┓\n" +
		"┃ Code ┃                     Type ┃ Message                                   ┃ Count ┃\n" +
		"┡━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━┩\n" +
		"│  499 │ RequestCancellationError │ Request was cancelled after 0.000 seconds │ 1,281 │\n" +
		"│  500 │      InternalServerError │ boom                                      │     3 │\n" +
		"│  N/A │                      N/A │ connection refused                        │     1 │\n" +
		"└──────┴──────────────────────────┴───────────────────────────────────────────┴───────┘\n"
	if got := render(t, ec); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestHostileMessageIsSanitizedAndWrapped(t *testing.T) {
	long := strings.Repeat("word ", 40) + "\x1b[31mred"
	ec := &sdk.ExportContext{Results: &sdk.Results{ErrorSummary: []sdk.ErrorCount{
		{ErrorDetails: sdk.ErrorDetails{Code: 400, Type: "BadRequest", Message: long}, Count: 2},
	}}}
	out := render(t, ec, WithColor(false))
	if strings.Contains(out, "\x1b") {
		t.Fatal("escape sequence reached the output")
	}
	if !strings.Contains(out, `\x1b[31mred`) {
		t.Fatalf("escaped text missing:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 6 {
		t.Fatalf("message was not wrapped:\n%s", out)
	}
	for _, l := range lines[1:] {
		// 4 borders + Code, Type, Count cells + an 80-wide message column.
		if n := len([]rune(l)); n > 5+6+12+7+82 {
			t.Errorf("line of %d cells: %s", n, l)
		}
	}
	colored := render(t, ec, WithColor(true))
	if !strings.Contains(colored, "\x1b[31mNVIDIA AIPerf | Error Summary\x1b[0m") || !strings.Contains(colored, "\x1b[33m400\x1b[0m") {
		t.Fatalf("colours missing: %q", colored)
	}
}

func TestGroupThousands(t *testing.T) {
	for in, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := groupThousands(in); got != want {
			t.Errorf("groupThousands(%d) = %s, want %s", in, got, want)
		}
	}
}
