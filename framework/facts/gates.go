// Package facts reads what a cluster really has on — the server version, each
// component's feature gates as its kubernetes_feature_enabled metric reports them,
// kubelet configuration from /configz, and node declared features — and lets a spec
// state what it needs. What the cluster's configuration asked for (Requested) is
// stated here too, because it decides whether a missing feature skips a spec or
// fails it; package cluster fills it in from a kind config.
package facts

import (
	"fmt"
	"io"
	"strings"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Gates maps a feature gate name to whether the component has it enabled.
type Gates map[string]bool

// ParseFeatureMetrics reads the kubernetes_feature_enabled gauge from a component's
// Prometheus text exposition: 1 means enabled, 0 disabled.
func ParseFeatureMetrics(r io.Reader) (Gates, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parsing metrics: %w", err)
	}
	fam, ok := families["kubernetes_feature_enabled"]
	if !ok {
		return nil, fmt.Errorf("no kubernetes_feature_enabled metric in the exposition")
	}
	gates := Gates{}
	for _, m := range fam.GetMetric() {
		var name string
		for _, l := range m.GetLabel() {
			if l.GetName() == "name" {
				name = l.GetValue()
			}
		}
		if name == "" || m.GetGauge() == nil {
			continue
		}
		gates[name] = m.GetGauge().GetValue() == 1
	}
	return gates, nil
}

// String lists the enabled gates, for messages.
func (g Gates) String() string {
	var on []string
	for name, enabled := range g {
		if enabled {
			on = append(on, name)
		}
	}
	return strings.Join(on, ",")
}
