package traceanalysis

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PyFloat marshals like Python's float repr (pydantic's JSON): integral
// values keep ".0", exponents appear below 1e-4 and from 1e16.
type PyFloat float64

// MarshalJSON implements json.Marshaler.
func (f PyFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	a := math.Abs(v)
	if a != 0 && (a < 1e-4 || a >= 1e16) {
		return []byte(strconv.FormatFloat(v, 'e', -1, 64)), nil
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return []byte(s), nil
}

// WriteJSON writes s as AIPerf's --output-file report (indent 2, no
// trailing newline, as pydantic's model_dump_json(indent=2)).
func WriteJSON(w io.Writer, s Stats) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// statColumns are AIPerf's table columns after "Metric".
var statColumns = []string{"Mean", "Std Dev", "Min", "P25", "Median", "P75", "Max"}

// WriteReport prints AIPerf's "Trace Analysis Report" header and its
// "Trace Statistics" table in the layout Rich renders (heavy-head box,
// right-justified cells, title centred over the table), without colours.
func WriteReport(w io.Writer, s Stats) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Trace Analysis Report")
	fmt.Fprintf(w, "Total requests:   %s\n", groupInt(s.TotalRequests))
	fmt.Fprintf(w, "Unique prefixes:  %s\n", groupInt(s.UniquePrefixes))
	fmt.Fprintf(w, "Prefix groups:    %s\n", groupInt(s.NumPrefixGroups))
	fmt.Fprintln(w)

	rows := []struct {
		name string
		st   *MetricStats
	}{
		{"Input Length", s.ISLStats},
		{"Context Length", s.ContextLengthStats},
		{"Unique Prompt Length", s.UniquePromptLengthStats},
		{"Output Length", s.OSLStats},
		{"Theoretical Hit Rates", s.HitRateStats},
	}
	header := append([]string{"Metric"}, statColumns...)
	cells := make([][]string, len(rows))
	for i, r := range rows {
		c := []string{r.name}
		if r.st == nil {
			for range statColumns {
				c = append(c, "N/A")
			}
		} else {
			for _, v := range []PyFloat{r.st.Mean, r.st.StdDev, r.st.Min, r.st.P25, r.st.Median, r.st.P75, r.st.Max} {
				c = append(c, groupFloat2(float64(v)))
			}
		}
		cells[i] = c
	}
	widths := make([]int, len(header))
	for j, h := range header {
		widths[j] = utf8.RuneCountInString(h)
		for _, c := range cells {
			widths[j] = max(widths[j], utf8.RuneCountInString(c[j]))
		}
	}
	total := 1
	for _, wd := range widths {
		total += wd + 3
	}
	title := "Trace Statistics"
	pad := total - utf8.RuneCountInString(title)
	fmt.Fprintf(w, "%s%s%s\n", strings.Repeat(" ", pad/2), title, strings.Repeat(" ", pad-pad/2))

	rule := func(l, m, r, h string) {
		parts := make([]string, len(widths))
		for j, wd := range widths {
			parts[j] = strings.Repeat(h, wd+2)
		}
		fmt.Fprintln(w, l+strings.Join(parts, m)+r)
	}
	line := func(v string, c []string) {
		parts := make([]string, len(c))
		for j, s := range c {
			parts[j] = " " + strings.Repeat(" ", widths[j]-utf8.RuneCountInString(s)) + s + " "
		}
		fmt.Fprintln(w, v+strings.Join(parts, v)+v)
	}
	rule("┏", "┳", "┓", "━")
	line("┃", header)
	rule("┡", "╇", "┩", "━")
	for _, c := range cells {
		line("│", c)
	}
	rule("└", "┴", "┘", "─")
	fmt.Fprintln(w)
}

// groupInt formats n with thousands separators (Python's "{:,}").
func groupInt(n int) string {
	return group(strconv.Itoa(n))
}

// groupFloat2 is Python's "{:,.2f}".
func groupFloat2(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	return group(intPart) + "." + frac
}

func group(digits string) string {
	sign := ""
	if strings.HasPrefix(digits, "-") {
		sign, digits = "-", digits[1:]
	}
	var b strings.Builder
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}
