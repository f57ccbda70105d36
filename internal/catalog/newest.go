package catalog

import "fmt"

// NewestStable returns the newest final (non-prerelease) Talos release of the catalog, the
// version a new cluster starts on.
func (c *Catalog) NewestStable() (string, error) {
	r, ok := c.Latest()
	if !ok {
		return "", fmt.Errorf("the release data holds no final Talos release")
	}

	return r.Tag(), nil
}

// NewestKubernetes returns the newest Kubernetes the Talos release supports, as a tag
// ("v1.13.9" → "v1.36.0"). The compatibility data knows Kubernetes minors, not their
// patches, so it is the first release of the newest supported minor; every later patch of
// that minor is supported too.
func NewestKubernetes(talos string) (string, error) {
	_, maxMinor, err := KubernetesRange(talos)
	if err != nil {
		return "", err
	}

	return "v" + maxMinor + ".0", nil
}
