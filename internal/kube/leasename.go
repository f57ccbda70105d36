package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

const (
	// leasePrefix names the apply lock's Lease: kube-system/talops-apply-<cluster>.
	leasePrefix = "talops-apply-"
	// maxLeaseName keeps the name a DNS label (63), shorter than the object-name limit,
	// so it reads well in kubectl and fits wherever a label value is wanted.
	maxLeaseName = 63
)

// LeaseName is the name of the Lease that locks applies of the cluster. A cluster name
// that is not already a valid object name is lowercased, its other characters become
// '-', and a short hash of the original is appended, so two clusters whose names differ
// only in what was replaced ("Lab_1", "lab-1") still get different locks.
func LeaseName(cluster string) string {
	clean := sanitize(cluster)
	if clean != "" && clean == cluster && len(leasePrefix)+len(clean) <= maxLeaseName {
		return leasePrefix + clean
	}

	sum := sha256.Sum256([]byte(cluster))
	suffix := "-" + hex.EncodeToString(sum[:4])

	room := maxLeaseName - len(leasePrefix) - len(suffix)
	clean = strings.Trim(clean[:min(len(clean), room)], "-")

	if clean == "" {
		return leasePrefix + suffix[1:]
	}

	return leasePrefix + clean + suffix
}

// sanitize lowercases s, turns every character but a-z and 0-9 into '-', folds runs of
// '-' into one and trims them from the ends.
func sanitize(s string) string {
	var b strings.Builder

	dash := false

	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)

			dash = false

			continue
		}

		if !dash {
			b.WriteByte('-')

			dash = true
		}
	}

	return strings.Trim(b.String(), "-")
}
