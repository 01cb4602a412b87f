package jsontest

import (
	"slices"
	"testing"
)

func TestObjectKeysKeepsFileOrder(t *testing.T) {
	got := ObjectKeys(t, []byte(`{"z": 1, "a": {"nested": [1, {"x": 2}]}, "m": null}`))
	if want := []string{"z", "a", "m"}; !slices.Equal(got, want) {
		t.Errorf("ObjectKeys = %v, want %v", got, want)
	}
}
