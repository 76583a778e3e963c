package suite

import (
	"strings"
	"testing"
)

func TestCheckServerVersion(t *testing.T) {
	if err := checkServerVersion("v1.37.2"); err != nil {
		t.Fatal(err)
	}
	err := checkServerVersion("v1.36.3")
	if err == nil || !strings.Contains(err.Error(), "K8S_VERSIONS=v1.36.3") {
		t.Fatalf("want an actionable error, got %v", err)
	}
}

func TestStructuredEntriesKeepTheirJSON(t *testing.T) {
	type row struct {
		MeasuredMs int64 `json:"measuredMs"`
	}
	if got := string(structured([]row{{483}})); got != `[{"measuredMs":483}]` {
		t.Errorf("a table: got %s", got)
	}
	if got := structured("drift: plain text"); got != nil {
		t.Errorf("a string is kept only as an entry, got %s", got)
	}
	if got := structured(func() {}); got != nil {
		t.Errorf("a value that does not encode: got %s", got)
	}
}
