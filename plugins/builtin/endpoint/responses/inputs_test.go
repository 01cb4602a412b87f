package responses

import (
	"reflect"
	"testing"
)

// What ISL counts in a Responses body: instructions first, input_text and
// output_text parts; input_image counted as an image.
func TestExtractInputs(t *testing.T) {
	body := `{"input":[{"role":"user","content":[{"type":"input_text","text":"hi"},{"type":"input_image","image_url":"u"}],"type":"message"},` +
		`{"role":"assistant","content":[{"type":"output_text","text":"yo"}],"type":"message"}],"model":"m","instructions":"Be brief."}`
	in, err := New().ExtractInputs([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Be brief.", "hi", "yo"}; !reflect.DeepEqual(in.Texts, want) || in.Images != 1 {
		t.Errorf("ExtractInputs = %q, %d images; want %q, 1", in.Texts, in.Images, want)
	}
	in, _ = New().ExtractInputs([]byte(`{"input":[{"role":"user","content":"q","type":"message"}],"instructions":[{"type":"input_text","text":"A"},"B"]}`))
	if want := []string{"A", "B", "q"}; !reflect.DeepEqual(in.Texts, want) {
		t.Errorf("instruction parts: %q, want %q", in.Texts, want)
	}
}
