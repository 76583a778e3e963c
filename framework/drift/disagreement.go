package drift

import (
	"fmt"
	"reflect"
	"slices"
)

// AnswerPrefix starts the name of the report entry an Answer is recorded under; the
// report reads answers back by it.
const AnswerPrefix = "pages disagree: "

// Question is a claim on which the pages say different things, as a spec measures
// it: the topic (as the catalogue's disagreements name it), the value each of the
// pages' claims implies, keyed by the claim's key in the catalogue, and the value
// the cluster gave. The measurement decides; the spec never names the answer.
type Question[T any] struct {
	Topic    string
	Claims   map[string]T // claim key → the value that claim implies
	Measured T
	// Same decides whether a measurement agrees with a claim's value; nil compares
	// the two for equality.
	Same     func(claimed, measured T) bool
	Evidence string
}

// Answer is what the cluster said to a Question: the keys of the claims whose values
// it gave (none, when it confirms no page), and every value, as text.
type Answer struct {
	Topic     string            `json:"topic"`
	Confirmed []string          `json:"confirmed"`
	Claims    map[string]string `json:"claims"`
	Measured  string            `json:"measured"`
	Evidence  string            `json:"evidence,omitempty"`
}

// Decide answers the question: the claims whose values the measurement matches, in
// key order.
func Decide[T any](q Question[T]) Answer {
	same := q.Same
	if same == nil {
		same = func(a, b T) bool { return reflect.DeepEqual(a, b) }
	}
	a := Answer{Topic: q.Topic, Claims: map[string]string{}, Measured: fmt.Sprint(q.Measured), Evidence: q.Evidence, Confirmed: []string{}}
	for key, v := range q.Claims {
		a.Claims[key] = fmt.Sprint(v)
		if same(v, q.Measured) {
			a.Confirmed = append(a.Confirmed, key)
		}
	}
	slices.Sort(a.Confirmed)
	return a
}
