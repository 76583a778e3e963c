package cluster

import (
	"reflect"
	"testing"
)

// A cluster a later suite needs again is not done until that suite.
func TestGroupsKeepAClusterALaterSuiteNeeds(t *testing.T) {
	back := Groups([]string{"a", "b", "c"}, map[string][]string{"a": {"x"}, "b": {"y"}, "c": {"x"}})
	if len(back) != 3 || back[0].Done != nil || !reflect.DeepEqual(back[2].Done, []string{"x"}) || !reflect.DeepEqual(back[1].Done, []string{"y"}) {
		t.Errorf("groups %+v, want x done only after c", back)
	}
	if !back[1].Holds([]string{"q", "b"}) || back[1].Holds([]string{"a", "c"}) {
		t.Errorf("group %+v: Holds wrong", back[1])
	}
}
