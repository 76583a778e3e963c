// Package drift decides, from a measurement, whether a cluster contradicts what the
// docs say, and describes the contradiction so that a reader can report it upstream.
// A spec never writes a drift on its own: it hands the documented and the measured
// value to Observe, which finds drift only when they differ.
package drift

import (
	"fmt"
	"reflect"
)

// EntryPrefix starts the name of the report entry a Finding is recorded under; the
// report reads findings back by it.
const EntryPrefix = "drift: "

// Finding is a documented behaviour the cluster contradicted, with what a reader
// needs to see it and to reproduce it on any cluster.
type Finding struct {
	Statement string `json:"statement"` // the statement's ID, e.g. "RS-11"
	Topic     string `json:"topic"`     // a few words naming the behaviour
	Docs      string `json:"docs"`      // what the docs say
	Measured  string `json:"measured"`  // what the cluster did
	Evidence  string `json:"evidence,omitempty"`
	// Reproducer: the pod manifest and node settings that show it, ready for an
	// upstream report.
	Reproducer string `json:"reproducer,omitempty"`
}

// Observation is one measurement of a documented behaviour.
type Observation[T any] struct {
	Statement  string
	Topic      string
	Docs       string // what the docs say, in words
	Documented T      // the value the docs imply
	Measured   T      // the value measured on the cluster
	// Same decides whether the measurement agrees with the docs; nil compares the
	// two values for equality.
	Same       func(documented, measured T) bool
	Evidence   string
	Reproducer string
}

// Observe is the Finding the observation shows, and false when the measured value
// agrees with the documented one: no disagreement, no drift.
func Observe[T any](o Observation[T]) (Finding, bool) {
	same := o.Same
	if same == nil {
		same = func(a, b T) bool { return reflect.DeepEqual(a, b) }
	}
	if same(o.Documented, o.Measured) {
		return Finding{}, false
	}
	return Finding{
		Statement:  o.Statement,
		Topic:      o.Topic,
		Docs:       o.Docs,
		Measured:   fmt.Sprint(o.Measured),
		Evidence:   o.Evidence,
		Reproducer: o.Reproducer,
	}, true
}

func (f Finding) String() string {
	s := fmt.Sprintf("%s %s: the docs say %s; measured %s", f.Statement, f.Topic, f.Docs, f.Measured)
	if f.Evidence != "" {
		s += "\nevidence: " + f.Evidence
	}
	return s
}
