package suite

import (
	"bytes"
	"context"
	"fmt"

	"sigs.k8s.io/e2e-framework/klient/decoder"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	"sigs.k8s.io/e2e-framework/klient/k8s/resources"
)

// Objects other than the pods a spec watches (a Job, a Service, a ConfigMap) are
// created through e2e-framework's klient: one generic path for any kind, and for the
// docs' manifests its decoder, which puts every object of a multi-document manifest
// into the spec's namespace. Pods that need a timeline go through Run, whose watch
// starts before the pod exists.

// resources is a klient client for the spec's namespace ns.
func (e *Env) resources(ns string) (*resources.Resources, error) {
	cfg, err := e.Cluster.RestConfig()
	if err != nil {
		return nil, err
	}
	res, err := resources.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("a klient for cluster %s: %w", e.Cluster.Name, err)
	}
	return res.WithNamespace(ns), nil
}

// Create creates objs in ns (each object's namespace is set to ns); they go with the
// namespace.
func (e *Env) Create(ctx context.Context, ns string, objs ...k8s.Object) error {
	res, err := e.resources(ns)
	if err != nil {
		return err
	}
	for _, o := range objs {
		o.SetNamespace(ns)
		if err := res.Create(ctx, o); err != nil {
			return fmt.Errorf("creating %T %s/%s: %w", o, ns, o.GetName(), err)
		}
	}
	return nil
}

// CreateManifest creates every object of a (multi-document) manifest in ns, as
// `kubectl create -n ns -f` would, and returns them as created.
func (e *Env) CreateManifest(ctx context.Context, ns string, manifest []byte) ([]k8s.Object, error) {
	res, err := e.resources(ns)
	if err != nil {
		return nil, err
	}
	var created []k8s.Object
	err = decoder.DecodeEach(ctx, bytes.NewReader(manifest), func(ctx context.Context, obj k8s.Object) error {
		if err := res.Create(ctx, obj); err != nil {
			return fmt.Errorf("creating %s %s/%s: %w", obj.GetObjectKind().GroupVersionKind().Kind, ns, obj.GetName(), err)
		}
		created = append(created, obj)
		return nil
	}, decoder.MutateNamespace(ns))
	return created, err
}
