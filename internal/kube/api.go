package kube

import (
	"fmt"
	"net/http"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// api is one connection to a cluster's Kubernetes API: one REST client, hence one rate
// limit, under the dynamic client, the mapper of kinds to resources (mapper.go) and the
// raw requests (/version).
type api struct {
	rest   *rest.RESTClient
	dyn    *dynamic.DynamicClient
	mapper *mapper
	http   *http.Client
}

func newAPI(cfg *rest.Config) (*api, error) {
	// The dynamic client's config: JSON, and its serializer of unstructured objects rather
	// than a scheme. Every request names its absolute path.
	cfg = dynamic.ConfigFor(cfg)
	cfg.GroupVersion = nil
	cfg.APIPath = ""

	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client for %s: %w", cfg.Host, err)
	}

	// The REST client makes the rate limiter of cfg.QPS and cfg.Burst (client-go's defaults
	// when unset) that all the requests through it share.
	rc, err := rest.UnversionedRESTClientForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client for %s: %w", cfg.Host, err)
	}

	return &api{rest: rc, dyn: dynamic.New(rc), mapper: newMapper(rc), http: hc}, nil
}

// close lets go of the idle connections of a client used once.
func (a *api) close() { a.http.CloseIdleConnections() }
