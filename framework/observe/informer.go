package observe

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// informerOf is a watch-backed informer for one resource in ns, narrowed by tweak.
// Built from the resource's REST client rather than client-go's informer factory,
// whose package imports an informer and a lister for every API type: about 120
// packages that every cold build would compile for the three this package watches.
func informerOf(client cache.Getter, resource, ns string, obj runtime.Object, tweak func(*metav1.ListOptions)) cache.SharedIndexInformer {
	lw := cache.NewFilteredListWatchFromClient(client, resource, ns, tweak)
	return cache.NewSharedIndexInformer(lw, obj, 0, cache.Indexers{})
}
