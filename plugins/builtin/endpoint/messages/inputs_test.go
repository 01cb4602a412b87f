package messages

import (
	"reflect"
	"testing"
)

// What ISL counts in an Anthropic body: the system prompt first, text
// blocks, tool schemas and replayed tool blocks; images counted.
func TestExtractInputs(t *testing.T) {
	body := `{"model":"m","system":[{"type":"text","text":"Be brief."}],"messages":[` +
		`{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","source":{"type":"url","url":"u"}}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"get","input":{"a":1}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"42"}]}]}],` +
		`"tools":[{"name":"get","description":"d","input_schema":{"type":"object"}}],"max_tokens":1024}`
	in, err := New().ExtractInputs([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Be brief.", "hi", "get", "d", `{"type":"object"}`, "get", `{"a":1}`, "42"}
	if !reflect.DeepEqual(in.Texts, want) || in.Images != 1 {
		t.Errorf("ExtractInputs = %q, %d images; want %q, 1", in.Texts, in.Images, want)
	}
	in, err = New().ExtractInputs([]byte(`{"system":"S","messages":[{"role":"user","content":"q"}]}`))
	if err != nil || !reflect.DeepEqual(in.Texts, []string{"S", "q"}) {
		t.Errorf("string system: %q, %v", in.Texts, err)
	}
}
