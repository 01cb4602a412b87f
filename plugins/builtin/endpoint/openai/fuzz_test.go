package openai

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzScanner checks the fast scanner against encoding/json: whatever it
// accepts is valid JSON, and usage it reads equals what Unmarshal reads.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		`{"prompt_tokens":12,"total_tokens":17,"completion_tokens":5}`,
		`{"input_tokens":4,"output_tokens":-0,"output_tokens_details":{"reasoning_tokens":2}}`,
		`{"prompt_tokens":1,"completion_tokens_details":{"reasoning_tokens":0,"x":[1,{"y":null}]}}`,
		`{"prompt_tokens":1.0}`, `{"total_tokens":12345678901234567890}`, `null`, `{"a":"\u00e9\n"}`,
		`{"a":"\q"}`, `[1,-2E+2,true,false,null,"s"]`, `{"Prompt_tokens":3}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewScanner(data)
		s.Skip()
		if s.End() && !json.Valid(data) {
			t.Fatalf("Skip accepted invalid JSON %q", data)
		}
		s = NewScanner(data)
		got := ScanUsage(&s)
		if !s.End() {
			return
		}
		var want *RawUsage
		if err := Unmarshal("fuzz", data, &want); err != nil {
			t.Fatalf("ScanUsage accepted what Unmarshal refuses: %v", err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ScanUsage %s, Unmarshal %s", dump(got), dump(want))
		}
	})
}

func dump(u *RawUsage) string {
	b, _ := json.Marshal(u)
	return string(b)
}
