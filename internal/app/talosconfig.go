package app

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/talops/talops/internal/scaffold"
)

// TalosconfigOptions are what a talosconfig is issued for.
type TalosconfigOptions struct {
	Dir string
	// Role is one of scaffold.Roles; TTL the client certificate's validity.
	Role string
	TTL  time.Duration
}

// ThrowawayError says a command needs the cluster's real secrets bundle and only a
// throwaway one is available.
type ThrowawayError struct {
	What string
	Why  string
}

func (e *ThrowawayError) Error() string {
	return e.What + " needs the cluster's real secrets bundle, and only a throwaway one is available (" + e.Why + ")"
}

// Talosconfig issues a talosconfig for the repository's cluster, its client certificate
// signed by the bundle's OS CA with the role. The bundle's values and the new client key
// are masked before it returns: nothing printed afterwards can quote them.
func Talosconfig(_ context.Context, d *Deps, opts TalosconfigOptions) ([]byte, error) {
	c, err := LoadCluster(d, opts.Dir)
	if err != nil {
		return nil, err
	}

	b, err := d.Secrets.Load(c)
	if err != nil {
		return nil, err
	}

	if b.Throwaway {
		return nil, &ThrowawayError{What: "talosconfig", Why: b.Why}
	}

	d.mask(b.Values()...)

	now, err := clock(d)
	if err != nil {
		return nil, err
	}

	data, err := scaffold.Talosconfig(c, b.Bundle, scaffold.TalosconfigSpec{Role: opts.Role, TTL: opts.TTL, Now: now})
	if err != nil {
		return nil, fmt.Errorf("talosconfig for %s: %w", c.Spec.Cluster.Name, err)
	}

	if cfg, err := parseTalosconfig(data); err == nil {
		for _, ctx := range cfg.Contexts {
			if key, err := base64.StdEncoding.DecodeString(ctx.Key); err == nil {
				d.mask(ctx.Key, string(key))
			}
		}
	}

	return data, nil
}
