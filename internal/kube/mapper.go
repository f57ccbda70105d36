package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// mapper maps a kind to the resource that serves it by what the cluster's discovery says
// of the kind's group-version alone (GET /api/v1 or /apis/<group>/<version>, an
// APIResourceList), remembered per group-version until reset.
//
// Not client-go's discovery client and restmapper: they link the scheme of every API
// group (k8s.io/client-go/kubernetes/scheme), the OpenAPI clients and gnostic-models,
// 14.6 MB of the binary on their own (docs/performance.md), to read the same lists.
type mapper struct {
	rest rest.Interface

	mu sync.Mutex
	// served is the resources of each group-version asked about; nil for one the cluster
	// does not serve.
	served map[schema.GroupVersion][]metav1.APIResource
}

func newMapper(rc rest.Interface) *mapper {
	return &mapper{rest: rc, served: map[schema.GroupVersion][]metav1.APIResource{}}
}

// mapping is where the objects of a kind are served.
type mapping struct {
	resource   schema.GroupVersionResource
	namespaced bool
}

// mapping is the resource of the kind in its group-version. A kind the cluster does not
// serve (its group-version unknown, or without that kind) is a *meta.NoKindMatchError,
// as client-go's mapper says it.
func (m *mapper) mapping(ctx context.Context, gvk schema.GroupVersionKind) (mapping, error) {
	gv := gvk.GroupVersion()

	resources, err := m.resources(ctx, gv)
	if err != nil {
		return mapping{}, err
	}

	for _, r := range resources {
		// "pods/eviction" and the like are subresources, no kind's home; a kind also maps
		// in lower case, as client-go's mapper has it.
		if strings.Contains(r.Name, "/") || (r.Kind != gvk.Kind && strings.ToLower(r.Kind) != gvk.Kind) {
			continue
		}

		return mapping{resource: gv.WithResource(r.Name), namespaced: r.Namespaced}, nil
	}

	return mapping{}, &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
}

// resources is what the cluster serves in the group-version, read once until reset.
func (m *mapper) resources(ctx context.Context, gv schema.GroupVersion) ([]metav1.APIResource, error) {
	m.mu.Lock()
	resources, known := m.served[gv]
	m.mu.Unlock()

	if known {
		return resources, nil
	}

	resources, err := m.discover(ctx, gv)
	if err != nil {
		return nil, err
	}

	m.mu.Lock()
	m.served[gv] = resources
	m.mu.Unlock()

	return resources, nil
}

// discover asks the cluster what it serves in the group-version (nil: nothing).
func (m *mapper) discover(ctx context.Context, gv schema.GroupVersion) ([]metav1.APIResource, error) {
	if gv.Version == "" {
		return nil, nil
	}

	path := []string{"/apis", gv.Group, gv.Version}
	if gv.Group == "" {
		path = []string{"/api", gv.Version}
	}

	// JSON whatever the client prefers for objects: discovery is read here, not decoded by
	// a scheme.
	body, err := m.rest.Get().AbsPath(path...).SetHeader("Accept", "application/json").Do(ctx).Raw()
	if apierrors.IsNotFound(err) {
		return nil, nil
	}

	if err != nil {
		return nil, fmt.Errorf("discover the resources of %s: %w", gv, err)
	}

	var list metav1.APIResourceList
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("discover the resources of %s: %w", gv, err)
	}

	return list.APIResources, nil
}

// reset forgets what discovery said, so that a kind installed since (a CRD) is found.
func (m *mapper) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()

	clear(m.served)
}
