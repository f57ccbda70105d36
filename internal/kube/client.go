package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	policyv1client "k8s.io/client-go/kubernetes/typed/policy/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/flowcontrol"
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
	cs *typed
	// leases is a client of its own for the apply lock, with its own rate limit: a drain
	// that PodDisruptionBudgets hold up retries its evictions, many pods at once, and
	// that must not delay a renewal.
	leases *typed
	// api reads the objects of health checks, of any kind the cluster serves.
	api *api

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

	cs, err := newTyped(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client for %s: %w", cfg.Host, err)
	}

	leases, err := newTyped(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client for %s: %w", cfg.Host, err)
	}

	a, err := newAPI(cfg)
	if err != nil {
		return nil, err
	}

	return &Client{cs: cs, leases: leases, api: a, LeaseDuration: DefaultLeaseDuration, RenewInterval: DefaultRenewInterval, Now: time.Now}, nil
}

// typed is client-go's typed clients of the API groups talops uses (nodes, pods,
// ConfigMaps, evictions, PodDisruptionBudgets, DaemonSets, Leases) and discovery, with one
// rate limit, as a Clientset would share it. Not the whole kubernetes.Clientset: it holds
// the typed clients of every group, some 10 MB of the binary (docs/performance.md).
type typed struct {
	core   corev1client.CoreV1Interface
	policy policyv1client.PolicyV1Interface
	apps   appsv1client.AppsV1Interface
	coord  coordinationv1client.CoordinationV1Interface
}

func newTyped(cfg *rest.Config) (*typed, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.RateLimiter == nil && cfg.QPS >= 0 {
		qps, burst := cfg.QPS, cfg.Burst
		if qps == 0 {
			qps = rest.DefaultQPS
		}

		if burst == 0 {
			burst = rest.DefaultBurst
		}

		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(qps, burst)
	}

	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}

	t := &typed{}

	if t.core, err = corev1client.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, err
	}

	if t.policy, err = policyv1client.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, err
	}

	if t.apps, err = appsv1client.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, err
	}

	if t.coord, err = coordinationv1client.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, err
	}

	return t, nil
}

func (t *typed) CoreV1() corev1client.CoreV1Interface                         { return t.core }
func (t *typed) PolicyV1() policyv1client.PolicyV1Interface                   { return t.policy }
func (t *typed) AppsV1() appsv1client.AppsV1Interface                         { return t.apps }
func (t *typed) CoordinationV1() coordinationv1client.CoordinationV1Interface { return t.coord }

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
