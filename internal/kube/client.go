package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	// requestTimeout bounds each API request, so a control plane that stops answering in
	// the middle of a rollout fails a step instead of hanging it.
	requestTimeout = 30 * time.Second
	// reachableTimeout is how long Reachable waits: a cluster being bootstrapped has no
	// API at all, and apply should not wait long to learn that.
	reachableTimeout = 5 * time.Second
	// DefaultLeaseDuration is how long the apply lock lasts unless renewed.
	DefaultLeaseDuration = 60 * time.Second
	// DefaultRenewInterval is how often a held lock is renewed: three tries per duration.
	DefaultRenewInterval = DefaultLeaseDuration / 3
)

// Client is a cluster's Kubernetes API as apply uses it.
type Client struct {
	// api reads and writes nodes, pods and the rest, and the objects of health checks, of
	// any kind the cluster serves.
	api *api
	// leases is a client of its own for the apply lock, with its own rate limit: a drain
	// that PodDisruptionBudgets hold up retries its evictions, many pods at once, and
	// that must not delay a renewal.
	leases *api

	// LeaseDuration is how long the apply lock lasts without renewal (whole seconds, at
	// least one).
	LeaseDuration time.Duration
	// RenewInterval is how often a held lock is renewed; shorter than LeaseDuration.
	RenewInterval time.Duration
	// DrainReport is how often a drain says what it still waits for (DefaultDrainReport
	// when unset).
	DrainReport time.Duration
	// Now is the clock the lock's and the drain's times come from.
	Now func() time.Time
}

// New builds a Client from an admin kubeconfig's bytes. Errors never quote the
// kubeconfig: it holds the cluster's admin credentials.
func New(kubeconfig []byte) (*Client, error) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		// The parser's errors can quote the input (YAML errors show the offending line),
		// so only what kind of failure it was is reported.
		switch {
		case clientcmd.IsEmptyConfig(err):
			return nil, errors.New("read kubeconfig: it is empty")
		case clientcmd.IsConfigurationInvalid(err):
			return nil, errors.New("read kubeconfig: it names no usable context, cluster and user")
		default:
			return nil, errors.New("read kubeconfig: not a valid kubeconfig")
		}
	}

	return NewForConfig(cfg)
}

// NewForConfig builds a Client from a REST config (tests and callers that already have one).
func NewForConfig(cfg *rest.Config) (*Client, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.Timeout == 0 {
		cfg.Timeout = requestTimeout
	}

	a, err := newAPI(cfg)
	if err != nil {
		return nil, err
	}

	leases, err := newAPI(cfg)
	if err != nil {
		return nil, err
	}

	return &Client{api: a, leases: leases, LeaseDuration: DefaultLeaseDuration, RenewInterval: DefaultRenewInterval, Now: time.Now}, nil
}

// Reachable asks the API server for its version, briefly: an error means there is no
// working Kubernetes API yet (a cluster being bootstrapped) or it is down.
func (c *Client) Reachable(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, reachableTimeout)
	defer cancel()

	if err := c.api.rest.Get().AbsPath("/version").Do(ctx).Error(); err != nil {
		return fmt.Errorf("kubernetes API: %w", err)
	}

	return nil
}

// renewEvery is RenewInterval, or its default when unset.
func (c *Client) renewEvery() time.Duration {
	if c.RenewInterval <= 0 {
		return DefaultRenewInterval
	}

	return c.RenewInterval
}
