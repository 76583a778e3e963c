package suite

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Reproducer is a drift finding's minimal reproducer: the pod as a manifest anyone
// can apply to any cluster (no namespace, status, or fields the API server filled
// in, and no pin to a node of this run), and the node settings it needs, in words.
func Reproducer(pod *corev1.Pod, nodeSettings string) string {
	clean := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Labels: pod.Labels, Annotations: pod.Annotations},
		Spec:       *pod.Spec.DeepCopy(),
	}
	clean.Spec.NodeName = ""
	delete(clean.Spec.NodeSelector, corev1.LabelHostname)
	if len(clean.Spec.NodeSelector) == 0 {
		clean.Spec.NodeSelector = nil
	}
	// Through a map, to drop the empty status and creationTimestamp that the typed
	// encoding always writes.
	var fields map[string]any
	raw, err := yaml.Marshal(clean)
	if err == nil {
		err = yaml.Unmarshal(raw, &fields)
	}
	if err != nil {
		return fmt.Sprintf("(pod %s does not encode: %v)", pod.Name, err)
	}
	delete(fields, "status")
	if meta, ok := fields["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	data, err := yaml.Marshal(fields)
	if err != nil {
		return fmt.Sprintf("(pod %s does not encode: %v)", pod.Name, err)
	}
	return fmt.Sprintf("# node: %s\n%s", nodeSettings, data)
}
