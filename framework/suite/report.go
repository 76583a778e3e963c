package suite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/statements"
)

// StatementResult is what one spec said about one statement.
type StatementResult struct {
	Spec    string `json:"spec"`
	State   string `json:"state"`
	Message string `json:"message,omitempty"`
	// Measurements and findings the spec recorded (report entries), by name.
	Entries map[string]string `json:"entries,omitempty"`
	// Data holds the entries whose value is structured (a table, a gmeasure
	// experiment), as JSON, for tools that read the report.
	Data map[string]json.RawMessage `json:"data,omitempty"`
}

// StatementReport maps statement IDs to the specs that checked them.
type StatementReport map[string][]StatementResult

// BuildStatementReport keys a Ginkgo report by the statement IDs in spec labels.
func BuildStatementReport(r Report) StatementReport {
	out := StatementReport{}
	for _, s := range r.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt {
			continue
		}
		res := StatementResult{Spec: s.FullText(), State: s.State.String()}
		if s.State.Is(types.SpecStateFailureStates) {
			res.Message = s.Failure.Message
		} else if s.State == types.SpecStateSkipped {
			res.Message = s.Failure.Message
		}
		for _, e := range s.ReportEntries {
			if res.Entries == nil {
				res.Entries = map[string]string{}
			}
			res.Entries[e.Name] = e.StringRepresentation()
			if data := structured(e.Value.GetRawValue()); data != nil {
				if res.Data == nil {
					res.Data = map[string]json.RawMessage{}
				}
				res.Data[e.Name] = data
			}
		}
		for _, id := range statements.IDs(s.Labels()) {
			out[id] = append(out[id], res)
		}
	}
	for id := range out {
		sort.Slice(out[id], func(i, j int) bool { return out[id][i].Spec < out[id][j].Spec })
	}
	return out
}

// WriteStatementReport writes the statement-keyed report as JSON.
func WriteStatementReport(path string, r Report) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(BuildStatementReport(r), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// structured is v as JSON when it is an object or an array; nil for plain values
// (their string form in Entries says it all) and for values that do not encode.
func structured(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil || len(data) == 0 || (data[0] != '{' && data[0] != '[') {
		return nil
	}
	return data
}
