package catalog

import "fmt"

// NewestStable returns the newest final (non-prerelease) Talos release this build knows, in
// the extension data or the facts: the version a new cluster starts on.
func (c *Catalog) NewestStable() (string, error) {
	tag, ok := c.NewestKnownStable(EmbeddedFacts())
	if !ok {
		return "", fmt.Errorf("the release data holds no final Talos release")
	}

	return tag, nil
}

// NewestKubernetes returns the Kubernetes a new cluster on the Talos release starts on, as a
// tag: the release's own default when the facts give it ("v1.14.7" → "v1.37.1"), else the
// first release of the newest minor it supports ("v1.13.9" → "v1.36.0"; every later patch of
// that minor is supported too).
func NewestKubernetes(talos string) (string, error) {
	_, maxMinor, err := KubernetesRange(talos)
	if err != nil {
		return "", err
	}

	if rf, ok := EmbeddedFacts().Release(talos); ok && rf.Kubernetes != "" {
		if k, err := parseKubernetes(rf.Kubernetes); err == nil && k.minorLabel() == maxMinor {
			return "v" + k.v.String(), nil
		}
	}

	return "v" + maxMinor + ".0", nil
}
