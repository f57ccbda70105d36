package kube

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// Discovery as kube-apiserver answers it (trimmed): the legacy APIResourceList of a
// group-version, subresources listed beside their resource.
const (
	coreV1Resources = `{"kind":"APIResourceList","groupVersion":"v1","resources":[
		{"name":"nodes","singularName":"node","namespaced":false,"kind":"Node","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["no"]},
		{"name":"nodes/status","singularName":"","namespaced":false,"kind":"Node","verbs":["get","patch","update"]},
		{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["po"],"categories":["all"]},
		{"name":"pods/eviction","singularName":"","namespaced":true,"group":"policy","version":"v1","kind":"Eviction","verbs":["create"]}]}`
	appsV1Resources = `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[
		{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["deploy"],"categories":["all"]},
		{"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]}]}`
	widgetResources = `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"example.com/v1","resources":[
		{"name":"widgets","singularName":"widget","namespaced":false,"kind":"Widget","verbs":["get","list"]}]}`
	notFound = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`
)

// discoveryServer serves core/v1 and apps/v1, example.com/v1 once installed, and counts
// the requests of each path.
type discoveryServer struct {
	mu        sync.Mutex
	installed bool
	asked     map[string]int
}

func (d *discoveryServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()

	d.asked[r.URL.Path]++

	body := map[string]string{"/api/v1": coreV1Resources, "/apis/apps/v1": appsV1Resources}[r.URL.Path]
	if d.installed && r.URL.Path == "/apis/example.com/v1" {
		body = widgetResources
	}

	w.Header().Set("Content-Type", "application/json")

	switch {
	case r.URL.Path == "/apis/broken/v1":
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"etcd is away","reason":"InternalError","code":500}`))
	case body == "":
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(notFound))
	default:
		_, _ = w.Write([]byte(body))
	}
}

func (d *discoveryServer) requests(path string) int {
	d.mu.Lock()
	defer d.mu.Unlock()

	return d.asked[path]
}

func (d *discoveryServer) install() {
	d.mu.Lock()
	defer d.mu.Unlock()

	d.installed = true
}

func newDiscoveryMapper(t *testing.T) (*mapper, *discoveryServer) {
	t.Helper()

	d := &discoveryServer{asked: map[string]int{}}
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)

	a, err := newAPI(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}

	t.Cleanup(a.close)

	return a.mapper, d
}

func TestMapper_MapsAKindToItsResourceAndScope(t *testing.T) {
	t.Parallel()

	m, _ := newDiscoveryMapper(t)

	for _, tc := range []struct {
		gvk  schema.GroupVersionKind
		want mapping
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, mapping{schema.GroupVersionResource{Version: "v1", Resource: "pods"}, true}},
		{schema.GroupVersionKind{Version: "v1", Kind: "Node"}, mapping{schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, false}},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, mapping{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, true}},
		// client-go's mapper maps a kind in lower case too.
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "deployment"}, mapping{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, true}},
	} {
		got, err := m.mapping(context.Background(), tc.gvk)
		if err != nil || got != tc.want {
			t.Errorf("mapping(%s) = %+v, %v; want %+v", tc.gvk, got, err, tc.want)
		}
	}
}

func TestMapper_AKindTheClusterDoesNotServeIsNoMatch(t *testing.T) {
	t.Parallel()

	m, _ := newDiscoveryMapper(t)

	for name, gvk := range map[string]schema.GroupVersionKind{
		"unknown group-version":     {Group: "example.com", Version: "v1", Kind: "Widget"},
		"unknown kind in a known":   {Group: "apps", Version: "v1", Kind: "CronJob"},
		"a subresource's kind only": {Version: "v1", Kind: "Eviction"},
		"no version":                {Group: "apps", Kind: "Deployment"},
	} {
		_, err := m.mapping(context.Background(), gvk)
		if !meta.IsNoMatchError(err) {
			t.Errorf("%s: mapping(%s) = %v, want a no-match error", name, gvk, err)
		}
	}
}

func TestMapper_ADiscoveryFailureIsNoNoMatch(t *testing.T) {
	t.Parallel()

	m, _ := newDiscoveryMapper(t)

	_, err := m.mapping(context.Background(), schema.GroupVersionKind{Group: "broken", Version: "v1", Kind: "Thing"})
	if err == nil || meta.IsNoMatchError(err) {
		t.Errorf("mapping in a group-version whose discovery fails = %v, want that failure", err)
	}
}

func TestMapper_AsksOncePerGroupVersionUntilReset(t *testing.T) {
	t.Parallel()

	m, d := newDiscoveryMapper(t)
	ctx := context.Background()
	widget := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}

	for _, gvk := range []schema.GroupVersionKind{{Version: "v1", Kind: "Pod"}, {Version: "v1", Kind: "Node"}, {Version: "v1", Kind: "Pod"}} {
		if _, err := m.mapping(ctx, gvk); err != nil {
			t.Fatal(err)
		}
	}

	for range 2 {
		if _, err := m.mapping(ctx, widget); !meta.IsNoMatchError(err) {
			t.Fatalf("Widget before its CRD: %v", err)
		}
	}

	if got := d.requests("/api/v1") + d.requests("/apis/example.com/v1"); got != 2 {
		t.Errorf("%d discovery requests for two group-versions, want 2", got)
	}

	// The CRD is installed: what the mapper remembers hides it until reset.
	d.install()

	if _, err := m.mapping(ctx, widget); !meta.IsNoMatchError(err) {
		t.Errorf("Widget before the reset: %v, want the remembered no-match", err)
	}

	m.reset()

	got, err := m.mapping(ctx, widget)
	if want := (mapping{resource: widget.GroupVersion().WithResource("widgets")}); err != nil || got != want {
		t.Errorf("Widget after the reset = %+v, %v; want %+v", got, err, want)
	}

	if _, err := m.mapping(ctx, schema.GroupVersionKind{Version: "v1", Kind: "Pod"}); err != nil || d.requests("/api/v1") != 2 {
		t.Errorf("Pod after the reset: %v, core/v1 asked %d times, want 2", err, d.requests("/api/v1"))
	}
}
