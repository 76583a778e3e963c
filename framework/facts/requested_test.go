package facts

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

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

// A gate asked cluster-wide but left out of a profile's kubelet is a skip there, not
// a misconfiguration; on the nodes that were given it, its absence still fails.
func TestEvaluateLeftOutGate(t *testing.T) {
	r := Requested{ClusterGates: map[string]bool{"NewGate": true},
		LeftOutKubeletGates: map[string][]string{"kubelet-v1.36.3": {"NewGate"}}}
	skewedNode := Node{Name: "w3", Labels: map[string]string{ProfileLabel: "kubelet-v1.36.3"}, KubeletGates: Gates{"OldGate": true}}
	plainNode := Node{Name: "w1", Labels: map[string]string{ProfileLabel: "defaults"}, KubeletGates: Gates{"NewGate": false}}
	f := &Facts{Nodes: []Node{skewedNode, plainNode}}
	v := Evaluate(f, r, KubeletGate("NewGate", true, "kubelet-v1.36.3"))
	if v.Fail != "" || !strings.Contains(v.Skip, "left out") {
		t.Errorf("on the skewed profile: %+v, want a skip naming the gate left out", v)
	}
	if v := Evaluate(f, r, KubeletGate("NewGate", true, "defaults")); v.Fail == "" {
		t.Errorf("on a profile given the gate: %+v, want a misconfiguration", v)
	}
	// Any schedulable node: the skewed one alone (the other tainted) is a skip.
	f.Nodes[1].Taints = append(f.Nodes[1].Taints, corev1.Taint{Key: "x", Effect: corev1.TaintEffectNoSchedule})
	if v := Evaluate(f, r, KubeletGate("NewGate", true, "")); v.Fail != "" || v.Skip == "" {
		t.Errorf("any node, only the skewed one schedulable: %+v, want a skip", v)
	}
}
