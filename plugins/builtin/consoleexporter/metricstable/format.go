package metricstable

import "strconv"

// FormatNumber is Python's f"{v:,.2f}": two decimals, thousands separated by commas.
func FormatNumber(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	intPart, frac := s[:len(s)-3], s[len(s)-3:]
	if len(intPart) <= 3 {
		return sign + s
	}
	out := make([]byte, 0, len(s)+len(intPart)/3)
	lead := len(intPart) % 3
	if lead == 0 {
		lead = 3
	}
	out = append(out, intPart[:lead]...)
	for i := lead; i < len(intPart); i += 3 {
		out = append(out, ',')
		out = append(out, intPart[i:i+3]...)
	}
	return sign + string(out) + frac
}
