package suite

import corev1 "k8s.io/api/core/v1"

// NodeCondition is the status of node n's condition t ("" when n reports none).
func NodeCondition(n *corev1.Node, t corev1.NodeConditionType) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}
