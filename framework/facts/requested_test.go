package facts

import "testing"

// A kubelet gate is asked for by, in order of precedence: the profile's own nodes,
// a setting for every kubelet, the cluster-wide featureGates.
func TestRequestedKubeletGate(t *testing.T) {
	r := Requested{
		ClusterGates:    map[string]bool{"A": true, "B": true, "C": true},
		AllKubeletGates: map[string]bool{"B": false, "C": false},
		KubeletGates:    map[string]map[string]bool{"p": {"C": true}},
		APIServerGates:  map[string]bool{"D": true},
	}
	for _, c := range []struct {
		gate, profile string
		on, asked     bool
	}{
		{"A", "", true, true},
		{"B", "", false, true},
		{"B", "p", false, true},
		{"C", "p", true, true},
		{"C", "other", false, true},
		{"C", "", false, true},
		{"D", "p", false, false},
		{"Nope", "p", false, false},
	} {
		if on, asked := r.KubeletGate(c.gate, c.profile); on != c.on || asked != c.asked {
			t.Errorf("KubeletGate(%s, %q) = %t, %t; want %t, %t", c.gate, c.profile, on, asked, c.on, c.asked)
		}
	}
}

// The API server's own extraArgs win over the cluster-wide featureGates; kubelet
// settings are not asked of it.
func TestRequestedAPIServerGate(t *testing.T) {
	r := Requested{
		ClusterGates:    map[string]bool{"A": true, "B": true},
		APIServerGates:  map[string]bool{"B": false},
		AllKubeletGates: map[string]bool{"K": true},
		KubeletGates:    map[string]map[string]bool{"p": {"K": true}},
	}
	for _, c := range []struct {
		gate      string
		on, asked bool
	}{
		{"A", true, true},
		{"B", false, true},
		{"K", false, false},
	} {
		if on, asked := r.APIServerGate(c.gate); on != c.on || asked != c.asked {
			t.Errorf("APIServerGate(%s) = %t, %t; want %t, %t", c.gate, on, asked, c.on, c.asked)
		}
	}
}
