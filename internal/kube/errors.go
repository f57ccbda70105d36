// Package kube speaks to a cluster's Kubernetes API for apply: drain and uncordon around a
// node's disruption, delete a removed node's Node object, and the Lease that keeps two
// applies of one cluster apart.
package kube

import "time"

// LockedError is a refusal to take a cluster's apply lock: another apply holds it.
type LockedError struct {
	Cluster string
	Holder  string
	Since   time.Time
	// Expires is when the lock lapses unless its holder renews it.
	Expires time.Time
}

func (e *LockedError) Error() string {
	return "cluster " + e.Cluster + " is being applied by " + e.Holder + " since " +
		e.Since.UTC().Format(time.RFC3339) + " (the lock lapses at " + e.Expires.UTC().Format(time.RFC3339) + " unless renewed)"
}
